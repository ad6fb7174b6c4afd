/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What slurm-pin's own front ends (the slurm-pin command, the SPANK plugin,
 * the profiler, the Lua policy's build) need of the engine beyond the
 * public API of slurm_pin/slurm_pin.h: early checks with their messages,
 * the node's caches, per-region placement, scores, output for people. Not
 * installed and not exported by libslurmpin.so: the commands link the
 * engine statically, the plugin loads the private libslurmpin_frontend.so,
 * so none of this is an ABI promise. Conventions as slurm_pin.h's, except
 * where a function says otherwise (its strings "valid until the next call",
 * or static).
 */
#ifndef SLURM_PIN_FRONTEND_H
#define SLURM_PIN_FRONTEND_H

#include "slurm_pin/slurm_pin.h"
#include "slurm_pin_options.h" /* option values, checked without the engine */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- placement */
/* For "this": the node's topology as sp_save_topology wrote it, read
 * instead of discovered (milliseconds saved per step) when it is root's,
 * writable by nobody else and describes the CPUs online now; otherwise, or
 * with NULL, the machine is discovered. */
int sp_set_topology_cache(sp_placement_t *p, const char *path);
/* The names sp_set_job_gpu_variable takes, NULL-terminated. */
const char *const *sp_job_gpu_variable_names(void);
/* Tasks are laid out compact (the default) or scatter over the machine. */
int sp_set_task_layout(sp_placement_t *p, const char *layout);
/* A matrix file (docs/formats.md), read now. */
int sp_load_matrix(sp_placement_t *p, const char *path);
/* sp_load_task_matrix, sp_set_task_matrix, sp_set_task_ranks: public (slurm_pin.h). */
/* MPI ranks across `nodes` nodes by their traffic (a matrix file of ranks
 * x ranks, docs/formats.md, or a profile's rank section), for srun --distribution=arbitrary: node_of
 * (the caller's array of `len` ints) gets each rank's node, as many ranks
 * per node as Slurm's block distribution gives it, the pairs that exchange
 * most on one node. Returns the rank count (more than len: nothing
 * written), or -1 with `err`. `traffic` gets what crosses nodes this way
 * and in Slurm's block and cyclic orders (each pair once). */
struct sp_rank_traffic {
  double total, crossing, block, cyclic;
};
int sp_split_ranks(const char *matrix_path, int nodes, uint64_t seed, int *node_of, size_t len,
                   struct sp_rank_traffic *traffic, char *err, size_t errlen);

/* Also place every parallel region of the profile (per-region pinning); a
 * region that moves at most `merge` (0-1) of the threads keeps the previous
 * region's placement. */
int sp_set_phases(sp_placement_t *p, int on, double merge);

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

/* 1 when the last sp_compute read its placement from the cache, 0 when it
 * computed it, -1 before a successful sp_compute. */
int sp_get_cached(const sp_placement_t *p);
/* The cache entry for the placement just computed: its file name (one path
 * component) and content in *name, *data and *size, valid until the next
 * sp_compute. 1 when there is one to keep, 0 when none (read from the
 * cache, not cacheable, no cache set), -1 before a successful sp_compute. */
int sp_get_cache_entry(sp_placement_t *p, const char **name, const char **data, size_t *size);

/* What a caller that applies the binding itself, without the engine in the
 * task's process, needs beside sp_get_task_cpuset (the SPANK plugin computes
 * in a helper and binds its tasks with libc alone). How variable i of the
 * task environment is set from its current value: SP_ENV_SET (to the
 * value sp_get_env_value gives with current NULL), SP_ENV_KEEP (a current
 * value wins), SP_ENV_APPEND_WORD (the value added to a list of words
 * separated by spaces or colons, unless there) or SP_ENV_UNSET; -1 on error. */
#define SP_ENV_SET 0
#define SP_ENV_KEEP 1
#define SP_ENV_APPEND_WORD 2
/* SP_ENV_UNSET: slurm_pin.h's (-2) */
int sp_get_env_action(const sp_placement_t *p, int task, int i);
/* The task's memory policy as the kernel takes it: "none", "local", or
 * "interleave " and a list of NUMA nodes ("interleave 0-1"). -1 (sp_error)
 * when it cannot be applied here (no NUMA support, no node holds its CPUs). */
int sp_get_task_mem_policy(const sp_placement_t *p, int task, char *buf, size_t len);

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
/* GPU locality: the task's GPUs as the node names them ("cuda1,cuda3"), in
 * sp_get_task_gpus' order; its variable is the one of
 * sp_job_gpu_variable_names among the task environment's. Length needed, or -1. */
int sp_get_task_gpu_names(const sp_placement_t *p, int task, char *buf, size_t len);
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
/* The same for the tasks' traffic (sp_load_task_matrix): kept inside one
 * domain of the level between tasks, and all of it; -1 without a task matrix. */
int sp_get_level_task_traffic(const sp_placement_t *p, int level, double *kept, double *total);
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

/* Checks without computing, for early errors (srun, sbatch), of what the
 * engine reads: a profile, a placement file. Each returns 0, or -1 with a
 * one-line message in err. (Option values are checked without the engine:
 * slurm_pin_options.h.) */
int sp_check_profile(const char *spec, const char *store, char *err, size_t len);
int sp_check_placement_file(const char *path, char *err, size_t len);

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

/* ---- binding */
/* sp_set_thread_library: public (slurm_pin.h). */
/* Also GOMP_CPU_AFFINITY and KMP_AFFINITY, for runtimes before OpenMP 4.0. */
int sp_set_legacy_omp_env(sp_placement_t *p, int on);
/* Why this strategy ("policy rule R"), shown after it in sp_describe_task. */
int sp_set_origin(sp_placement_t *p, const char *why);

/* ---- slurm-pin's thread runtime (libslurm_pin_threads.so) on disk, for
 * front ends that bind threads with it (thread modes preload and ompt):
 * where it is, and whether it can be preloaded into a program. Each returns
 * 0, or -1 with a one-line message in err. */

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
/* Thread binding auto: whether OMP_PLACES alone must bind `program`'s
 * threads, because the library is `missing` (why, when not NULL or ""), or
 * the loader will not preload it into the program (as
 * sp_check_preloadable reads it). 1 with the note to print in buf (cut to
 * fit), 0 when auto can bind as it is (buf untouched). */
int sp_auto_binding_note(const char *program, const char *path_env, const char *missing, char *buf, size_t len);

/* ---- the node's topology saved once (slurmd's start, a package's install)
 * for every later placement to read instead of discovering the machine */

/* Discovers this machine (every PU, PCI and OS devices) and writes it to
 * `path` (mode 0644, replaced atomically, its directory made if missing),
 * for sp_set_topology_cache. Returns 0, or -1 with `err` filled. Saves
 * nothing (and returns 0) when HWLOC_* variables choose the topology. */
int sp_save_topology(const char *path, char *err, size_t len);

#ifdef __cplusplus
}
#endif

#endif
