/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The site policy's decision for a job on each of its nodes. job_submit.lua
 * records it in the job's AdminComment (docs/policy.md), where users cannot
 * write. The job's first step on a node reads it from slurmctld, in
 * slurmstepd as root before privileges are dropped (the only RPC slurm-pin
 * makes), and keeps it in RUN_DIR/jobs/JOB.NODE, root's and private; the
 * job's later steps there read that file; the epilog removes it. So a busy
 * slurmctld never fails a step whose decision is on the node, and no hook
 * calls slurmctld with privileges dropped (Slurm 24.11 ends such a call in
 * fatal(), as it does one from the SPANK prolog, which has no RPC layer).
 */
#ifndef SLURM_PIN_JOB_DECISION_H
#define SLURM_PIN_JOB_DECISION_H

#include <stddef.h>
#include <stdint.h>

/* Epilog (root): forgets the job's decision and any data its steps left. */
void job_decision_forget(const char *run_dir, uint32_t job, const char *node);

/* slurmd's start and every job's epilog (root): forgets the decisions of
 * jobs that no slurmstepd on this host runs any more, whose own epilog
 * never ran here (slurmd was down when their job ended). Looks at no more
 * than a fixed number of files; never follows a link nor removes what is
 * not a decision file of root's; logs what it removed. */
void job_decision_sweep(const char *run_dir);

/* A step (slurmstepd, root): the decision text ("" when the policy decided
 * nothing) from the node's file, or, for the job's first step here, with
 * one RPC, then kept there. -1 with a one-line message when it cannot be
 * known. */
int job_decision_read(const char *run_dir, uint32_t job, const char *node, char *out, size_t len, char *err,
                      size_t errlen);

/* The decision in the job record, with one RPC (srun, the user, may ask
 * too: the record is the user's own job); -1 when slurmctld cannot tell. */
int job_decision_ask(uint32_t job, char *out, size_t len);

/* This node's name as slurmd knows it (several slurmd may share a host),
 * as a safe file-name part; NULL when it has none. */
const char *job_decision_node(void);

#endif
