/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pthread program of 4 threads where 2 do all the work, as pigz's
 * compressing threads beside its reader and writer: the main thread and
 * thread 3 mostly wait; threads 1 and 2 each sweep their own half of a
 * buffer, and read a few lines of the other's half every sweep (so they
 * share more with each other than with anyone, and a sharing-only placement
 * pairs them on one core, while the work is all in their own halves).
 * Prints its own run time.
 *   two_busy [ROUNDS]     (default 6000)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { HALF = 1 << 18 }; /* 256 Ki doubles each: 2 MiB, in each core's L2 or near it */

static double *buffer;
static int rounds = 6000;
static volatile int done;

static void *busy(void *arg) {
  long me = (long)arg;
  double *mine = buffer + (me - 1) * HALF, *other = buffer + (2 - me) * HALF, sum = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < HALF; ++i) mine[i] = mine[i] * 0.999 + 1.0;
    for (int i = 0; i < HALF; i += 4096) sum += other[i]; /* a little of the other's half */
  }
  return (void *)(long)(sum > 0);
}

static void *idle(void *arg) {
  (void)arg;
  while (!done) usleep(1000);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  buffer = calloc(2 * HALF, sizeof *buffer);
  if (!buffer) return 1;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  pthread_t t[3];
  pthread_create(&t[0], NULL, busy, (void *)1L);
  pthread_create(&t[1], NULL, busy, (void *)2L);
  pthread_create(&t[2], NULL, idle, NULL);
  pthread_join(t[0], NULL);
  pthread_join(t[1], NULL);
  done = 1;
  pthread_join(t[2], NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("seconds %.3f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
  free(buffer);
  return 0;
}
