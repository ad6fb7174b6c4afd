/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two OpenMP regions that share in different pairs (for 8 threads: region 1
 * (0,4)(1,5)(2,6)(3,7), region 2 (0,1)(2,3)(4,5)(6,7)), as the profiler's
 * omp_two_regions, reporting in the last round where every thread ran in
 * every region:  region R thread T cpu C mask LIST
 *   omp_phases [ROUNDS] [KIB_PER_BLOCK]
 */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_mask.h"

static long *blocks;
static size_t words = 512;

static void share(int block, int half) {
  long *b = blocks + (size_t)block * words, sum = 0;
  for (size_t i = half * words / 2; i < (half + 1) * words / 2; ++i) b[i] += (long)i;
#pragma omp barrier
  for (size_t i = 0; i < words; ++i) sum += b[i];
  if (sum == 42) printf("(unlikely)\n");
}

static void report(int region) {
  char mask[512];
  own_cpu_mask(mask, sizeof mask);
#pragma omp critical
  printf("region %d thread %d cpu %d mask %s\n", region, omp_get_thread_num(), sched_getcpu(), mask);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  if (argc > 2) words = (size_t)atol(argv[2]) * 1024 / sizeof(long);
  int n = omp_get_max_threads();
  blocks = calloc((size_t)n * words + 8, sizeof(long));
  for (int r = 0; r < rounds; ++r) {
    int last = r == rounds - 1;
#pragma omp parallel
    { /* region 1: thread t with t + n/2 */
      int t = omp_get_thread_num(), half = n / 2 > 0 ? n / 2 : 1;
      share(t % half, t / half);
      if (last) report(1);
    }
#pragma omp parallel
    { /* region 2: thread t with t ^ 1 */
      int t = omp_get_thread_num();
      share(n / 2 + t / 2, t % 2);
      if (last) report(2);
    }
  }
  return 0;
}
