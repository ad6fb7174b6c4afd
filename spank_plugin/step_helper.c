/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The placing helper's protocol, slurmstepd's side and the helper's
 * (pin_step.h, placing_helper.h): started once the step is known, as the
 * job's user and within the step's memory; it places the step with the
 * engine (step_placing.c) and reports the outcome and the tasks' plan in
 * one message (helper_report.h, step_plan.h), which slurmstepd reads back
 * into the step record in user_init.
 */
#define _GNU_SOURCE
#include "pin_step.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "helper_report.h"
#include "placement_cache.h"

/* Milliseconds since `t0` (CLOCK_MONOTONIC). */
double ms_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* The placing helper's report, in this order: user_init's outcome (0
 * placed, -1 failing, -2 left alone), what it filled in the step record,
 * then the tasks' plan when the step was placed. */
static int report(struct pin_step *s, int rc, struct plan_writer *w) {
  struct rusage self;
  struct helper_report h = {
      .rc = rc,
      .failure = s->failure,
      .note = s->note_text,
      .threads_lib = s->config.threads_lib,
      .launcher = s->launcher.on,
      .launcher_name = s->launcher.name,
      .launcher_command = s->launcher.command,
      .launcher_options = s->launcher.options,
      .launcher_node_cpus = s->launcher.node_cpus,
      .cpu_bind_list = s->cpu_bind_list,
      .peak_kib = getrusage(RUSAGE_SELF, &self) == 0 ? self.ru_maxrss : 0,
      .placing_us = (long long)(ms_since(&s->job.started) * 1000),
  };
  return helper_report_write(&h, w);
}

/* Out of memory in the helper, whose memory is capped by the step's own
 * on this node (helper_memory): the step's size is what to change. */
static void said_out_of_memory(struct pin_step *s) {
  if (!s->job.step_mib || !strstr(s->failure, "out of memory")) return;
  char m[ERR_LEN];
  snprintf(m, sizeof m,
           "placing this step needs more memory than the step has on this node (%llu MiB): give it more "
           "(--mem, --mem-per-cpu) or use a smaller profile",
           s->job.step_mib);
  snprintf(s->failure, sizeof s->failure, "%s", m);
}

/* The helper's work (placing_helper.h): the step placed (place_step) and
 * its plan, each task's line only when someone reads it. Failures are
 * reported, never returned: the step fails with them in task_init. */
static int place_in_helper(void *arg, struct plan_writer *w) {
  struct helper_job *j = arg;
  struct pin_step *s = j->s;
  clock_gettime(CLOCK_MONOTONIC, &j->started);
  int rc = place_step(s, j->sp, j->strategy, j->batch);
  struct plan_writer plan = {0};
  int lines = s->request.dryrun || s->request.verbose || s->config.verbose;
  if (rc == 0 && !s->failure[0] && !s->launcher.on && step_plan_encode(s->placement, s->request.dryrun, lines, &plan) != 0)
    rc = step_fail(s, *sp_error(s->placement) ? sp_error(s->placement) : "out of memory");
  if (s->failure[0]) said_out_of_memory(s);
  int bad = report(s, rc, w) || (rc == 0 && !s->failure[0] && !s->launcher.on && plan_put(w, plan.data, plan.size));
  free(plan.data);
  return bad ? -1 : 0;
}

/* The helper's report read back into the step record: user_init's outcome. */
static int read_report(struct pin_step *s, char *data, size_t size) {
  struct plan_reader r = {data, size, 0, 0};
  struct helper_report h;
  if (helper_report_read(&r, &h) != 0) return free(data), step_fail(s, "the placing helper's report is malformed");
  int rc = (int)h.rc;
  s->helper_peak_kib = (long)h.peak_kib;
  s->helper_ms = (double)h.placing_us / 1000;
  snprintf(s->note_text, sizeof s->note_text, "%s", h.note);
  snprintf(s->config.threads_lib, sizeof s->config.threads_lib, "%s", h.threads_lib);
  s->launcher.on = (int)h.launcher;
  snprintf(s->launcher.name, sizeof s->launcher.name, "%s", h.launcher_name);
  snprintf(s->launcher.command, sizeof s->launcher.command, "%s", h.launcher_command);
  snprintf(s->launcher.options, sizeof s->launcher.options, "%s", h.launcher_options);
  snprintf(s->launcher.node_cpus, sizeof s->launcher.node_cpus, "%s", h.launcher_node_cpus);
  if (h.cpu_bind_list[0] && !(s->cpu_bind_list = strdup(h.cpu_bind_list))) rc = step_fail(s, "out of memory");
  if (h.failure[0]) step_fail(s, h.failure);
  if (rc != 0 || s->failure[0] || s->launcher.on) return free(data), rc;
  size_t n = 0;
  const char *plan = plan_get(&r, &n);
  struct plan_reader inside = {(char *)plan, n, 0, 0};
  if (!plan || step_plan_decode(&inside, &s->plan) != 0) return free(data), step_fail(s, "the placing helper's plan is malformed");
  s->plan.wire = data; /* the plan's strings point into it */
  return 0;
}

