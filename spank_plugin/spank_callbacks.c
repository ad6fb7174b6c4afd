/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm-pin SPANK plugin: `srun --pin-strategy=...` binds each task to its
 * share of the step's CPUs, each thread (through the OpenMP environment) to
 * its place, and sets the NUMA memory policy.
 *
 * Where things happen (Slurm 22.05):
 *  - srun/sbatch/salloc (as the user): option callbacks check every value and
 *    parse user files, so a mistake is one `srun: error:` before anything runs.
 *  - slurmstepd user_init (as the user, once per node): the placement is
 *    computed from the step's allocation on this node (S_STEP_ALLOC_CORES).
 *  - slurmstepd task_init (as the user, per task, the last hook before exec,
 *    after Slurm's own task plugin): the task is bound and its environment
 *    set; a failure found in user_init is reported here, which ends the step
 *    cleanly instead of draining the node.
 * This file holds the hooks, each starting from the one step record
 * (pin_step.h) and handing it on: srun's options are srun_options.c, its
 * checks of the whole request srun_request.c, slurmstepd's placing of the
 * step step_placing.c (the policy's part policy_step.c, the placing helper's
 * protocol step_helper.c), each task's binding task_pinning.c.
 */
#define _GNU_SOURCE
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "job_decision.h"
#include "pin_step.h"
#include "srun_options.h"
#include "srun_request.h"
#include "task_pinning.h"

SPANK_PLUGIN(slurm_pin, 1);

#ifdef SP_SPANK_FAILURE_MODE
/* Slurm 25.05 and later drain the node when a hook fails, unless the plugin
 * says otherwise. slurm-pin fails a job by ending its tasks with one line
 * (task_init), never by a failing hook in slurmstepd; should a hook fail
 * all the same, it is that job's failure, never the node's. */
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

static struct pin_step this_step;

/* ---- srun/sbatch/salloc and slurmstepd start ------------------------- */

/* slurmd, as root, when it starts: discover this node once and save it for
 * every step (sp_set_topology_cache). A failure costs only speed: log it.
 * Slurm 22.05 calls slurm_spank_init there, not slurm_spank_slurmd_init. */
static int slurmd_start(struct pin_step *s, int ac, char **av) {
  char err[ERR_LEN];
  struct pin_config site;
  pin_config_defaults(&site);
  /* srun and slurmstepd refuse steps over it; the admin sees it here first. */
  if (pin_config_parse(&site, ac, av, err, sizeof err) != 0 || pin_config_check(&site, err, sizeof err) != 0) {
    slurm_error("slurm-pin: plugstack.conf: %s", err);
    return 0;
  }
  s->config = site;
  job_decision_sweep(site.run_dir); /* jobs that ended while slurmd was away */
  const char *path = cache_path(s);
  if (path && sp_save_topology(path, err, sizeof err) < 0)
    slurm_error("slurm-pin: cannot save this node's topology (steps will discover it): %s", err);
  return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av) {
  struct pin_step *s = &this_step;
  spank_context_t ctx = spank_context();
  if (ctx == S_CTX_SLURMD) return slurmd_start(s, ac, av);
  if (ctx != S_CTX_LOCAL && ctx != S_CTX_REMOTE && ctx != S_CTX_ALLOCATOR) return 0;
  if (ctx == S_CTX_ALLOCATOR) srun_options_early_help(s);
  char err[ERR_LEN];
  pin_config_defaults(&s->config);
  memset(&s->request, 0, sizeof s->request);
  if (pin_config_parse(&s->config, ac, av, err, sizeof err) != 0) {
    slurm_error("slurm-pin: plugstack.conf: %s", err);
    /* In slurmstepd a failing init would fail the launch and may drain the
     * node: there, log and stay out of the way. srun shows it to everyone. */
    if (ctx != S_CTX_REMOTE) return -1;
    s->state = STEP_UNCONFIGURED;
    return 0;
  }
  return srun_options_register(sp, s);
}

/* After every option is known: in srun, sbatch, salloc the cross-option
 * checks; in slurmstepd (root, before privileges are dropped) the policy's
 * decision, read once per step. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av) {
  struct pin_step *s = &this_step;
  (void)sp, (void)ac, (void)av;
  if (s->state == STEP_UNCONFIGURED) return 0;
  if (spank_remote(sp)) {
    if (!is_application_step(sp) && !is_batch_step(sp)) return 0;
    if (read_policy(s, sp) == 0) apply_policy_env(s, sp); /* a failure is the step's, found by start_placing */
    start_early(s, sp);
    return 0;
  }
  int rc = srun_request_check(s, spank_context() == S_CTX_LOCAL ? s->component_count : -1);
  if (spank_context() == S_CTX_LOCAL) srun_request_save_component(s);
  return rc;
}

