/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The site policy's decision for a job on each of its nodes. job_submit.lua
 * records it in the job's AdminComment (docs/policy.md), where users cannot
 * write. The job's prolog reads it from slurmctld once per job and node, as
 * root (the only RPC slurm-pin makes), and keeps it in
 * RUN_DIR/jobs/JOB.NODE, root's and private; every step of the job reads
 * that file in slurmstepd as root, before privileges are dropped; the
 * epilog removes it. So a busy slurmctld never fails a step whose decision
 * is on the node, and no hook calls slurmctld with privileges dropped
 * (Slurm 24.11 ends such a call in fatal()).
 */
#ifndef SLURM_PIN_JOB_DECISION_H
#define SLURM_PIN_JOB_DECISION_H

#include <stddef.h>
#include <stdint.h>

/* Prolog (root): fetches the job's decision and keeps it for its steps.
 * Never fails the prolog (that would drain the node): a problem is logged
 * and the steps ask slurmctld themselves. */
void job_decision_fetch(const char *run_dir, uint32_t job, const char *node);

/* Epilog (root): forgets the job's decision and any data its steps left. */
void job_decision_forget(const char *run_dir, uint32_t job, const char *node);

/* A step (slurmstepd, root): the decision text ("" when the policy decided
 * nothing) from the node's file, or, when the prolog left none, with one
 * RPC. -1 with a one-line message when it cannot be known. */
int job_decision_read(const char *run_dir, uint32_t job, const char *node, char *out, size_t len, char *err,
                      size_t errlen);

/* This node's name as slurmd knows it (several slurmd may share a host),
 * as a safe file-name part; NULL when it has none. */
const char *job_decision_node(void);

#endif
