/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reports where a pthread program's threads run, for the tests:
 *   thread I cpu C mask LIST      (I: creation order, the main thread 0)
 *   pthread_report [THREADS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_mask.h"

static int threads = 4;
static int started;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void report(long i) {
  __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
  while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < __atomic_load_n(&threads, __ATOMIC_SEQ_CST)) sched_yield();
  char mask[1024];
  own_cpu_mask(mask, sizeof mask);
  pthread_mutex_lock(&print_lock);
  printf("thread %ld cpu %d mask %s\n", i, sched_getcpu(), mask);
  fflush(stdout);
  pthread_mutex_unlock(&print_lock);
}

static void *run(void *arg) {
  report((long)arg);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) threads = atoi(argv[1]);
  pthread_t th[256];
  int made = 0;
  for (long i = 1; i < threads && i < 256; ++i)
    if (pthread_create(&th[made], NULL, run, (void *)i) == 0) ++made;
    else fprintf(stderr, "pthread_report: thread %ld not created\n", i);
  __atomic_store_n(&threads, made + 1, __ATOMIC_SEQ_CST); /* those that exist */
  report(0);
  for (int i = 0; i < made; ++i) pthread_join(th[i], NULL);
  return 0;
}
