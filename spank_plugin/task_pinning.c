/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurmstepd, in each task's process just before exec, as the user: the
 * task bound as the step's plan says with libc alone (process_binding.h),
 * its environment set, its thread library's data handed over; or, for a
 * launcher's daemon, what its ranks need to place themselves
 * (task_pinning.h). A failure is the step's (step_fail), reported by
 * task_init.
 */
#define _GNU_SOURCE
#include "task_pinning.h"

#include <errno.h>
#include <slurm/slurm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pin_components.h"
#include "placement_cache.h"
#include "preload_list.h"
#include "process_binding.h"
#include "slurm_binding_env.h"
#include "stderr_line.h"
#include "task_env.h"
#include "task_file.h"

/* Which task this is; the engine holds everything else. */
struct task_view {
  int task, rank;
  char node[256];
};

static int read_task(struct pin_step *s, spank_t sp, struct task_view *v) {
  uint32_t rank = 0;
  if (spank_get_item(sp, S_TASK_ID, &v->task) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS)
    return step_fail(s, "cannot read the task id");
  v->rank = (int)rank;
  /* In a heterogeneous job the item counts within the component; the
   * task's SLURM_PROCID, set by slurmstepd, is the job-wide rank. */
  char procid[32];
  if (spank_getenv(sp, "SLURM_PROCID", procid, sizeof procid) == ESPANK_SUCCESS &&
      strspn(procid, "0123456789") == strlen(procid) && procid[0] && strlen(procid) < 10)
    v->rank = atoi(procid);
  if (spank_getenv(sp, "SLURMD_NODENAME", v->node, sizeof v->node) != ESPANK_SUCCESS)
    gethostname(v->node, sizeof v->node);
  return 0;
}

static void say_note(const char *run, const char *node, const char *note) {
  if (note && note[0]) stderr_line("slurm-pin: %s%s: note: %s\n", run, node, note);
}

/* The task's line; the node's first task adds what the engine noted of the
 * whole step there (tasks of different sizes, threads sharing CPUs), and
 * the plugin's own note (note_text). */
static void describe(struct pin_step *s, const struct task_plan *t, const struct task_view *v) {
  const char *run = s->request.dryrun ? "dry run: " : "";
  stderr_line("slurm-pin: %s%s task %d (rank %d): %s\n", run, v->node, v->task, v->rank, t->line);
  if (v->task != 0) return;
  for (int i = 0; i < s->plan.nnotes; ++i) say_note(run, v->node, s->plan.notes[i]);
  say_note(run, v->node, s->note_text);
  say_note(run, v->node, s->env_note);
}

static int spank_set(void *sp, const char *name, const char *value) {
  return spank_setenv((spank_t)sp, name, value, 1) == ESPANK_SUCCESS ? 0 : -1;
}

/* One variable of the task's plan, from its current value in the task. */
static int export_variable(struct pin_step *s, spank_t sp, const struct plan_env *e) {
  char current[LIST_LEN], value[LIST_LEN + 8192];
  int got = spank_getenv(sp, e->name, current, sizeof current);
  if (got != ESPANK_SUCCESS && got != ESPANK_ENV_NOEXIST) {
    char m[ERR_LEN];
    snprintf(m, sizeof m, "%s is too long to extend", e->name);
    return step_fail(s, m);
  }
  const char *known = got == ESPANK_SUCCESS ? current : NULL;
  int n = e->action == SP_ENV_SET ? 0 : plan_env_value(e, known, value, sizeof value);
  if (n == SP_ENV_UNSET)
    return spank_unsetenv(sp, e->name) == ESPANK_SUCCESS ? 0 : step_fail(s, "cannot set the task's environment");
  if (n < 0) return step_fail(s, "the task's environment is too long");
  const char *text = e->action == SP_ENV_SET ? e->value : value; /* a value of any length, as the engine made it */
  return spank_setenv(sp, e->name, text, 1) == ESPANK_SUCCESS ? 0 : step_fail(s, "cannot set the task's environment");
}

/* The task's environment as the plan has it; then what only Slurm's tasks
 * are told: SLURM_CPU_BIND* saying what slurm-pin's binding is (Slurm's
 * said what its own was, which this replaces; nested launchers read it),
 * and the policy's decision as read from the node. */
static int export_env(struct pin_step *s, spank_t sp, const struct task_plan *t) {
  for (int i = 0; i < s->plan.env_count; ++i)
    if (export_variable(s, sp, &t->env[i]) != 0) return -1;
  int rc = s->policy_text[0] ? spank_setenv(sp, SP_ENV_POLICY, s->policy_text, 1) : spank_unsetenv(sp, SP_ENV_POLICY);
  if (rc != ESPANK_SUCCESS || slurm_cpu_bind_export(s->cpu_bind_list, spank_set, sp) != 0)
    return step_fail(s, "cannot set the task's environment");
  return 0;
}

/* The component options are srun's message to slurmstepd: the program
 * does not see them (a nested srun would take them for its own). */
static void drop_component_options(spank_t sp) {
  for (int k = 0, n = het_size(sp); k < n; ++k) {
    char name[64];
    snprintf(name, sizeof name, PIN_COMPONENT_ENV "%d", k);
    spank_unsetenv(sp, name);
  }
}

/* The step's placement, kept for the node's next steps with the same
 * inputs (placement_cache.h): root, once per step and node (the first local
 * task), dry runs too. A failure costs only the next step's time. */
