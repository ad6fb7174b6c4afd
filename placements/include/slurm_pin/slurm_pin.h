/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm-pin's C API: cache- and NUMA-aware placement of a job's tasks and
 * threads, for launchers, scheduler plugins and tools. Link with libslurmpin
 * (pkg-config slurm-pin; CMake find_package(slurm-pin), slurm-pin::slurmpin).
 *
 *   sp_placement_t *p = sp_init();
 *   sp_set_topology(p, "this");        // or sp_set_hwloc_topology(p, mine)
 *   sp_set_restrict(p, "0-15");        // the CPUs the job may use
 *   sp_set_tasks(p, 2);
 *   sp_set_strategy(p, "lpgp");
 *   sp_set_profile(p, "app.profile", NULL, "simple", NULL);
 *   if (sp_compute(p) != 0) fprintf(stderr, "%s\n", sp_error(p));
 *   hwloc_const_bitmap_t cpus = sp_get_thread_cpuset(p, 0, 0);
 *   sp_finalize(p);
 *
 * A launcher then applies task t in the task's process before exec: its
 * environment (sp_get_env_*), its task data when it has any, and
 * sp_bind_task. docs/api.md has a whole launcher.
 *
 * Conventions, hwloc's:
 *  - int functions return -1 on failure and >= 0 on success: 0, a count, or
 *    the length of a string (as snprintf: without its NUL; the string is
 *    cut to fit the caller's buffer, so a result >= len means "call again
 *    with a larger one"). The reason of a failure is sp_error(p), one line:
 *    the problem, then the fix.
 *  - Strings are written into the caller's buffer. The one exception is
 *    sp_error: the message of the handle's last failure, kept until a call
 *    succeeds (a setter or sp_compute then clears it; a getter that fails,
 *    a task out of range, sets it too).
 *  - CPU sets are hwloc bitmaps owned by the handle, valid until the next
 *    sp_compute or sp_finalize.
 *  - Getters take a const handle and need a successful sp_compute first.
 *  - Each input is given one way; setters may be called again before the
 *    next sp_compute.
 */
#ifndef SLURM_PIN_H
#define SLURM_PIN_H

#include <hwloc.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_placement sp_placement_t;

/* ---- the handle -------------------------------------------------------- */

/* A new handle, or NULL when out of memory. */
sp_placement_t *sp_init(void);
void sp_finalize(sp_placement_t *p);
/* Why the last failing call on p failed ("" when none did): "out of
 * memory" (and errno ENOMEM) when memory ran out, whatever the call. */
const char *sp_error(const sp_placement_t *p);

/* ---- the machine ------------------------------------------------------- */

/* "this" (the machine the caller runs on; the default), an hwloc XML file,
 * or an hwloc synthetic description ("pack:2 l3:1 core:4 pu:1"). */
int sp_set_topology(sp_placement_t *p, const char *source);
/* The caller's own loaded hwloc topology instead (as mpibind_set_topology):
 * copied at each use, never modified or freed, so it must stay valid until
 * sp_finalize or the next sp_set_topology*. GPU locality needs its I/O
 * objects (hwloc's io_types filter). NULL: back to "this". */
int sp_set_hwloc_topology(sp_placement_t *p, hwloc_topology_t topology);
/* The CPUs the job may use, as a list ("0-3,8"); NULL: all of them. */
int sp_set_restrict(sp_placement_t *p, const char *cpulist);

/* ---- the job's shape --------------------------------------------------- */

int sp_set_tasks(sp_placement_t *p, int ntasks);      /* on this node; default 1 */
int sp_set_threads(sp_placement_t *p, int nthreads);  /* per task; 0: from the profile, or one per slot */
/* What one thread is bound to: pu, core (the default), l2, l3 or numa. */
int sp_set_granularity(sp_placement_t *p, const char *granularity);
/* Only the first k hardware threads of each core (as mpibind's smt); 0: all. */
int sp_set_smt(sp_placement_t *p, int k);
/* 1: more threads than CPUs share them (at most 64 a CPU); 0: refused. */
int sp_set_oversubscribe(sp_placement_t *p, int allow);

/* ---- the strategy ------------------------------------------------------ */

/* none, compact, scatter, random, lp-compact, lp-scatter, gp, lpgp, gplp,
 * or file:PATH (a placement file, docs/formats.md). */
int sp_set_strategy(sp_placement_t *p, const char *name);
int sp_set_seed(sp_placement_t *p, uint64_t seed); /* random's */
/* The strategies, names 0..sp_strategy_count()-1 ("file:PATH" last). */
int sp_strategy_count(void);
int sp_strategy_name(int i, char *buf, size_t len);

/* ---- what threads share (profile-guided strategies) -------------------- */

/* The sharing between n threads, as nedges entries (from[k], to[k],
 * weight[k]): 0 <= from, to < n, weights finite and non-negative; entries
 * of one pair are summed in both directions. Memory O(n + nedges). */
int sp_set_edges(sp_placement_t *p, int n, size_t nedges, const int *from, const int *to,
                 const double *weight);
/* Or a profile, read at sp_compute once the thread count is known: a file,
 * or NAME[@VERSION] in the profile store `store` (NULL: none). model:
 * simple or rw; region: one parallel region's matrix (NULL: the whole run). */
int sp_set_profile(sp_placement_t *p, const char *profile, const char *store, const char *model,
                   const char *region);

/* ---- GPUs -------------------------------------------------------------- */

/* "closest": each task gets the job's GPUs nearest its CPUs, and its CPUs
 * are taken near them; "none" (the default) leaves GPUs alone. */
int sp_set_gpu_locality(sp_placement_t *p, const char *mode);
/* The job's GPU variable as it is set (CUDA_VISIBLE_DEVICES,
 * ROCR_VISIBLE_DEVICES or ZE_AFFINITY_MASK; value NULL: unset). */
int sp_set_job_gpu_variable(sp_placement_t *p, const char *name, const char *value);
/* Which of the node's GPUs the job was given, by index among its vendor's
 * GPUs ("0,2"), as the resource manager says; NULL: not said. */
int sp_set_job_gpus(sp_placement_t *p, const char *indices);

/* ---- tasks placed by their traffic (MPI ranks) -------------------------- */

/* The tasks' traffic (MPI ranks: bytes or messages between each pair of
 * the node's tasks, in local rank order; a matrix file of docs/formats.md,
 * or dense n x n rows, symmetric): which task gets which share of the
 * node, heavy pairs sharing caches and NUMA domains, each task's threads
 * inside its share as usual. Its size must be the task count. A profile
 * with a rank section (slurm-pin profile --mpi) is read as its bytes. */
int sp_load_task_matrix(sp_placement_t *p, const char *path);
int sp_set_task_matrix(sp_placement_t *p, const double *rows, int n);
/* Which of the job's tasks run here: ranks[i] is local task i's global rank
 * (n of them, the node's task count), of job_tasks in the job. A profile
 * with a rank section (slurm-pin profile --mpi) then orders the tasks by
 * the traffic of these ranks; a profile of another job size is a note and
 * block order. Unset: the node's tasks are the whole job, in order. */
int sp_set_task_ranks(sp_placement_t *p, const int *ranks, int n, int job_tasks);

/* ---- how threads are bound --------------------------------------------- */

/* env (OpenMP places in each task's environment; the default), auto
 * (OpenMP's places and slurm-pin's thread library, preloaded: it binds the
 * threads of programs OpenMP does not bind, pthread programs), preload or
 * ompt (the thread library binds every thread, from the task data). */
int sp_set_thread_mode(sp_placement_t *p, const char *mode);
/* Where slurm-pin's thread library is (libslurm_pin_threads.so), which the
 * task preloads in the modes but env; NULL: the one installed with this
 * libslurmpin (LIBDIR/slurm-pin/), -1 when it is not there. */
int sp_set_thread_library(sp_placement_t *p, const char *path);
int sp_set_mem_policy(sp_placement_t *p, const char *policy); /* none, local, interleave */

/* ---- computing --------------------------------------------------------- */

int sp_compute(sp_placement_t *p);

/* ---- the placement ----------------------------------------------------- */

int sp_get_ntasks(const sp_placement_t *p);
int sp_get_nthreads(const sp_placement_t *p); /* per task */
/* NULL when there is no such task or thread. */
hwloc_const_bitmap_t sp_get_task_cpuset(const sp_placement_t *p, int task);
hwloc_const_bitmap_t sp_get_thread_cpuset(const sp_placement_t *p, int task, int thread);
/* With GPU locality: the task's GPUs as the job's variable names them
 * ("0,2"; "" when none), and the network adapter nearest it ("" when none). */
int sp_get_task_gpus(const sp_placement_t *p, int task, char *buf, size_t len);
int sp_get_task_nic(const sp_placement_t *p, int task, char *buf, size_t len);
/* What a user should know about the placement (a shape placed with a
 * compromise, say), one line each. */
int sp_get_nnotes(const sp_placement_t *p);
int sp_get_note(const sp_placement_t *p, int i, char *buf, size_t len);
/* One line for people: "strategy S, N threads on CPUs C, places P, mem M". */
int sp_describe_task(const sp_placement_t *p, int task, char *buf, size_t len);

/* ---- applying it, in task `task`'s process ----------------------------- */

/* The task environment: the same names for every task; the value for task
 * `task` given the variable's current value (NULL: unset). sp_get_env_value
 * returns SP_ENV_UNSET when the variable must be unset. */
#define SP_ENV_UNSET (-2)
int sp_get_env_count(const sp_placement_t *p);
int sp_get_env_name(const sp_placement_t *p, int i, char *buf, size_t len);
int sp_get_env_value(const sp_placement_t *p, int task, int i, const char *current, char *buf, size_t len);
/* What slurm-pin's thread library inside the task reads (thread modes
 * preload and ompt): write it to a file the task can read and set
 * SLURM_PIN_TASK_FILE to its path. Length 0 when the task needs none. */
int sp_get_task_data(const sp_placement_t *p, int task, char *buf, size_t len);
/* Binds the calling process as task `task`: its CPUs (read back, so CPUs
 * the kernel refuses are an error) and memory policy; both survive execve. */
int sp_bind_task(sp_placement_t *p, int task);

#ifdef __cplusplus
}
#endif

#endif
