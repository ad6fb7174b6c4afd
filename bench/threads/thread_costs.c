/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What slurm-pin's thread library costs, run once without it and once under
 * LD_PRELOAD by bench/threads/run:
 *   create  N  - creating and joining N threads (the shim binds each)
 *   regions N  - entering N tiny OpenMP regions, two alternating ones
 * Prints the time per operation in microseconds.
 */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *nothing(void *arg) { return arg; }

static volatile long sink;

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  long n = atol(argv[2]);
  double start = now();
  if (!strcmp(argv[1], "create")) {
    for (long i = 0; i < n; ++i) {
      pthread_t t;
      pthread_create(&t, NULL, nothing, NULL);
      pthread_join(t, NULL);
    }
  } else {
    for (long i = 0; i < n; ++i) {
#pragma omp parallel
      { sink += omp_get_thread_num(); }  /* region A */
#pragma omp parallel
      { sink -= omp_get_thread_num(); }  /* region B */
    }
    n *= 2;
  }
  printf("%.3f\n", (now() - start) / (double)n * 1e6);
  return 0;
}
