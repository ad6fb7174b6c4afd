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
 * A launcher then applies task t (see "Binding" below): sp_bind_task(p, t),
 * and each variable i < sp_get_env_count(p) set to sp_get_env_value(p, t,
 * i, getenv(sp_get_env_name(p, i))), or unset when that is NULL.
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
/* The job's view of its GPUs: SLURM_STEP_GPUS, SLURM_JOB_GPUS,
 * CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK as the job
 * has them (value NULL: unset). Other names are refused. */
int sp_set_gpu_env(sp_placement_t *p, const char *name, const char *value);
/* The names sp_set_gpu_env takes, NULL-terminated. */
const char *const *sp_gpu_env_names(void);
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

int sp_compute(sp_placement_t *p);

/* Outputs, valid after a successful sp_compute. */
int sp_get_ntasks(const sp_placement_t *p);
int sp_get_nthreads(const sp_placement_t *p);
/* CPU lists ("0-3,8") written into buf; returns the length needed, or -1. */
int sp_get_task_cpus(const sp_placement_t *p, int task, char *buf, size_t len);
int sp_get_thread_cpus(const sp_placement_t *p, int task, int thread, char *buf, size_t len);
/* First PU of a thread's binding, -1 when unbound (strategy none). */
int sp_get_thread_pu(const sp_placement_t *p, int task, int thread);
const char *sp_get_fingerprint(const sp_placement_t *p);
/* Per-region placements (sp_set_phases, or a placement file's regions). */
int sp_get_nregions(const sp_placement_t *p);
const char *sp_get_region_name(const sp_placement_t *p, int region);
int sp_get_region_thread_cpus(const sp_placement_t *p, int region, int task, int thread, char *buf, size_t len);
int sp_get_nlevels(const sp_placement_t *p);
const char *sp_get_level_name(const sp_placement_t *p, int level);
/* Share of the sharing kept inside one domain of the level, -1 without a matrix. */
double sp_get_level_score(const sp_placement_t *p, int level);
int sp_get_nnotes(const sp_placement_t *p);
const char *sp_get_note(const sp_placement_t *p, int i);

/* ---- Binding: what a task needs so that its threads follow the placement.
 * The library produces it; front ends (the SPANK plugin, `slurm-pin run`)
 * apply it and format nothing themselves. */

/* How threads are bound: env (OpenMP places; the default), preload or ompt
 * (slurm-pin's thread library, at `path`, binds them). */
int sp_set_thread_mode(sp_placement_t *p, const char *mode);
int sp_set_thread_library(sp_placement_t *p, const char *path);
/* slurm-pin's thread library for a program or plugin whose own path is
 * `from`: beside it, or where the packages install it relative to it; each
 * candidate opened once and checked on its descriptor. Writes the path into
 * buf; -1 with a message naming the places looked at. */
int sp_find_thread_library(const char *from, char *buf, size_t len, char *err, size_t errlen);
/* A readable regular file, checked the same way; -1 with a message. */
int sp_check_thread_library(const char *path, char *err, size_t len);
/* Whether the loader will preload the thread library into `program` (as
 * execvp finds it in `path_env`, read as the caller): -1 with a one-line
 * message when it is statically linked or set-user/group-ID (or a script
 * whose interpreter is), so a task never claims places the library cannot
 * give; 0 otherwise (a program exec cannot find passes: exec says so). */
int sp_check_preloadable(const char *program, const char *path_env, char *err, size_t len);
int sp_set_mem_policy(sp_placement_t *p, const char *policy); /* none|local|interleave */
/* Also GOMP_CPU_AFFINITY and KMP_AFFINITY, for runtimes before OpenMP 4.0. */
int sp_set_legacy_omp_env(sp_placement_t *p, int on);
/* Also SLURM_CPU_BIND, _TYPE, _LIST and _VERBOSE describing this binding
 * (mask_cpu: one mask per task), replacing what Slurm said of its own. */
int sp_set_slurm_cpu_bind(sp_placement_t *p, int on);
/* Why this strategy ("policy rule R"), shown after it in sp_describe_task. */
int sp_set_origin(sp_placement_t *p, const char *why);
/* A site policy's decision, read by the caller from a place users cannot
 * write, exported as SLURM_PIN_POLICY (NULL or "": the variable is unset). */
