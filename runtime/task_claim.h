/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The task's claim (thread binding `auto`): every process of a task loads
 * the runtime, but only one at a time may put its threads on the task's
 * places in creation order, or two multithreaded programs of one task
 * (a script running two) would stack their threads on the same first
 * places. The claim is one shared word, a memfd the task's first process
 * creates and every later one inherits (SLURM_PIN_CLAIM_FD): the pid of the
 * process holding it, taken by the first process that starts a thread of
 * its own, free again when that process is gone. Nothing is named in a
 * file system: no other user can take or block it.
 */
#ifndef SLURM_PIN_TASK_CLAIM_H
#define SLURM_PIN_TASK_CLAIM_H

/* Finds the task's claim (or, in its first process, makes it). 1 when this
 * process held it before an exec (the same pid); 0 otherwise. Without a
 * claim (descriptors closed, no memfd) no process of the task takes one. */
int task_claim_open(void);

/* 1 when this process holds the claim, taking it if it is free (nobody, or
 * a process that is gone); 0 when another live process holds it. */
int task_claim_take(void);

/* In a child after fork: the claim stays with the parent. */
void task_claim_forked(void);

#endif
