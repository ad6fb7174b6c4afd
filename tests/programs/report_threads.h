/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For the test programs: every OpenMP thread, once all have started (so
 * that all are live at once), prints "PREFIX thread T cpu C mask LIST". */
#ifndef SLURM_PIN_TEST_REPORT_THREADS_H
#define SLURM_PIN_TEST_REPORT_THREADS_H

#include <omp.h>
#include <sched.h>
#include <stdio.h>

#include "cpu_mask.h"

static void report_threads(const char *prefix) {
  int started = 0;
#pragma omp parallel
  {
    int seen;
#pragma omp atomic
    started++;
    do {
#pragma omp atomic read
      seen = started;
    } while (seen < omp_get_num_threads());
    char mask[4096];
    own_cpu_mask(mask, sizeof mask);
    int cpu = sched_getcpu();
#pragma omp critical
    {
      printf("%s thread %d cpu %d mask %s\n", prefix, omp_get_thread_num(), cpu, mask);
      fflush(stdout);
    }
  }
}

#endif
