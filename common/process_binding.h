/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A task's binding applied to the calling process with libc alone: how
 * slurmstepd's tasks bind themselves from their plan, just before exec,
 * with no engine loaded, and how the engine's sp_bind_task binds. The
 * CPUs are read back (the kernel drops CPUs outside the cgroup without an
 * error); the memory policy is set as libnuma sets it.
 */
#ifndef SLURM_PIN_PROCESS_BINDING_H
#define SLURM_PIN_PROCESS_BINDING_H

#include <stddef.h>

/* Binds the calling process to the CPU list `cpus` ("0-3,8"): 0, or -1
 * with `err` saying why (malformed, refused, or narrowed by the kernel). */
int process_bind_cpus(const char *cpus, char *err, size_t len);

/* Sets the calling process's memory policy from its text ("none",
 * "local", "interleave 0-1"): 0, or -1 with `err`. */
int process_set_mem_policy(const char *policy, char *err, size_t len);

#endif
