/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm-pin placement engine: a C API with an opaque handle, in the style of
 * mpibind. Init, set inputs, compute, read outputs, finalize. No Slurm here:
 * the SPANK plugin, the profiler and the CLI all call this.
 *
 *   sp_placement_t *p = sp_init();
 *   sp_set_topology(p, "pack:2 l3:1 core:4 pu:1");
 *   sp_set_restrict(p, "0-5");
 *   sp_set_strategy(p, "lpgp");
 *   sp_load_profile(p, "app.profile", "simple", NULL);
 *   sp_set_threads(p, 4);
 *   if (sp_compute(p) != 0) fprintf(stderr, "%s\n", sp_error(p));
 *   sp_get_thread_cpus(p, 0, 0, buf, sizeof buf);
 *   sp_finalize(p);
 *
 * A launcher then applies task t as binding.h says. The whole API, and its
 * one return convention, is slurm_pin.h.
 *
 * Every setter and sp_compute return 0, or -1 with a one-line message in
 * sp_error(): the problem, then the fix.
 */
#ifndef SLURM_PIN_PLACEMENT_H
#define SLURM_PIN_PLACEMENT_H

#include <hwloc.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_placement sp_placement_t;

sp_placement_t *sp_init(void);
void sp_finalize(sp_placement_t *p);
const char *sp_error(const sp_placement_t *p);

/* Inputs. */
int sp_set_topology(sp_placement_t *p, const char *source); /* "this", XML file, synthetic */
/* The caller's own loaded hwloc topology instead (as mpibind_set_topology):
 * the handle copies it at each use and never modifies or frees it, so it
 * must stay valid until sp_finalize or the next sp_set_topology*. Device
 * locality (sp_set_gpu) needs its I/O objects (hwloc's io_types filter).
 * NULL: back to "this". */
int sp_set_hwloc_topology(sp_placement_t *p, hwloc_topology_t topology);
/* For "this": the node's topology as sp_save_topology wrote it, read
 * instead of discovered (milliseconds saved per step) when it is root's,
 * writable by nobody else and describes the CPUs online now; otherwise, or
 * with NULL, the machine is discovered. */
int sp_set_topology_cache(sp_placement_t *p, const char *path);
int sp_set_restrict(sp_placement_t *p, const char *cpulist); /* "0-3,8", NULL: all */
int sp_set_granularity(sp_placement_t *p, const char *g);    /* pu|core|l2|l3|numa */
int sp_set_strategy(sp_placement_t *p, const char *name);    /* none..gplp, file:PATH */
int sp_set_tasks(sp_placement_t *p, int ntasks);
int sp_set_task_layout(sp_placement_t *p, const char *layout); /* compact|scatter */
int sp_set_threads(sp_placement_t *p, int nthreads);         /* 0: from matrix or share */
int sp_set_oversubscribe(sp_placement_t *p, int allow);
/* smt:k (as mpibind): use only the first k hardware threads of each core,
 * one thread per hardware thread; 0: every PU, slots by granularity. */
int sp_set_smt(sp_placement_t *p, int k);
/* Device locality: "closest" gives each task the GPUs nearest its CPUs
 * among those the job may use, takes its CPUs near them, and exports
 * CUDA_VISIBLE_DEVICES (or ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK) and
 * SLURM_PIN_NIC per task; "none" (default) leaves devices alone. */
int sp_set_gpu(sp_placement_t *p, const char *mode);
/* The job's view of its GPUs: CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
 * ZE_AFFINITY_MASK as the job has them (value NULL: unset). Other names
 * are refused. */
int sp_set_gpu_env(sp_placement_t *p, const char *name, const char *value);
/* The names sp_set_gpu_env takes, NULL-terminated. */
const char *const *sp_gpu_env_names(void);
/* Which of the node's GPUs the job was given, by index among its vendor's
 * GPUs in the topology ("0,2"), as the resource manager says (Slurm: the
 * step's GPU list); they say which GPUs the entries of the job's
 * variable are. NULL or "": not said. */
int sp_set_gpus(sp_placement_t *p, const char *indices);
int sp_set_seed(sp_placement_t *p, uint64_t seed);
int sp_set_matrix(sp_placement_t *p, const double *rows, int n); /* n x n, row-major */
/* A sparse matrix for n threads: nedges entries (from[k], to[k], weight[k]),
 * 0 <= from, to < n, weights non-negative and finite; entries of one pair are
 * summed in both directions, as docs/formats.md's edge lists. Memory O(n +
 * nedges): the way in for thousands of threads. */
