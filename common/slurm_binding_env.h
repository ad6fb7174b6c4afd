/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a binder tells a Slurm task in Slurm's own words, kept out of the
 * engine (which speaks no Slurm): SLURM_CPU_BIND* describing slurm-pin's
 * binding as task/affinity describes --cpu-bind=mask_cpu (what Slurm set
 * described its own binding, which slurm-pin's replaces; nested launchers
 * such as Open MPI read it), and which of the node's GPUs Slurm gave the
 * job. The SPANK plugin and `slurm-pin run` share it. Plain C, libc only.
 */
#ifndef SLURM_PIN_SLURM_BINDING_ENV_H
#define SLURM_PIN_SLURM_BINDING_ENV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A task's CPU list ("0-1,4") as sp_get_task_cpus gives it: written into
 * buf[len], returns the length needed, or -1. */
typedef int (*slurm_task_cpus_fn)(const void *ctx, int task, char *buf, size_t len);

/* SLURM_CPU_BIND_LIST's value for the node's `ntasks` tasks, in task order:
 * each task's CPU list as one hex mask ("0x13"), comma-separated. malloc'd;
 * NULL when a list is malformed or names a CPU past 65535, or memory runs
 * out. */
char *slurm_cpu_bind_list(int ntasks, slurm_task_cpus_fn task_cpus, const void *ctx);

/* Sets SLURM_CPU_BIND, _TYPE, _LIST and _VERBOSE for `list` (from
 * slurm_cpu_bind_list) through `set` (0 on success). 0, or -1 when memory
 * runs out or `set` fails. */
typedef int (*slurm_env_setter)(void *ctx, const char *name, const char *value);
int slurm_cpu_bind_export(const char *list, slurm_env_setter set, void *ctx);

/* Where Slurm lists the node's GPU indices it gave a step: the step's
 * variable, then the job's; the first set and non-empty one is the list
 * (NULL-terminated). */
extern const char *const slurm_gpu_list_names[];
/* That list from this process's environment; NULL when none is set. */
const char *slurm_gpu_list_getenv(void);

#ifdef __cplusplus
}
#endif

#endif
