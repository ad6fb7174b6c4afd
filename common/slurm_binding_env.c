/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE /* CPU_*_S */
#include "slurm_binding_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_set_text.h"

const char *const slurm_gpu_list_names[] = {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS", NULL};

const char *slurm_gpu_list_getenv(void) {
  for (const char *const *name = slurm_gpu_list_names; *name; ++name) {
    const char *value = getenv(*name);
    if (value && *value) return value;
  }
  return NULL;
}

/* Writes `set` at out as "0x..." (no leading zeros); returns the end. */
static char *hex_mask(char *out, const struct cpu_place *set) {
  long top = (long)set->size * 8 - 1;
  while (top > 0 && !CPU_ISSET_S((size_t)top, set->size, set->set)) --top;
  out += sprintf(out, "0x");
  for (long nibble = top / 4; nibble >= 0; --nibble) {
    unsigned v = 0;
    for (int b = 3; b >= 0; --b) v = v << 1 | (CPU_ISSET_S((size_t)(nibble * 4 + b), set->size, set->set) ? 1u : 0u);
    *out++ = "0123456789abcdef"[v];
  }
  *out = '\0';
  return out;
}

/* A growing text. */
struct text {
  char *p;
  size_t cap, used;
};

/* Makes room for `more` bytes after what `t` holds; 0 or -1. */
static int reserve(struct text *t, size_t more) {
  if (t->used + more <= t->cap) return 0;
  size_t want = 2 * (t->used + more);
  char *grown = realloc(t->p, want);
  if (!grown) return -1;
  t->p = grown, t->cap = want;
  return 0;
}

/* Appends `sep` (unless NUL) and the CPU list list[len] as a mask; 0 or -1
 * when it is malformed or memory runs out. An empty list is no CPU: "0x0". */
static int append_mask(struct text *out, char sep, const char *list, size_t len) {
  struct cpu_place set = {NULL, 0};
  if (len && cpu_place_parse(list, len, &set) != 0) return -1;
  int rc = reserve(out, 1 + 3 + (len ? set.size * 2 : 1) + 1);
  if (rc == 0) {
    char *at = out->p + out->used;
    if (sep) *at++ = sep;
    at = len ? hex_mask(at, &set) : at + sprintf(at, "0x0");
    out->used = (size_t)(at - out->p);
  }
  cpu_place_free(&set);
  return rc;
}

char *slurm_cpu_bind_list(int ntasks, slurm_task_cpus_fn task_cpus, const void *ctx) {
  struct text out = {NULL, 0, 0}, list = {NULL, 0, 0};
  int ok = ntasks > 0;
  for (int t = 0; ok && t < ntasks; ++t) {
    int need = task_cpus(ctx, t, NULL, 0);
    ok = need >= 0 && reserve(&list, (size_t)need + 1) == 0 && task_cpus(ctx, t, list.p, (size_t)need + 1) == need &&
         append_mask(&out, t ? ',' : '\0', list.p, (size_t)need) == 0;
  }
  free(list.p);
  if (!ok) free(out.p), out.p = NULL;
  return out.p;
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