int sp_set_edges(sp_placement_t *p, int n, size_t nedges, const int *from, const int *to,
                 const double *weight);
int sp_load_matrix(sp_placement_t *p, const char *path);
/* Reads the profile now (with its regions, when sp_set_phases was called first). */
int sp_load_profile(sp_placement_t *p, const char *path, const char *model, const char *region);
/* A profile resolved at compute time, once the thread count is known: a file
 * path, or NAME[@VERSION] from the store directory. model: simple|rw. */
int sp_set_profile(sp_placement_t *p, const char *spec, const char *store, const char *model,
                   const char *region);

/* Also place every parallel region of the profile (per-region pinning); a
 * region that moves at most `merge` (0-1) of the threads keeps the previous
 * region's placement. */
int sp_set_phases(sp_placement_t *p, int on, double merge);

/* The thread count from OMP_NUM_THREADS' value ("8", or "8,2" for nested
 * levels: the first is the task's); NULL or "": from the task's share. */
int sp_set_omp_num_threads(sp_placement_t *p, const char *value);
/* Also keep to the CPUs the calling process may use now: a launcher's
 * binding never leaves them. */
int sp_set_restrict_to_process(sp_placement_t *p, int on);

/* What sp_compute may cost when it works for someone else (slurmstepd for
 * a user): the largest profile or placement file it reads (bytes; 0: the
 * formats' own limits) and its wall time (seconds; 0: none). A profile of
 * more threads than the step can run is refused at its 'threads' line, and
 * region matrices are read only for per-region placement, whatever the
 * budget. */
int sp_set_budget(sp_placement_t *p, size_t max_file_bytes, double max_seconds);

/* Placements this node computed before, kept in `dir` (NULL or "": none):
 * a profile-guided placement from a store profile is read from there when
 * an entry holds exactly its inputs (the store entry's text, the allowed
 * part of the machine, every option), instead of being computed. The
 * directory and its entries must be root's and writable by nobody else; the
 * engine only reads them, the caller stores sp_get_cache_entry's entry as
 * root. A result read from the cache carries no matrix: sp_get_level_sharing
 * gives -1 for it. */
int sp_set_placement_cache(sp_placement_t *p, const char *dir);

int sp_compute(sp_placement_t *p);
/* 1 when the last sp_compute read its placement from the cache, 0 when it
 * computed it, -1 before a successful sp_compute. */
int sp_get_cached(const sp_placement_t *p);
/* The cache entry for the placement just computed: its file name (one path
 * component) and content in *name, *data and *size, valid until the next
 * sp_compute. 1 when there is one to keep, 0 when none (read from the
 * cache, not cacheable, no cache set), -1 before a successful sp_compute. */
int sp_get_cache_entry(sp_placement_t *p, const char **name, const char **data, size_t *size);

/* Outputs, valid after a successful sp_compute. */
int sp_get_ntasks(const sp_placement_t *p);
int sp_get_nthreads(const sp_placement_t *p);
/* CPU lists ("0-3,8") written into buf; returns the length needed, or -1. */
int sp_get_task_cpus(const sp_placement_t *p, int task, char *buf, size_t len);
int sp_get_thread_cpus(const sp_placement_t *p, int task, int thread, char *buf, size_t len);
/* First PU of a thread's binding, -1 when unbound (strategy none). */
int sp_get_thread_pu(const sp_placement_t *p, int task, int thread);
/* The task's threads as OpenMP places, "{0,8},{1,9}" (OMP_PLACES with
 * thread binding env, without its size bound). Length needed, or -1. */
int sp_get_task_omp_places(const sp_placement_t *p, int task, char *buf, size_t len);
/* Where a thread sits, for people: "Package#1 L3#1 Core#5" (logical
 * indices among the allowed domains); "" when unbound. Length needed, or -1. */
int sp_get_thread_domain(sp_placement_t *p, int task, int thread, char *buf, size_t len);
const char *sp_get_fingerprint(const sp_placement_t *p);
/* The CPUs the placement could use: the topology within sp_set_restrict. */
int sp_get_allowed_cpus(const sp_placement_t *p, char *buf, size_t len);
/* Device locality (sp_set_gpu closest): the job's GPU variable the tasks'
 * GPUs are named for (CUDA_VISIBLE_DEVICES, ...; "" when no task got one),
 * each task's GPUs as that variable names them and as the node does
 * ("cuda3"), and the network adapter nearest it ("" when none). */