int sp_set_policy_decision(sp_placement_t *p, const char *decision);

/* CPU sets as hwloc bitmaps, owned by the handle (valid until the next
 * sp_compute or sp_finalize); NULL when there is no such task or thread. */
hwloc_const_bitmap_t sp_get_task_cpuset(sp_placement_t *p, int task);
hwloc_const_bitmap_t sp_get_thread_cpuset(sp_placement_t *p, int task, int thread);

/* The task environment: the same names for every task. The value for task
 * `task` given the variable's current value (NULL: unset), valid until the
 * next call; NULL when the variable must be unset. */
int sp_get_env_count(sp_placement_t *p);
const char *sp_get_env_name(sp_placement_t *p, int i);
const char *sp_get_env_value(sp_placement_t *p, int task, int i, const char *current);

/* What slurm-pin's thread runtime inside task `task` reads from its task
 * file (the places of its threads, and of every region's with ompt): NULL
 * when the task needs none (thread mode env), or on error (sp_error then
 * says why). The front end writes it where the task can read it and sets
 * SLURM_PIN_TASK_FILE to that path: it can be larger than an environment
 * variable may be. Valid until the next call. */
const char *sp_get_task_data(sp_placement_t *p, int task);

/* Binds the calling process as task `task`: its CPU affinity (read back, so
 * CPUs the kernel refuses are an error) and its memory policy; both survive
 * execve. 0, or -1 with sp_error. */
int sp_bind_task(sp_placement_t *p, int task);
/* "strategy S, N threads on CPUs C, places P, mem M[, threads by X][, K
 * regions]", valid until the next call; NULL when there is no such task. */
const char *sp_describe_task(sp_placement_t *p, int task);

/* Checks without computing, for early errors (srun, sbatch). Each returns 0,
 * or -1 with a one-line message in err. */
int sp_check_strategy(const char *name, char *err, size_t len);
int sp_check_profile(const char *spec, const char *store, char *err, size_t len);
int sp_check_placement_file(const char *path, char *err, size_t len);
int sp_check_mem_policy(const char *policy, char *err, size_t len);
int sp_check_thread_mode(const char *mode, char *err, size_t len);
int sp_check_granularity(const char *granularity, char *err, size_t len);
int sp_check_omp_num_threads(const char *value, char *err, size_t len);
int sp_check_smt(const char *k, char *err, size_t len); /* "1".."64" */
int sp_check_gpu_mode(const char *mode, char *err, size_t len); /* closest|none */

/* PUs ("0-3,8") of cores given by logical index ("0-1,4"), as Slurm numbers
 * a node's cores, in the handle's topology. Returns 0 or -1 (sp_error). */
int sp_cores_to_pus(sp_placement_t *p, const char *cores, char *buf, size_t len);
/* Every PU of the handle's topology; returns the length needed, or -1. */
int sp_topology_pus(sp_placement_t *p, char *buf, size_t len);
/* Discovers this machine (every PU, PCI and OS devices) and writes it to
 * `path` (mode 0644, replaced atomically, its directory made if missing),
 * for sp_set_topology_cache. Returns 0, or -1 with `err` filled. Does
 * nothing (returns 1) when HWLOC_* variables choose the topology. */
int sp_save_topology(const char *path, char *err, size_t len);

/* One line per strategy, for --pin-strategy=help and `slurm-pin place --strategy help`. */
const char *sp_strategies_help(void);

/* The one list of strategies (the plugin, the CLI and the Lua policy use
 * it): names 0..sp_strategy_count()-1, "file:PATH" last. */
int sp_strategy_count(void);
const char *sp_strategy_name(int i);
/* 1 when `name` (or file:PATH) needs a sharing profile, 0 when not, -1 when
 * it is no strategy. */
int sp_strategy_needs_profile(const char *name);

/* Store profile names, one rule for every front end: 1 when `spec` is NAME
 * or NAME@VERSION (not a path, well formed), else 0. The rule's parts are
 * exported for front ends that cannot call C (the Lua policy's generated
 * module): NAME's characters, its longest length, VERSION's most digits. */
int sp_is_profile_name(const char *spec);
const char *sp_profile_name_chars(void);
int sp_profile_name_max(void);
int sp_profile_version_digits(void);

#ifdef __cplusplus
}
#endif

#endif
