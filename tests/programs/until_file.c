/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two threads that keep sharing a buffer until a file appears, so that a
 * test can wait for something the profiler prints while the program runs
 * (a progress line) on a machine of any speed:   until_file PATH
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile long shared[1024];
static const char *stop;

static void *work(void *arg) {
  long id = (long)arg;
  for (long round = 0; access(stop, F_OK) != 0; ++round) {
    for (int i = 0; i < 1024; ++i) shared[i] += id + round;
    usleep(1000);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  stop = argv[1];
  pthread_t t;
  pthread_create(&t, NULL, work, (void *)1);
  work((void *)0);
  pthread_join(t, NULL);
  printf("stopped\n");
  return 0;
}
