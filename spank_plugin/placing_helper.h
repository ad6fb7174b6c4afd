/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Placing a step in a helper process: slurmstepd forks once per step, the
 * child drops to the user for good, loads the engine, places the step and
 * writes what the tasks need (step_plan.h) into a pipe; slurmstepd reads
 * it within a deadline and never loads the engine itself. So slurmstepd
 * stays as small as without slurm-pin while its tasks fork (each fork
 * copies the parent's page tables: an engine with a 128-task placement in
 * it added a quarter of a millisecond to every task), its peak memory is
 * its own, and a placement that hangs or crashes ends that step, never
 * slurmstepd. The child is single-threaded, so it may set its own
 * environment (hwloc reads its plugin list from there).
 */
#ifndef SLURM_PIN_PLACING_HELPER_H
#define SLURM_PIN_PLACING_HELPER_H

#include <stddef.h>

#include "step_plan.h"

/* Runs work(arg, out) in a child process as the calling process's
 * effective user and group (real and saved ids too, so it cannot regain
 * root); what it put into `out` comes back in *data (malloc'd) and *size
 * when work returned 0. 0, or -1 with `err`: the child failed, died, or
 * did not finish within `seconds` (it is killed). At most `max_bytes`
 * come back. */
int placing_helper_run(int (*work)(void *arg, struct plan_writer *out), void *arg, double seconds,
                       size_t max_bytes, char **data, size_t *size, char *err, size_t len);

#endif
