/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "task_claim.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "task_env.h"

#define CLAIM_NAME "slurm-pin-claim"

static int *word;  /* the shared pid, or NULL: no claim */
static int mine;   /* this process holds it */

/* The inherited descriptor, when it is still the task's claim: a program
 * may have closed it and opened something else under its number. */
static int inherited(void) {
  const char *v = getenv(SP_ENV_CLAIM_FD);
  if (!v || !*v) return -1;
  char *end, link[64], want[] = "/memfd:" CLAIM_NAME;
  long fd = strtol(v, &end, 10);
  if (*end || fd < 0 || fd > INT_MAX) return -1;
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%ld", fd);
  ssize_t n = readlink(path, link, sizeof link - 1);
  if (n < 0) return -1;
  link[n] = '\0';
  return strncmp(link, want, strlen(want)) == 0 ? (int)fd : -1;
}

/* A new claim, for this process and those it starts (not close-on-exec). */
static int created(void) {
  int fd = memfd_create(CLAIM_NAME, 0);
  if (fd < 0) return -1;
  char v[16];
  snprintf(v, sizeof v, "%d", fd);
  if (ftruncate(fd, sizeof(int)) != 0 || setenv(SP_ENV_CLAIM_FD, v, 1) != 0) return close(fd), -1;
  return fd;
}

int task_claim_open(void) {
  int fd = getenv(SP_ENV_CLAIM_FD) ? inherited() : created();
  if (fd < 0) return 0;
  void *p = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return 0;
  word = p;
  mine = __atomic_load_n(word, __ATOMIC_ACQUIRE) == (int)getpid();
  return mine;
}

static int alive(int pid) { return kill(pid, 0) == 0 || errno == EPERM; }

int task_claim_take(void) {
  if (mine) return 1;
  if (!word) return 0;
  int me = (int)getpid(), held = __atomic_load_n(word, __ATOMIC_ACQUIRE);
  for (;;) {
    if (held == me) return mine = 1;
    if (held > 0 && alive(held)) return 0;
    if (__atomic_compare_exchange_n(word, &held, me, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return mine = 1;
  }
}

void task_claim_forked(void) { mine = 0; }
