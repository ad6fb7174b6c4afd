/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reports where an OpenMP program's threads really run, for the tests:
 *   rank R thread T cpu C mask LIST
 *   rank R env NAME=VALUE      (the variables slurm-pin sets)
 *   rank R mempolicy MODE
 *   rank R pages node0=P node1=Q  (with REPORT_TOUCH_MB=N: numa_pages.h)
 * Each thread spins until every thread has started, so all are live at once.
 */
#define _GNU_SOURCE
#include <numaif.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numa_pages.h"
#include "report_threads.h"

static const char *mode_name(int mode) {
  switch (mode) {
    case MPOL_DEFAULT: return "default";
    case MPOL_PREFERRED: return "preferred";
    case MPOL_BIND: return "bind";
    case MPOL_INTERLEAVE: return "interleave";
#ifdef MPOL_LOCAL
    case MPOL_LOCAL: return "local";
#endif
    default: return "other";
  }
}

int main(void) {
  const char *rank = getenv("SLURM_PROCID") ? getenv("SLURM_PROCID") : "0";
  static const char *vars[] = {"OMP_PLACES", "OMP_PROC_BIND", "OMP_NUM_THREADS", "GOMP_CPU_AFFINITY",
                               "KMP_AFFINITY", "SLURM_PIN_STRATEGY", "SLURM_PIN_CPUS", "SLURM_CPU_BIND",
                               "SLURM_CPU_BIND_TYPE", "SLURM_CPU_BIND_LIST", "SLURMD_NODENAME", "SLURM_LOCALID",
                               "SLURM_PIN_THREAD_BINDING", "OMP_WAIT_POLICY", NULL};
  for (const char **v = vars; *v; ++v)
    printf("rank %s env %s=%s\n", rank, *v, getenv(*v) ? getenv(*v) : "");
  int mode = -1;
  get_mempolicy(&mode, NULL, 0, NULL, 0);
  printf("rank %s mempolicy %s\n", rank, mode_name(mode));
  fflush(stdout);
  char prefix[64];
  snprintf(prefix, sizeof prefix, "rank %s", rank);
  report_numa_pages(prefix);
  report_threads(prefix);
  return 0;
}
