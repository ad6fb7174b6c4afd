/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "process_binding.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu_set_text.h"

/* The kernel's memory policies (linux/mempolicy.h), as libnuma sets them. */
#define PIN_MPOL_INTERLEAVE 3
#define PIN_MPOL_LOCAL 4
/* NUMA node ids accepted: libnuma's default mask (1024 nodes). */
#define MAX_NODES 1024

/* The calling process's CPUs, into a set of `cpus` bits at least: the
 * kernel refuses (EINVAL) a mask shorter than its own, so it doubles. */
static int read_back(struct cpu_place *got, size_t cpus) {
  long conf = sysconf(_SC_NPROCESSORS_CONF);
  size_t n = conf > 0 && (size_t)conf > cpus ? (size_t)conf : cpus;
  for (n = (n + 1023) / 1024 * 1024; n <= (size_t)RT_MAX_CPU + 1; n *= 2) {
    got->set = CPU_ALLOC(n);
    if (!got->set) return -1;
    got->size = CPU_ALLOC_SIZE(n);
    CPU_ZERO_S(got->size, got->set);
    if (sched_getaffinity(0, got->size, got->set) == 0) return 0;
    cpu_place_free(got);
    if (errno != EINVAL) return -1;
  }
  return -1;
}

/* Whether `want` and `got` hold the same CPUs (got is the longer). */
static int same_cpus(const struct cpu_place *want, const struct cpu_place *got) {
  for (size_t c = 0; c < got->size * 8; ++c)
    if ((c < want->size * 8 && CPU_ISSET_S(c, want->size, want->set)) != (CPU_ISSET_S(c, got->size, got->set) != 0))
      return 0;
  return 1;
}

/* The list of the CPUs in `set`, for a message. */
static void list_of(const struct cpu_place *set, char *buf, size_t len) {
  size_t at = 0, bits = set->size * 8;
  buf[0] = '\0';
  for (size_t c = 0; c < bits && at < len; ++c) {
    if (!CPU_ISSET_S(c, set->size, set->set)) continue;
    size_t last = c;
    while (last + 1 < bits && CPU_ISSET_S(last + 1, set->size, set->set)) ++last;
    int n = last > c ? snprintf(buf + at, len - at, "%s%zu-%zu", at ? "," : "", c, last)
                     : snprintf(buf + at, len - at, "%s%zu", at ? "," : "", c);
    at += n > 0 ? (size_t)n : 0;
    c = last;
  }
}

int process_bind_cpus(const char *cpus, char *err, size_t len) {
  struct cpu_place want, got = {0};
  if (cpu_place_parse(cpus, strlen(cpus), &want) != 0)
    return snprintf(err, len, "cannot bind to CPUs '%.200s': not a CPU list", cpus), -1;
  if (sched_setaffinity(0, want.size, want.set) != 0) {
    snprintf(err, len, "cannot bind to CPUs %.900s: %s (they are outside the CPUs this process may use)", cpus,
             strerror(errno));
    return cpu_place_free(&want), -1;
  }
  int rc = 0;
  if (read_back(&got, want.size * 8) != 0) {
    snprintf(err, len, "cannot read this process's CPU affinity: %s", strerror(errno));
    rc = -1;
  } else if (!same_cpus(&want, &got)) {
    char allowed[512];
    list_of(&got, allowed, sizeof allowed);
    snprintf(err, len, "asked for CPUs %.300s but the kernel allows only %s: they are outside the CPUs this process may use",
             cpus, allowed);
    rc = -1;
  }
  cpu_place_free(&want);
  cpu_place_free(&got);
  return rc;
}

/* "interleave 0-1"'s nodes, as the kernel's mask. */
static int node_mask(const char *list, unsigned long *mask, size_t words) {
  struct cpu_place nodes; /* a node list reads as a CPU list */
  if (cpu_place_parse(list, strlen(list), &nodes) != 0) return -1;
  int rc = 0;
  memset(mask, 0, words * sizeof *mask);
  for (size_t n = 0; n < nodes.size * 8; ++n) {
    if (!CPU_ISSET_S(n, nodes.size, nodes.set)) continue;
    if (n >= MAX_NODES) {
      rc = -1;
      break;
    }
    mask[n / (8 * sizeof *mask)] |= 1UL << (n % (8 * sizeof *mask));
  }
  cpu_place_free(&nodes);
  return rc;
}

int process_set_mem_policy(const char *policy, char *err, size_t len) {
  unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long))];
  long rc;
  if (strcmp(policy, "none") == 0) return 0;
  if (strcmp(policy, "local") == 0) {
    rc = syscall(SYS_set_mempolicy, PIN_MPOL_LOCAL, NULL, 0UL);
  } else if (strncmp(policy, "interleave ", 11) == 0) {
    if (node_mask(policy + 11, mask, sizeof mask / sizeof *mask) != 0)
      return snprintf(err, len, "memory policy '%.200s': not a list of NUMA nodes", policy), -1;
    rc = syscall(SYS_set_mempolicy, PIN_MPOL_INTERLEAVE, mask, (unsigned long)MAX_NODES + 1);
  } else {
    return snprintf(err, len, "memory policy '%.200s' is unknown", policy), -1;
  }
  if (rc != 0) return snprintf(err, len, "cannot set memory policy %.200s: %s", policy, strerror(errno)), -1;
  return 0;
}
