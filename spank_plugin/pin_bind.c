/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "pin_bind.h"

#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pin_env.h"

#define MAX_CPUS 65536

static int fill_set(const char *cpulist, cpu_set_t *set, size_t size, char *err, size_t len) {
  static int cpus[MAX_CPUS];
  int n = pin_expand_cpulist(cpulist, cpus, MAX_CPUS);
  if (n <= 0) {
    snprintf(err, len, "internal: bad CPU list '%s'", cpulist);
    return -1;
  }
  CPU_ZERO_S(size, set);
  for (int i = 0; i < n; ++i) {
    if ((size_t)cpus[i] >= size * 8) {
      snprintf(err, len, "CPU %d is not on this node: the topology does not describe it", cpus[i]);
      return -1;
    }
    CPU_SET_S(cpus[i], size, set);
  }
  return 0;
}

int pin_current_cpus(char *buf, size_t len) {
  cpu_set_t *set = CPU_ALLOC(MAX_CPUS);
  size_t size = CPU_ALLOC_SIZE(MAX_CPUS), pos = 0;
  int rc = sched_getaffinity(0, size, set);
  buf[0] = '\0';
  for (int c = 0; rc == 0 && c < MAX_CPUS; ++c) {
    if (!CPU_ISSET_S(c, size, set)) continue;
    int end = c;
    while (end + 1 < MAX_CPUS && CPU_ISSET_S(end + 1, size, set)) ++end;
    int w = end > c ? snprintf(buf + pos, len - pos, "%s%d-%d", pos ? "," : "", c, end)
                    : snprintf(buf + pos, len - pos, "%s%d", pos ? "," : "", c);
    if (w < 0 || (size_t)w >= len - pos) {
      rc = -1;
      break;
    }
    pos += (size_t)w;
    c = end;
  }
  CPU_FREE(set);
  return rc;
}

int pin_bind_cpus(const char *cpulist, char *err, size_t len) {
  size_t size = CPU_ALLOC_SIZE(MAX_CPUS);
  cpu_set_t *want = CPU_ALLOC(MAX_CPUS), *got = CPU_ALLOC(MAX_CPUS);
  int rc = fill_set(cpulist, want, size, err, len);
  if (rc == 0 && sched_setaffinity(0, size, want) != 0) {
    snprintf(err, len, "cannot bind to CPUs %s: %s (they are outside this step's allocation or node)",
             cpulist, strerror(errno));
    rc = -1;
  }
  /* The kernel silently drops CPUs outside the cgroup: read the mask back. */
  if (rc == 0 && (sched_getaffinity(0, size, got) != 0 || !CPU_EQUAL_S(size, want, got))) {
    char now[256];
    if (pin_current_cpus(now, sizeof now) != 0) strcpy(now, "?");
    snprintf(err, len, "asked for CPUs %s but the kernel allows only %s: they are outside this step's allocation",
             cpulist, now);
    rc = -1;
  }
  CPU_FREE(want);
  CPU_FREE(got);
  return rc;
}

int pin_set_mem_policy(const char *policy, const char *cpulist, char *err, size_t len) {
  if (strcmp(policy, "none") == 0) return 0;
  if (numa_available() < 0) {
    snprintf(err, len, "--pin-mem=%s: this kernel has no NUMA support (use --pin-mem=none)", policy);
    return -1;
  }
  if (strcmp(policy, "local") == 0) {
    numa_set_localalloc();
    return 0;
  }
  /* interleave: over the NUMA nodes the task's CPUs belong to. */
  static int cpus[MAX_CPUS];
  int n = pin_expand_cpulist(cpulist, cpus, MAX_CPUS);
  struct bitmask *nodes = numa_allocate_nodemask();
  for (int i = 0; i < n; ++i) {
    int node = numa_node_of_cpu(cpus[i]);
    if (node >= 0) numa_bitmask_setbit(nodes, (unsigned)node);
  }
  if (numa_bitmask_weight(nodes) == 0) {
    numa_bitmask_free(nodes);
    snprintf(err, len, "--pin-mem=interleave: no NUMA node holds CPUs %s", cpulist);
    return -1;
  }
  numa_set_interleave_mask(nodes);
  numa_bitmask_free(nodes);
  return 0;
}
