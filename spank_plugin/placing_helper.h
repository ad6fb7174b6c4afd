/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Placing a step in a helper process: slurmstepd forks once per step, the
 * child becomes the job's user for good, loads the engine, places the step
 * and writes what the tasks need (step_plan.h) into a pipe; slurmstepd
 * reads it within a deadline and never loads the engine itself. So
 * slurmstepd stays as small as without slurm-pin while its tasks fork
 * (each fork copies the parent's page tables: an engine with a 128-task
 * placement in it added a quarter of a millisecond to every task), its
 * peak memory is its own, and a placement that hangs or crashes ends that
 * step, never slurmstepd. Started as soon as the step is known, the helper
 * works while slurmstepd sets the step up (its I/O, its tasks' records):
 * the step waits only for what is left when its tasks are about to start.
 * The child is single-threaded, so it may set its own environment (hwloc
 * reads its plugin list from there); having changed its ids, it cannot be
 * traced by the user it runs as.
 */
#ifndef SLURM_PIN_PLACING_HELPER_H
#define SLURM_PIN_PLACING_HELPER_H

#include <stddef.h>
#include <sys/types.h>

#include "step_plan.h"

/* Who the helper runs as: the job's user, group and supplementary groups
 * (set by a caller that is root); NULL: the caller's effective ids. Real
 * and saved ids follow, so the helper cannot regain root either way. */
struct helper_identity {
  uid_t uid;
  gid_t gid;
  int ngroups;
  const gid_t *groups;
};

/* A helper started and not yet finished. */
struct placing_helper {
  pid_t pid; /* 0: none */
  int fd;    /* the pipe's read end */
  double deadline;
};

/* Starts work(arg, out) in a child process as `who`; it must be done
 * within `seconds`, and may allocate at most `memory` bytes beyond what it
 * had when forked (its data segment and private writable mappings,
 * RLIMIT_DATA: what a single-threaded helper's resident memory grows by;
 * files it maps read-only are not counted). 0, or -1 with `err`. */
int placing_helper_start(struct placing_helper *h, int (*work)(void *arg, struct plan_writer *out), void *arg,
                         const struct helper_identity *who, double seconds, unsigned long long memory, char *err,
                         size_t len);

/* Waits for the helper (at most until its deadline, then kills it): what
 * work put into `out` in *data (malloc'd) and *size when work returned 0,
 * at most `max_bytes`. 0, or -1 with `err`: the child failed, died, or was
 * late. The helper is finished either way. */
int placing_helper_finish(struct placing_helper *h, size_t max_bytes, char **data, size_t *size, char *err,
                          size_t len);

/* Ends a helper whose result is no longer wanted (the step ended first). */
void placing_helper_cancel(struct placing_helper *h);

#endif
