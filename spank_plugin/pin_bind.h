/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Applying a placement to the calling process: its CPU affinity (checked by
 * reading it back, so a CPU outside the allocation or the node is caught)
 * and its NUMA memory policy. Both survive execve.
 */
#ifndef SLURM_PIN_BIND_H
#define SLURM_PIN_BIND_H

#include <stddef.h>

/* Binds the process to the CPUs of `cpulist`; -1 with a message. */
int pin_bind_cpus(const char *cpulist, char *err, size_t len);
/* Current affinity of the process as a CPU list. */
int pin_current_cpus(char *buf, size_t len);
/* "none" (leave it), "local" (allocate on the local node), "interleave"
 * (over the NUMA nodes of cpulist); -1 with a message. */
int pin_set_mem_policy(const char *policy, const char *cpulist, char *err, size_t len);

#endif
