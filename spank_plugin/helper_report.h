/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the placing helper reports to slurmstepd before the plan
 * (placing_helper.h): its outcome, what it found out about the step (the
 * thread library, whether the step is an MPI launcher's and how its ranks
 * are placed), and what it cost. One table of fields writes and reads it,
 * so the two sides cannot fall out of step.
 */
#ifndef SLURM_PIN_HELPER_REPORT_H
#define SLURM_PIN_HELPER_REPORT_H

#include "step_plan.h"

/* The texts are the writer's, or, read back, point into the reader's
 * buffer ("" when empty, never NULL once read). */
struct helper_report {
  long long rc;                /* 0: placed (or prepared); else the step fails */
  const char *failure;         /* the one line the step fails with, or "" */
  const char *note;            /* the plugin's own note for verbose users */
  const char *threads_lib;     /* the thread library found, or "" */
  long long launcher;          /* 1: the step is an MPI launcher's (launcher_step.h) */
  const char *launcher_name;   /* its daemon's program, or "batch script" */
  const char *launcher_command; /* slurm-pin, which starts each rank */
  const char *launcher_options; /* SLURM_PIN_RANK_OPTIONS */
  const char *launcher_node_cpus; /* the CPUs the node's ranks share */
  const char *cpu_bind_list;   /* SLURM_CPU_BIND_LIST of the step on this node, or "" */
  long long peak_kib;          /* the helper's peak resident memory */
  long long placing_us;        /* its time placing the step */
};

/* 0, or -1 when out of memory. NULL texts are written as "". */
int helper_report_write(const struct helper_report *h, struct plan_writer *w);

/* 0, or -1 when the data is short or malformed (*h then unspecified). */
int helper_report_read(struct plan_reader *r, struct helper_report *h);

#endif