const char *sp_get_gpu_variable(const sp_placement_t *p);
int sp_get_task_ngpus(const sp_placement_t *p, int task);
const char *sp_get_task_gpu(const sp_placement_t *p, int task, int i);
const char *sp_get_task_gpu_name(const sp_placement_t *p, int task, int i);
const char *sp_get_task_nic(const sp_placement_t *p, int task);
/* Per-region placements (sp_set_phases, or a placement file's regions). */
int sp_get_nregions(const sp_placement_t *p);
const char *sp_get_region_name(const sp_placement_t *p, int region);
/* 1 when the region kept the previous region's placement (sp_set_phases' merge), else 0. */
int sp_get_region_merged(const sp_placement_t *p, int region);
int sp_get_region_thread_cpus(const sp_placement_t *p, int region, int task, int thread, char *buf, size_t len);
int sp_get_nlevels(const sp_placement_t *p);
const char *sp_get_level_name(const sp_placement_t *p, int level);
/* Share of the sharing kept inside one domain of the level, -1 without a matrix. */
double sp_get_level_score(const sp_placement_t *p, int level);
/* How many domains of the level the allowed CPUs touch. */
int sp_get_level_domains(const sp_placement_t *p, int level);
/* The sharing kept inside one domain of the level, and all of it (the
 * first task's threads); -1 without a matrix. */
int sp_get_level_sharing(const sp_placement_t *p, int level, double *kept, double *total);
/* How much of q's sharing p's placement keeps, summed over the machine's
 * levels (the profile-guided strategies' objective): judges one placement
 * by another's matrix, as `slurm-pin profiles diff` does; q == p judges p by
 * its own. Both computed on one machine and allowed CPUs with one task
 * shape, q with a matrix. Returns 0, or -1 when they cannot be compared. */
int sp_get_kept_sharing(const sp_placement_t *p, const sp_placement_t *q, double *kept);
/* The placement as a placement file (docs/formats.md) that
 * --pin-strategy=file:PATH applies again, its regions included; `strategy`
 * is what the file says made it. Length needed, or -1. */
int sp_get_placement_file(const sp_placement_t *p, const char *strategy, char *buf, size_t len);
int sp_get_nnotes(const sp_placement_t *p);
const char *sp_get_note(const sp_placement_t *p, int i);

/* Checks without computing, for early errors (srun, sbatch). Each returns 0,
 * or -1 with a one-line message in err. */
int sp_check_strategy(const char *name, char *err, size_t len);
int sp_check_profile(const char *spec, const char *store, char *err, size_t len);
int sp_check_placement_file(const char *path, char *err, size_t len);
int sp_check_granularity(const char *granularity, char *err, size_t len);
int sp_check_omp_num_threads(const char *value, char *err, size_t len);
int sp_check_smt(const char *k, char *err, size_t len); /* "1".."64" */
int sp_check_gpu_mode(const char *mode, char *err, size_t len); /* closest|none */

/* PUs ("0-3,8") of cores given by logical index ("0-1,4": the order in
 * which resource managers count a node's cores), in the handle's topology.
 * Returns 0 or -1 (sp_error). */
int sp_cores_to_pus(sp_placement_t *p, const char *cores, char *buf, size_t len);
/* Every PU of the handle's topology; returns the length needed, or -1. */
int sp_topology_pus(sp_placement_t *p, char *buf, size_t len);
/* The handle's machine as counts per kind, "Package:2 L3:2 Core:16 PU:16"
 * (what profiles and placement files record, and sp_get_fingerprint gives
 * after a placement); returns the length needed, or -1. */
int sp_topology_fingerprint(sp_placement_t *p, char *buf, size_t len);

/* One line per strategy, for --pin-strategy=help and `slurm-pin place --strategy help`. */
const char *sp_strategies_help(void);

/* The one list of strategies (the plugin, the CLI and the Lua policy use
 * it): names 0..sp_strategy_count()-1, "file:PATH" last. */
int sp_strategy_count(void);
const char *sp_strategy_name(int i);
/* 1 when `name` (or file:PATH) needs a sharing profile, else 0 (also when
 * it is no strategy: sp_check_strategy says why). */
int sp_strategy_needs_profile(const char *name);

#ifdef __cplusplus
}
#endif

#endif
