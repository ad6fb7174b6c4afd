/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Binding: what a task needs so that its threads follow the placement of
 * an sp_placement_t (placement.h), set before sp_compute and read after it.
 * The library produces it; front ends (the SPANK plugin, `slurm-pin run`)
 * apply it and format nothing themselves:
 *
 *   sp_bind_task(p, t);
 *   for (int i = 0; i < sp_get_env_count(p); ++i) {
 *     const char *name = sp_get_env_name(p, i);
 *     const char *v = sp_get_env_value(p, t, i, getenv(name));
 *     v ? setenv(name, v, 1) : unsetenv(name);
 *   }
 *
 * The environment names no resource manager's variables: a front end adds
 * its own (the plugin: SLURM_CPU_BIND*, common/slurm_binding_env.h).
 */
#ifndef SLURM_PIN_BINDING_H
#define SLURM_PIN_BINDING_H

#include "slurm_pin/placement.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How threads are bound: env (OpenMP places; the default), preload or ompt
 * (slurm-pin's thread library, at `path`, binds them). */
int sp_set_thread_mode(sp_placement_t *p, const char *mode);
int sp_set_thread_library(sp_placement_t *p, const char *path);
int sp_set_mem_policy(sp_placement_t *p, const char *policy); /* none|local|interleave */
/* Also GOMP_CPU_AFFINITY and KMP_AFFINITY, for runtimes before OpenMP 4.0. */
int sp_set_legacy_omp_env(sp_placement_t *p, int on);
/* Why this strategy ("policy rule R"), shown after it in sp_describe_task. */
int sp_set_origin(sp_placement_t *p, const char *why);

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

/* Checks without computing, for early errors: 0, or -1 with a one-line
 * message in err. */
int sp_check_mem_policy(const char *policy, char *err, size_t len);
int sp_check_thread_mode(const char *mode, char *err, size_t len);

#ifdef __cplusplus
}
#endif

#endif
