/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "step_plan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env_action.h"

/* A field is at most this long: a task's data and the cache entry are the
 * largest (an entry is at most 4 MiB). */
#define MAX_FIELD (64u << 20)

int plan_put(struct plan_writer *w, const void *bytes, size_t n) {
  if (n > MAX_FIELD) return -1;
  size_t need = w->size + 4 + n + 1;
  if (need > w->cap) {
    size_t cap = w->cap ? w->cap : 65536;
    while (cap < need) cap *= 2;
    char *more = realloc(w->data, cap);
    if (!more) return -1;
    w->data = more, w->cap = cap;
  }
  uint32_t len = (uint32_t)n;
  memcpy(w->data + w->size, &len, 4);
  if (n) memcpy(w->data + w->size + 4, bytes, n);
  w->data[w->size + 4 + n] = '\0';
  w->size = need;
  return 0;
}

int plan_put_text(struct plan_writer *w, const char *text) {
  return plan_put(w, text ? text : "", text ? strlen(text) : 0);
}

int plan_put_int(struct plan_writer *w, long long value) {
  char text[32];
  snprintf(text, sizeof text, "%lld", value);
  return plan_put_text(w, text);
}

const char *plan_get(struct plan_reader *r, size_t *n) {
  uint32_t len;
  if (r->bad || r->size - r->at < 4) return r->bad = 1, NULL;
  memcpy(&len, r->data + r->at, 4);
  if (r->size - r->at - 4 < (size_t)len + 1 || r->data[r->at + 4 + len] != '\0') return r->bad = 1, NULL;
  const char *field = r->data + r->at + 4;
  r->at += 4 + (size_t)len + 1;
  if (n) *n = len;
  return field;
}

long long plan_get_int(struct plan_reader *r) {
  const char *text = plan_get(r, NULL);
  char *end;
  long long v = text ? strtoll(text, &end, 10) : -1;
  if (!text || end == text || *end) return r->bad = 1, -1;
  return v;
}

/* ---- writing a plan, in the helper -------------------------------------- */

/* An engine text of any length: into `small` when it fits, else a
 * malloc'd copy (*text). Its length, or below 0 (the engine's failure,
 * SP_ENV_UNSET). */
typedef int (*text_fn)(sp_placement_t *p, int task, int i, char *buf, size_t len);

static int put_engine_text(struct plan_writer *w, sp_placement_t *p, text_fn get, int task, int i) {
  char small[8192];
  int n = get(p, task, i, small, sizeof small);
  if (n < 0) return n;
  if ((size_t)n < sizeof small) return plan_put(w, small, (size_t)n);
  char *big = malloc((size_t)n + 1);
  if (!big) return -1;
  int m = get(p, task, i, big, (size_t)n + 1);
  int rc = m < 0 ? m : plan_put(w, big, (size_t)m);
  free(big);
  return rc;
}

int step_plan_task_cpus(const void *placement, int task, char *buf, size_t len) {
  hwloc_const_bitmap_t set = sp_get_task_cpuset(placement, task);
  return set ? hwloc_bitmap_list_snprintf(buf, len, set) : -1;
}

static int cpus_of(sp_placement_t *p, int task, int i, char *buf, size_t len) {
  (void)i;
  return step_plan_task_cpus(p, task, buf, len);
}
static int mem_of(sp_placement_t *p, int task, int i, char *buf, size_t len) {
  (void)i;
  return sp_get_task_mem_policy(p, task, buf, len);
}
static int line_of(sp_placement_t *p, int task, int i, char *buf, size_t len) {
  (void)i;
  return sp_describe_task(p, task, buf, len);
}
static int data_of(sp_placement_t *p, int task, int i, char *buf, size_t len) {
  (void)i;
  return sp_get_task_data(p, task, buf, len);
}
static int env_name_of(sp_placement_t *p, int task, int i, char *buf, size_t len) {
  (void)task;
  return sp_get_env_name(p, i, buf, len);
}
static int env_rule_of(sp_placement_t *p, int task, int i, char *buf, size_t len) {
  return sp_get_env_value(p, task, i, NULL, buf, len);
}
static int note_of(sp_placement_t *p, int task, int i, char *buf, size_t len) {
  (void)task;
  return sp_get_note(p, i, buf, len);
}

static int encode_task(sp_placement_t *p, int dryrun, int lines, int env_count, int t, struct plan_writer *w) {
  if (dryrun)
    return plan_put_text(w, "") || plan_put_text(w, "") || put_engine_text(w, p, line_of, t, 0) < 0 ||
                   plan_put_text(w, "")
               ? -1
               : 0;
  if (put_engine_text(w, p, cpus_of, t, 0) < 0 || put_engine_text(w, p, mem_of, t, 0) < 0 ||
      (lines ? put_engine_text(w, p, line_of, t, 0) : plan_put_text(w, "")) < 0 ||
      put_engine_text(w, p, data_of, t, 0) < 0)
    return -1;
  for (int i = 0; i < env_count; ++i) {
    int action = sp_get_env_action(p, t, i);
    if (action == -1 || plan_put_int(w, action) != 0) return -1;
    if (action == SP_ENV_UNSET ? plan_put_text(w, "") : put_engine_text(w, p, env_rule_of, t, i)) return -1;
  }
  return 0;
}

