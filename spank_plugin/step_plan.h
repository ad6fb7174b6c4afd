/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The step's plan on this node: what the placing helper (placing_helper.h)
 * computed with the engine, as the tasks need it when they start: each
 * local task's CPUs, memory policy, environment, task data and verbose
 * line, and the step's notes and placement-cache entry. slurmstepd keeps
 * only this; the engine never loads into it, so its tasks fork from a
 * small process and bind with libc alone (process_binding.h).
 *
 * On the wire (helper to slurmstepd, one pipe) a plan is a sequence of
 * fields, each a 4-byte length, its bytes and a NUL; the reader checks
 * every length against what it was sent and points into its one buffer.
 */
#ifndef SLURM_PIN_STEP_PLAN_H
#define SLURM_PIN_STEP_PLAN_H

#include <stddef.h>

#include "slurm_pin_frontend.h"

/* One variable of a task's environment: the engine's rule for it
 * (SP_ENV_SET, SP_ENV_KEEP, SP_ENV_APPEND_WORD, SP_ENV_UNSET) and value. */
struct plan_env {
  const char *name, *value;
  int action;
};

struct task_plan {
  const char *cpus;   /* "0-3": the task's CPUs */
  const char *mem;    /* sp_get_task_mem_policy's text */
  const char *line;   /* sp_describe_task's text ("" unless asked for) */
  const char *data;   /* sp_get_task_data's, data_len bytes (0: none) */
  size_t data_len;
  struct plan_env *env; /* env_count of them */
};

struct step_plan {
  int ntasks, env_count, nnotes;
  int cached;                 /* the placement came from the node's cache */
  const char **notes;         /* the engine's notes for the step */
  struct task_plan *tasks;
  const char *cache_name;     /* the placement-cache entry to keep ("": none) */
  const char *cache_data;
  size_t cache_size;
  char *wire;                 /* owns every string above */
  void *arrays;               /* owns notes, tasks and their env */
};

/* A growing buffer the helper writes a plan (and what else it reports)
 * into. Every put returns 0, or -1 when out of memory. */
struct plan_writer {
  char *data;
  size_t size, cap;
};
int plan_put(struct plan_writer *w, const void *bytes, size_t n);
int plan_put_text(struct plan_writer *w, const char *text);
int plan_put_int(struct plan_writer *w, long long value);

/* The plan of a computed placement, with each task's line
 * (sp_describe_task) when `lines` (verbose, dry run); for a dry run only
 * those (no binding, no environment: a dry run may describe a machine
 * larger than this one). 0, or -1 with sp_error(p) set ("" when out of
 * memory). */
int step_plan_encode(sp_placement_t *p, int dryrun, int lines, struct plan_writer *w);
/* Task `task`'s CPUs of the computed placement `placement` as a list
 * ("0-3,8") in buf[len]: the length needed, or -1 (no such task). The
 * plan's CPUs and SLURM_CPU_BIND's (slurm_cpu_bind_list's callback). */
int step_plan_task_cpus(const void *placement, int task, char *buf, size_t len);

/* Reading fields back from `data` (size bytes): each get returns NULL (or
 * -1) once the data is short or malformed, and keeps returning it. */
struct plan_reader {
  char *data;
  size_t size, at;
  int bad;
};
const char *plan_get(struct plan_reader *r, size_t *n);
long long plan_get_int(struct plan_reader *r);

/* Reads the plan step_plan_encode wrote, from the reader's position: 0, or
 * -1 when malformed or out of memory. The plan's strings point into the
 * reader's buffer: the caller keeps it as long as the plan (plan->wire,
 * freed with it, is the caller's to set). */
int step_plan_decode(struct plan_reader *r, struct step_plan *plan);
void step_plan_free(struct step_plan *plan);

/* A variable's value for a task from its rule and current value (NULL:
 * unset), as the engine's sp_get_env_value gives it, into out: its length,
 * SP_ENV_UNSET, or -1 when out is too small. */
int plan_env_value(const struct plan_env *e, const char *current, char *out, size_t len);

#endif