/* The most a report may hold: each task's data and environment are a few
 * KiB, the cache entry at most 4 MiB. */
#define MAX_REPORT (256u << 20)

/* What the helper may allocate: the step's memory on this node as Slurm
 * allocated it (else the job's), so that placing counts against what the
 * job was given, as its tasks will; max_memory= above that, and for jobs
 * Slurm gives no memory (no memory in SelectTypeParameters). The helper is
 * gone before the first task starts: it never holds memory they need. */
static void helper_memory(struct pin_step *s, spank_t sp, struct helper_job *j) {
  uint64_t mib = 0;
  if (spank_get_item(sp, S_STEP_ALLOC_MEM, &mib) != ESPANK_SUCCESS || !mib)
    if (spank_get_item(sp, S_JOB_ALLOC_MEM, &mib) != ESPANK_SUCCESS) mib = 0;
  j->memory = s->config.max_memory;
  if (mib && mib < (s->config.max_memory >> 20)) j->memory = (unsigned long long)mib << 20, j->step_mib = mib;
}

/* What user_init does for the step up to the helper: 1 when the helper was
 * started (placing it, or preparing its launcher), 0 when there is nothing
 * to place, -1 when the step fails (failure set). `who`: the job's ids
 * when the caller is root (NULL: its effective ids). */
int start_placing(struct pin_step *s, spank_t sp, const struct helper_identity *who) {
  char err[ERR_LEN];
  s->placing = PLACING_DONE;
  int batch = is_batch_step(sp);
  if (!batch && !is_application_step(sp)) return 0;
  /* A batch script is placed for the ranks an mpirun in it may start
   * itself, when the job asked for a strategy and launchers are on. */
  if (batch && strcmp(s->config.launchers, "none") == 0) return 0;
  if (batch) snprintf(s->launcher.name, sizeof s->launcher.name, "batch script");
  if (use_component_options(s, sp) != 0 || s->failure[0]) return -1;
  const char *strategy = pin_effective_strategy(&s->config, &s->request, &s->policy);
  if (strcmp(strategy, "none") == 0 && batch) return 0;
  if (strcmp(strategy, "none") == 0) return site_allows(s, strategy) != 0 ? -1 : 0;
  if (placement_cache_dir(s->config.run_dir, s->placements_dir, sizeof s->placements_dir) != 0)
    return step_fail(s, "run_dir= is too long");
  s->job = (struct helper_job){s, sp, strategy, batch, {0, 0}, 0, 0};
  helper_memory(s, sp, &s->job);
  /* The engine's own budget, and a margin for loading it. */
  if (placing_helper_start(&s->helper, place_in_helper, &s->job, who, s->config.max_time + 10, s->job.memory, err,
                           sizeof err) != 0)
    return step_fail(s, err);
  s->placing = PLACING_STARTED;
  return 1;
}

/* The helper's result in the step record: user_init's outcome. */
int finish_placing(struct pin_step *s) {
  char err[ERR_LEN], *data = NULL;
  size_t size = 0;
  s->placing = PLACING_DONE;
  if (placing_helper_finish(&s->helper, MAX_REPORT, &data, &size, err, sizeof err) != 0) return step_fail(s, err);
  return read_report(s, data, size);
}

/* In init_post_opt, slurmstepd (root) knows the step: its helper starts
 * there, as the job's user, and places it while slurmstepd sets the step
 * up. Not for steps that may ask for device locality: Slurm sets the GPU
 * variables the helper reads later. Anything missing (or a slurmstepd that
 * is not root, which could not become the user): user_init starts it. */
void start_early(struct pin_step *s, spank_t sp) {
  uid_t uid;
  gid_t gid, *groups = NULL;
  int ngroups = 0;
  if (geteuid() != 0 || strcmp(s->config.gpu, "closest") == 0 || s->request.gpu[0] || het_size(sp) ||
      spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS || spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_SUPPLEMENTARY_GIDS, &groups, &ngroups) != ESPANK_SUCCESS || ngroups < 0)
    return;
  struct helper_identity who = {uid, gid, ngroups, groups};
  if (start_placing(s, sp, &who) < 0) s->state = STEP_FAILING;
}
