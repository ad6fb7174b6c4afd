/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two producer/consumer pairs (seed 002 section 2): thread 0 (main) fills
 * buffer A and thread 2 reads it; thread 1 fills buffer B and thread 3 reads
 * it. Threads are created in order 1, 2, 3, so a profiler that numbers
 * threads by creation must find the pairs (0,2) and (1,3).
 *   producer_consumer [ROUNDS] [KIB]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int rounds = 20;
static size_t words = 8192; /* 64 KiB of longs per buffer */
static long *buffer[2];
static long sums[4];
static pthread_barrier_t barrier;

static void *work(void *arg) {
  long t = (long)arg;
  long *buf = buffer[t % 2];
  int producer = t < 2;
  for (int r = 0; r < rounds; ++r) {
    if (producer)
      for (size_t i = 0; i < words; ++i) buf[i] = (long)i * r + t;
    pthread_barrier_wait(&barrier);
    if (!producer)
      for (size_t i = 0; i < words; ++i) sums[t] += buf[i];
    pthread_barrier_wait(&barrier);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  if (argc > 2) words = (size_t)atol(argv[2]) * 1024 / sizeof(long);
  for (int b = 0; b < 2; ++b) buffer[b] = aligned_alloc(64, words * sizeof(long));
  pthread_barrier_init(&barrier, NULL, 4);
  pthread_t th[4];
  for (long t = 1; t < 4; ++t) pthread_create(&th[t], NULL, work, (void *)t);
  work((void *)0);
  for (int t = 1; t < 4; ++t) pthread_join(th[t], NULL);
  printf("sums %ld %ld\n", sums[2], sums[3]);
  return 0;
}
