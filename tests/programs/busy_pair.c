/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pthread program of 4 threads where the first two do all the work: the
 * main thread and thread 1 each run the same fixed amount of arithmetic,
 * threads 2 and 3 sleep until they are done. Placed compact on 2 CPUs the
 * busy pair shares CPU 0 and takes twice as long as unpinned or scatter:
 * the application whose best placement tests/bats/autopilot.bats learns.
 *   busy_pair SECONDS   (the work one thread alone does in about SECONDS)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile int done;
static long iterations;
static volatile double sink; /* the work's result, kept: no compiler drops it */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static double spin(long n) {
  double x = 1.0;
  for (long i = 0; i < n; ++i) x = x * 0.999999 + 1e-7;
  sink = x;
  return x;
}

static void *busy(void *arg) {
  (void)arg;
  return (void *)(long)(spin(iterations) > 0);
}

static void *idle(void *arg) {
  (void)arg;
  while (!done) usleep(2000);
  return NULL;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  if (!(seconds > 0 && seconds < 3600)) {
    fprintf(stderr, "usage: busy_pair SECONDS\n");
    return 2;
  }
  /* The work: what this thread does in 0.1 s alone, scaled; calibrated
   * before any other thread exists, so co-located threads do not shrink it. */
  long probe = 1000000;
  double t0 = now(), took;
  spin(probe);
  while ((took = now() - t0) < 0.1 && probe < (1L << 40)) {
    probe *= 2;
    t0 = now();
    spin(probe);
  }
  iterations = (long)(probe * seconds / took);
  pthread_t t[3];
  pthread_create(&t[0], NULL, busy, NULL);
  pthread_create(&t[1], NULL, idle, NULL);
  pthread_create(&t[2], NULL, idle, NULL);
  double start = now();
  busy(NULL);
  pthread_join(t[0], NULL);
  done = 1;
  pthread_join(t[1], NULL);
  pthread_join(t[2], NULL);
  printf("busy_pair: %.2f s\n", now() - start);
  return 0;
}
