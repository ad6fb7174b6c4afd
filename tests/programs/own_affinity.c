/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pthread program that binds its own threads (as programs with their own
 * pinning do), for the tests: every thread moves itself to the last CPU
 * it may use, then reports as pthread_report does.
 *   thread I cpu C mask LIST
 *   own_affinity [THREADS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_mask.h"

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static int last_cpu;

static void *run(void *arg) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(last_cpu, &one);
  sched_setaffinity(0, sizeof one, &one);
  char mask[1024];
  own_cpu_mask(mask, sizeof mask);
  pthread_mutex_lock(&print_lock);
  printf("thread %ld cpu %d mask %s\n", (long)arg, sched_getcpu(), mask);
  pthread_mutex_unlock(&print_lock);
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2;
  cpu_set_t set;
  sched_getaffinity(0, sizeof set, &set);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) last_cpu = c;
  pthread_t t[64];
  for (long i = 1; i < n && i < 64; ++i) pthread_create(&t[i], NULL, run, (void *)i);
  for (long i = 1; i < n && i < 64; ++i) pthread_join(t[i], NULL);
  run((void *)0L);
  return 0;
}