void task_keep_placement(struct pin_step *s) {
  char err[ERR_LEN];
  if (s->placements_dir[0] && placement_cache_store(s->placements_dir, s->plan.cache_name, s->plan.cache_data,
                                                    s->plan.cache_size, s->config.placement_cache, err, sizeof err) != 0)
    slurm_info("slurm-pin: %s", err);
}

/* What the task's thread library reads and its environment cannot hold
 * (the task file, common/task_env.h): in an anonymous file the task
 * inherits (common/task_file.h), made here, as the user, in the task's own
 * process: nothing root writes, nothing another user can read, nothing
 * left when the task ends. */
static int export_task_file(struct pin_step *s, spank_t sp, const struct task_plan *t) {
  if (t->data_len == 0) return 0; /* the task needs none */
  char path[64], m[ERR_LEN];
  if (task_file_create(t->data, t->data_len, path, sizeof path) != 0) {
    snprintf(m, sizeof m, "cannot keep the task's places for its thread library: %s", strerror(errno));
    return step_fail(s, m);
  }
  if (spank_setenv(sp, SP_ENV_TASK_FILE, path, 1) != ESPANK_SUCCESS) return step_fail(s, "cannot set the task's environment");
  return 0;
}

/* Binding variables the task inherited (from a batch script, a launcher,
 * the user) that describe no binding of this task: removed, so that what
 * the task sees is what slurm-pin did, or nothing. */
void task_drop_inherited_binding(spank_t sp) {
  static const char *const names[] = SP_ENV_BINDING_NAMES;
  char preload[LIST_LEN], kept[LIST_LEN], external[sizeof SP_EXTERNAL_LAUNCHER_MARK];
  for (const char *const *n = names; *n; ++n) spank_unsetenv(sp, *n);
  /* Asked for this step's srun by the runtime (task_env.h): a daemon's tasks,
   * and the srun steps they might start, are no external launchers. */
  if (spank_getenv(sp, SP_ENV_EXTERNAL_LAUNCHER, external, sizeof external) == ESPANK_SUCCESS &&
      strcmp(external, SP_EXTERNAL_LAUNCHER_MARK) == 0)
    spank_unsetenv(sp, SP_ENV_EXTERNAL_LAUNCHER);
  /* The thread runtime a batch script or a daemon had loaded: the engine's
   * environment adds it back when this task's binding needs it. */
  if (spank_getenv(sp, "LD_PRELOAD", preload, sizeof preload) == ESPANK_SUCCESS &&
      preload_without_runtime(preload, kept, sizeof kept) == 1) {
    if (kept[0]) spank_setenv(sp, "LD_PRELOAD", kept, 1);
    else spank_unsetenv(sp, "LD_PRELOAD");
  }
}

/* A launcher's daemon (or batch script): left unbound, with what its ranks
 * need to place themselves. */
static int start_launcher(struct pin_step *s, spank_t sp, struct task_view *v) {
  char preload[LIST_LEN], value[LIST_LEN + PATH_MAX];
  if (read_task(s, sp, v) != 0) return -1;
  int rc = spank_getenv(sp, "LD_PRELOAD", preload, sizeof preload);
  if (rc == ESPANK_SUCCESS && preload[0]) snprintf(value, sizeof value, "%s %s", preload, s->config.threads_lib);
  else snprintf(value, sizeof value, "%s", s->config.threads_lib);
  if ((rc != ESPANK_SUCCESS && rc != ESPANK_ENV_NOEXIST) || spank_setenv(sp, "LD_PRELOAD", value, 1) ||
      spank_setenv(sp, SP_ENV_RANK_OPTIONS, s->launcher.options, 1) ||
      spank_setenv(sp, SP_ENV_NODE_CPUS, s->launcher.node_cpus, 1) ||
      spank_setenv(sp, SP_ENV_RANK_WRAPPER, s->launcher.command, 1))
    return step_fail(s, "cannot set the launcher's environment for its ranks");
  if (s->request.verbose || s->config.verbose || s->request.dryrun)
    stderr_line("slurm-pin: %s task %d (rank %d): %s, left as Slurm placed it; its ranks are placed by local "
            "rank on CPUs %s (strategy %s)\n", v->node, v->task, v->rank, s->launcher.name, s->launcher.node_cpus,
            pin_effective_strategy(&s->config, &s->request, &s->policy));
  return 0;
}

/* The task bound as its plan says, with libc alone (process_binding.h). */
static int pin_task(struct pin_step *s, spank_t sp, struct task_view *v) {
  char err[ERR_LEN];
  if (read_task(s, sp, v) != 0) return -1;
  if (v->task < 0 || v->task >= s->plan.ntasks) return step_fail(s, "this task is not in the step's placement");
  const struct task_plan *t = &s->plan.tasks[v->task];
  drop_component_options(sp);
  if (s->request.dryrun) return describe(s, t, v), 0;
  if (process_bind_cpus(t->cpus, err, sizeof err) != 0 || process_set_mem_policy(t->mem, err, sizeof err) != 0)
    return step_fail(s, err);
  if (export_env(s, sp, t) != 0 || export_task_file(s, sp, t) != 0) return -1;
  if (s->request.verbose || s->config.verbose) {
    describe(s, t, v);
    spank_setenv(sp, SP_ENV_VERBOSE, "1", 1); /* the runtime's own note, when the program moves its threads */
  }
  return 0;
}

void task_pin(struct pin_step *s, spank_t sp) {
  struct task_view view;
  if (s->launcher.on) start_launcher(s, sp, &view);
  else pin_task(s, sp, &view);
}