int step_plan_encode(sp_placement_t *p, int dryrun, int lines, struct plan_writer *w) {
  int ntasks = sp_get_ntasks(p), env_count = dryrun ? 0 : sp_get_env_count(p), nnotes = sp_get_nnotes(p);
  const char *name = NULL, *data = NULL;
  size_t size = 0;
  int cache = sp_get_cache_entry(p, &name, &data, &size);
  if (ntasks < 0 || env_count < 0 || nnotes < 0 || cache < 0) return -1;
  if (plan_put_int(w, ntasks) || plan_put_int(w, env_count) || plan_put_int(w, nnotes) ||
      plan_put_int(w, sp_get_cached(p) == 1) || plan_put_text(w, cache == 1 ? name : "") ||
      plan_put(w, cache == 1 ? data : "", cache == 1 ? size : 0))
    return -1;
  for (int i = 0; i < nnotes; ++i)
    if (put_engine_text(w, p, note_of, 0, i) < 0) return -1;
  for (int i = 0; i < env_count; ++i)
    if (put_engine_text(w, p, env_name_of, 0, i) < 0) return -1;
  for (int t = 0; t < ntasks; ++t)
    if (encode_task(p, dryrun, lines, env_count, t, w) != 0) return -1;
  return 0;
}

/* ---- reading it back, in slurmstepd -------------------------------------- */

/* Counts the plan may have: a node's tasks and the engine's variables. */
#define MAX_TASKS 65536
#define MAX_ENV 256
#define MAX_NOTES 256

static int decode_task(struct plan_reader *r, struct step_plan *plan, const char **names, struct task_plan *t,
                       struct plan_env *env) {
  t->cpus = plan_get(r, NULL);
  t->mem = plan_get(r, NULL);
  t->line = plan_get(r, NULL);
  t->data = plan_get(r, &t->data_len);
  t->env = env;
  for (int i = 0; i < plan->env_count; ++i) {
    env[i].name = names[i];
    env[i].action = (int)plan_get_int(r);
    env[i].value = plan_get(r, NULL);
    if (env[i].action != SP_ENV_SET && env[i].action != SP_ENV_KEEP && env[i].action != SP_ENV_APPEND_WORD &&
        env[i].action != SP_ENV_UNSET)
      r->bad = 1;
  }
  return r->bad ? -1 : 0;
}

int step_plan_decode(struct plan_reader *r, struct step_plan *plan) {
  memset(plan, 0, sizeof *plan);
  plan->ntasks = (int)plan_get_int(r);
  plan->env_count = (int)plan_get_int(r);
  plan->nnotes = (int)plan_get_int(r);
  plan->cached = (int)plan_get_int(r);
  plan->cache_name = plan_get(r, NULL);
  plan->cache_data = plan_get(r, &plan->cache_size);
  if (r->bad || plan->ntasks < 0 || plan->ntasks > MAX_TASKS || plan->env_count < 0 || plan->env_count > MAX_ENV ||
      plan->nnotes < 0 || plan->nnotes > MAX_NOTES)
    return -1;
  /* One allocation for the arrays: notes, names, tasks, every task's env. */
  size_t pointers = (size_t)plan->nnotes + (size_t)plan->env_count;
  size_t bytes = pointers * sizeof(char *) + (size_t)plan->ntasks * sizeof(struct task_plan) +
                 (size_t)plan->ntasks * (size_t)plan->env_count * sizeof(struct plan_env);
  char *arrays = calloc(1, bytes ? bytes : 1);
  if (!arrays) return -1;
  plan->arrays = arrays;
  plan->notes = (const char **)arrays;
  const char **names = plan->notes + plan->nnotes;
  plan->tasks = (struct task_plan *)(names + plan->env_count);
  struct plan_env *env = (struct plan_env *)(plan->tasks + plan->ntasks);
  for (int i = 0; i < plan->nnotes; ++i) plan->notes[i] = plan_get(r, NULL);
  for (int i = 0; i < plan->env_count; ++i) names[i] = plan_get(r, NULL);
  for (int t = 0; t < plan->ntasks && !r->bad; ++t)
    decode_task(r, plan, names, &plan->tasks[t], env + (size_t)t * (size_t)plan->env_count);
  if (r->bad) {
    free(arrays);
    memset(plan, 0, sizeof *plan);
    return -1;
  }
  return 0;
}

void step_plan_free(struct step_plan *plan) {
  free(plan->arrays);
  free(plan->wire);
  memset(plan, 0, sizeof *plan);
}

int plan_env_value(const struct plan_env *e, const char *current, char *out, size_t len) {
  enum env_action a = e->action == SP_ENV_KEEP          ? ENV_KEEP
                      : e->action == SP_ENV_APPEND_WORD ? ENV_APPEND_WORD
                      : e->action == SP_ENV_UNSET       ? ENV_UNSET
                                                        : ENV_SET;
  int n = env_action_value(a, e->value, current, out, len);
  return n == -2 ? SP_ENV_UNSET : n;
}
