/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Accesses by one site on both sides of region changes, for the profiler's
 * exactness test: the Valgrind tool holds a site's counts for a while
 * before they reach its table, and they count in the region they were made
 * in, a waiting thread's too while another thread changes the region.
 * Every access reads the 8 lines of one 512-byte block (one of the tool's
 * blocks), through one instruction (read_lines).
 *   main (thread 0): region "first" 10 reads of each line, "second" 20,
 *                    then serial code 30
 *   helper (thread 1): "first" 5 reads of each line, then it waits while
 *                    main changes the region; "second" 7
 * Prints the number (address / 64) of the first line.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "slurm_pin/regions.h"

static _Alignas(512) uint64_t block[64];
static volatile uint64_t sink; /* keeps every load live */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int step; /* 1: the helper read in "first"; 2: main is in "second" */

static __attribute__((noinline)) void read_lines(int times) {
  volatile uint64_t *b = block;
  uint64_t sum = 0;
  for (int t = 0; t < times; ++t)
    for (int line = 0; line < 8; ++line) sum += b[line * 8];
  sink = sum;
}

static void wait_for(int want) {
  pthread_mutex_lock(&lock);
  while (step < want) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
}

static void advance(int to) {
  pthread_mutex_lock(&lock);
  step = to;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}

static void *helper(void *unused) {
  (void)unused;
  read_lines(5);
  advance(1);
  wait_for(2);
  read_lines(7);
  return NULL;
}

int main(void) {
  pthread_t t;
  SLURM_PIN_REGION_BEGIN_NAME("first");
  read_lines(10);
  pthread_create(&t, NULL, helper, NULL);
  wait_for(1);
  SLURM_PIN_REGION_END();
  SLURM_PIN_REGION_BEGIN_NAME("second");
  read_lines(20);
  advance(2);
  pthread_join(t, NULL);
  SLURM_PIN_REGION_END();
  read_lines(30);
  printf("%lu\n", (unsigned long)((uintptr_t)block / 64));
  return 0;
}
