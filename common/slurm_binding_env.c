/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "slurm_binding_env.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CPUs past this are no node's (Slurm's own limit is far lower). */
#define MAX_CPU 65535u

const char *const slurm_gpu_list_names[] = {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS", NULL};

/* A CPU number at *s, advancing past it; -1 when none or too large. */
static long cpu_number(const char **s) {
  long v = -1;
  while (**s >= '0' && **s <= '9') {
    v = (v < 0 ? 0 : v * 10) + (**s - '0');
    ++*s;
    if (v > (long)MAX_CPU) return -1;
  }
  return v;
}

/* The CPUs of `list` as bits (bits[i/8] bit i%8; NULL: none), the highest
 * CPU in *top (-1: none). 0, or -1 when malformed. */
static int list_bits(const char *list, uint8_t *bits, long *top) {
  *top = -1;
  for (const char *s = list; *s;) {
    long first = cpu_number(&s), last = first;
    if (*s == '-') ++s, last = cpu_number(&s);
    if (first < 0 || last < first || (*s && *s != ',')) return -1;
    if (*s == ',') ++s;
    for (long c = first; bits && c <= last; ++c) bits[c / 8] |= (uint8_t)(1u << (c % 8));
    if (last > *top) *top = last;
  }
  return 0;
}

/* Appends `list` as "0x..." (no leading zeros; "0x0" when empty) at out. */
static char *append_mask(char *out, const char *list, uint8_t *bits) {
  long top;
  memset(bits, 0, MAX_CPU / 8 + 1);
  if (list_bits(list, bits, &top) != 0) return NULL;
  out += sprintf(out, "0x");
  if (top < 0) return out + sprintf(out, "0");
  for (long nibble = top / 4; nibble >= 0; --nibble)
    *out++ = "0123456789abcdef"[(bits[nibble / 2] >> (nibble % 2 * 4)) & 0xf];
  *out = '\0';
  return out;
}

char *slurm_cpu_bind_list(const char *const *task_cpus, int ntasks) {
  size_t size = 1; /* each mask "0x" and a hex digit per 4 CPUs up to its highest, then ',' or NUL */
  for (int t = 0; t < ntasks; ++t) {
    long top;
    if (list_bits(task_cpus[t], NULL, &top) != 0) return NULL;
    size += 3 + (size_t)(top < 0 ? 1 : top / 4 + 1);
  }
  char *out = ntasks > 0 ? malloc(size) : NULL, *end = out;
  uint8_t *bits = out ? malloc(MAX_CPU / 8 + 1) : NULL;
  if (!bits) return free(out), NULL;
  for (int t = 0; t < ntasks; ++t) {
    if (t) *end++ = ',';
    end = append_mask(end, task_cpus[t], bits);
  }
  free(bits);
  return out;
}

int slurm_cpu_bind_export(const char *list, slurm_env_setter set, void *ctx) {
  static const char prefix[] = "quiet,mask_cpu:";
  char *bind = malloc(sizeof prefix + strlen(list));
  if (!bind) return -1;
  snprintf(bind, sizeof prefix + strlen(list), "%s%s", prefix, list);
  int rc = set(ctx, "SLURM_CPU_BIND_VERBOSE", "quiet") || set(ctx, "SLURM_CPU_BIND_TYPE", "mask_cpu:") ||
           set(ctx, "SLURM_CPU_BIND_LIST", list) || set(ctx, "SLURM_CPU_BIND", bind);
  free(bind);
  return rc ? -1 : 0;
}
