/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For the test programs: where the calling thread's new memory lands. With
 * REPORT_TOUCH_MB=N in the environment, N MiB are allocated, touched by
 * the caller and asked the kernel's node of every page (move_pages with no
 * target), printed as "PREFIX pages node0=P node1=Q ..." (nodes that hold
 * none omitted); nothing without it. The task's memory policy decides. */
#ifndef SLURM_PIN_TEST_NUMA_PAGES_H
#define SLURM_PIN_TEST_NUMA_PAGES_H

#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NUMA_PAGES_MAX_NODES 64

static void report_numa_pages(const char *prefix) {
  const char *mb = getenv("REPORT_TOUCH_MB");
  long n = mb ? atol(mb) : 0;
  if (n <= 0 || n > 4096) return;
  size_t page = (size_t)sysconf(_SC_PAGESIZE), size = (size_t)n << 20, count = size / page;
  char *memory = aligned_alloc(page, size);
  void **pages = calloc(count, sizeof *pages);
  int *status = calloc(count, sizeof *status);
  if (!memory || !pages || !status) {
    printf("%s pages error out-of-memory\n", prefix);
    return;
  }
  memset(memory, 1, size); /* first touch: the policy places each page now */
  for (size_t i = 0; i < count; ++i) pages[i] = memory + i * page;
  long on[NUMA_PAGES_MAX_NODES] = {0};
  if (move_pages(0, count, pages, NULL, status, 0) != 0) {
    printf("%s pages error move_pages\n", prefix);
    return;
  }
  for (size_t i = 0; i < count; ++i)
    if (status[i] >= 0 && status[i] < NUMA_PAGES_MAX_NODES) on[status[i]]++;
  char line[2048];
  size_t at = (size_t)snprintf(line, sizeof line, "%s pages", prefix);
  for (int node = 0; node < NUMA_PAGES_MAX_NODES && at < sizeof line; ++node)
    if (on[node]) at += (size_t)snprintf(line + at, sizeof line - at, " node%d=%ld", node, on[node]);
  printf("%s\n", line);
  fflush(stdout);
  free(status);
  free(pages);
  free(memory);
}

#endif
