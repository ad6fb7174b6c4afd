/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A program that is both OpenMP and plain pthreads, for the tests: an
 * OpenMP team, then a thread of its own started by the main thread.
 *   omp I mask LIST     (each thread of the team)
 *   own mask LIST       (the program's own thread)
 */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <stdio.h>

#include "cpu_mask.h"

static void *own(void *arg) {
  (void)arg;
  char mask[1024];
  own_cpu_mask(mask, sizeof mask);
  printf("own mask %s\n", mask);
  return NULL;
}

int main(void) {
#pragma omp parallel
  {
    char mask[1024];
    own_cpu_mask(mask, sizeof mask);
#pragma omp critical
    printf("omp %d mask %s\n", omp_get_thread_num(), mask);
  }
  pthread_t t;
  if (pthread_create(&t, NULL, own, NULL) != 0) return 1;
  pthread_join(t, NULL);
  return 0;
}
