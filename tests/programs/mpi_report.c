/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reports where an MPI (+OpenMP) program's ranks and threads really run,
 * whatever started them, for the tests:
 *   rank R node N thread T cpu C mask LIST
 *   rank R node N env NAME=VALUE      (binding variables, "" when unset)
 *   rank R node N pages node0=P ...   (with REPORT_TOUCH_MB=N: numa_pages.h)
 * The rank is MPI's own (MPI_Comm_rank). Every thread of a rank spins until
 * all have started, and every rank waits for the others (MPI_Barrier)
 * before reporting, so everything is live at once. Built without OpenMP
 * it is a pure MPI program: thread 0 only.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_mask.h"
#include "numa_pages.h"
#ifdef _OPENMP
#include "report_threads.h"
#endif

int main(int argc, char **argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* The node this rank runs on, from its cpuset cgroup (slurm_NODE/...):
   * launchers copy one node's SLURMD_NODENAME into every rank. */
  char node[256] = "?", line[1024];
  FILE *cg = fopen("/proc/self/cgroup", "r");
  while (cg && fgets(line, sizeof line, cg)) {
    char *at = strstr(line, "/slurm_");
    if (at && (strstr(line, ":cpuset:") || strncmp(line, "0::", 3) == 0)) {
      at += 7;
      size_t n = strcspn(at, "/\n");
      snprintf(node, sizeof node, "%.*s", (int)n, at);
      break;
    }
  }
  if (cg) fclose(cg);
  if (node[0] == '?' && getenv("SLURMD_NODENAME")) snprintf(node, sizeof node, "%s", getenv("SLURMD_NODENAME"));
  static const char *vars[] = {"OMP_PLACES", "OMP_PROC_BIND", "OMP_NUM_THREADS", "SLURM_PIN_STRATEGY",
                               "SLURM_PIN_CPUS", "SLURM_PIN_RANK_OPTIONS", "SLURM_PIN_TASK_FILE",
                               "SLURM_CPU_BIND", "LD_PRELOAD", "SLURM_EXTERNAL_LAUNCHER",
                               "SLURM_PIN_THREAD_BINDING", NULL};
  char lines[8192];
  size_t at = 0;
  for (const char **v = vars; *v; ++v)
    at += (size_t)snprintf(lines + at, sizeof lines - at, "rank %d node %s env %s=%s\n", rank, node, *v,
                           getenv(*v) ? getenv(*v) : "");
  MPI_Barrier(MPI_COMM_WORLD);
  fputs(lines, stdout);
  fflush(stdout);
  char prefix[300];
  snprintf(prefix, sizeof prefix, "rank %d node %s", rank, node);
  report_numa_pages(prefix);
#ifdef _OPENMP
  report_threads(prefix);
#else
  char mask[4096];
  own_cpu_mask(mask, sizeof mask);
  printf("rank %d node %s thread 0 cpu %d mask %s\n", rank, node, sched_getcpu(), mask);
#endif
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