/* srun, once its job exists: the user's --cpu-bind against the job's rule. */
int slurm_spank_local_user_init(spank_t sp, int ac, char **av) {
  (void)ac, (void)av;
  return this_step.state == STEP_UNCONFIGURED ? 0 : srun_request_check_rule(&this_step, sp);
}

/* ---- slurmstepd: the step placed once per node (step_helper.c) ------- */

int slurm_spank_user_init(spank_t sp, int ac, char **av) {
  struct pin_step *s = &this_step;
  (void)ac, (void)av;
  if (!spank_remote(sp) || s->state == STEP_UNCONFIGURED) return 0;
  if (s->placing == PLACING_NOT_YET) {
    int started = start_placing(s, sp, NULL);
    if (started <= 0) return started < 0 ? step_fails(s) : 0; /* task_init reports a failure */
  }
  if (s->placing != PLACING_STARTED) return 0; /* decided in init_post_opt */
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = finish_placing(s);
  double waited = ms_since(&t0);
  /* How long placing took, and how long the step's launch waited for it
   * on this node (SlurmdDebug=debug; bench/srun reads them). */
  if (!s->launcher.on)
    slurm_debug("slurm-pin: step placed in %.3f ms (strategy %s%s); slurmstepd waited %.3f ms; "
                "the placing helper's peak %ld KiB",
                s->helper_ms, s->job.strategy, rc == 0 && s->plan.cached ? ", from the node's placement cache" : "",
                waited, s->helper_peak_kib);
  return step_placed(s, rc); /* errors end the step in task_init, never here */
}

/* ---- slurmstepd: each task, just before exec (task_pinning.c) --------- */

/* Root, in the first task's process before privileges are dropped: the
 * node's placement cache is root's. */
int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av) {
  struct pin_step *s = &this_step;
  (void)ac, (void)av;
  int task = -1;
  if (s->state != STEP_PINNED || s->launcher.on || spank_get_item(sp, S_TASK_ID, &task) != ESPANK_SUCCESS) return 0;
  if (task == 0) task_keep_placement(s);
  return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
  struct pin_step *s = &this_step;
  (void)ac, (void)av;
  if (spank_remote(sp) && s->state != STEP_UNCONFIGURED && (is_application_step(sp) || is_batch_step(sp)))
    task_drop_inherited_binding(sp);
  /* A recording job runs unpinned (left alone), its ranks recording. */
  if (spank_remote(sp) && s->state != STEP_UNCONFIGURED && s->state != STEP_FAILING && is_application_step(sp) &&
      recording_wanted(s))
    task_record_traffic(s, sp);
  if (s->state != STEP_PINNED && s->state != STEP_FAILING) return 0;
  if (!s->failure[0]) task_pin(s, sp);
  if (s->failure[0]) {
    /* This is the forked task, before exec: end it with the one line that
     * explains why. Returning -1 would do the same with three more lines of
     * Slurm's own; every task fails alike, so nothing runs half-bound.
     * The node is named here: since 25.05 Slurm's prefix no longer does. */
    const char *node = job_decision_node();
    slurm_error("%s: slurm-pin: %s", node ? node : "this node", s->failure);
    fflush(NULL);
    _exit(1);
  }
  return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av) {
  struct pin_step *s = &this_step;
  (void)sp, (void)ac, (void)av;
  placing_helper_cancel(&s->helper);
  step_plan_free(&s->plan);
  free(s->cpu_bind_list);
  s->cpu_bind_list = NULL;
  return 0;
}

/* ---- the job's epilog, on each node, as root ------------------------------ */

/* plugstack.conf's arguments, as the hooks of a job script get them. No
 * slurmctld RPC here: Slurm 24.11's job scripts have no RPC layer. */
static int job_script_config(struct pin_step *s, int ac, char **av, uint32_t *job, spank_t sp) {
  char err[ERR_LEN];
  pin_config_defaults(&s->config);
  if (pin_config_parse(&s->config, ac, av, err, sizeof err) != 0) {
    slurm_error("slurm-pin: plugstack.conf: %s", err);
    return -1;
  }
  return spank_get_item(sp, S_JOB_ID, job) == ESPANK_SUCCESS ? 0 : -1;
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av) {
  struct pin_step *s = &this_step;
  uint32_t job = 0;
  if (job_script_config(s, ac, av, &job, sp) != 0) return 0;
  job_decision_forget(s->config.run_dir, job, job_decision_node());
  job_decision_sweep(s->config.run_dir); /* others' whose epilog never ran here */
  return 0;
}
