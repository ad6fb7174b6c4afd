/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The site policy's part in a step, on each node (pin_step.h): the
 * decision job_submit.lua recorded for the job, read as root where the user
 * cannot reach it; its env set in the step before anything reads it; which
 * profile it gives, and what a default rule's profile yields to when it
 * does not fit the step.
 */
#define _GNU_SOURCE
#include "pin_step.h"

#include <slurm/slurm.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "job_decision.h"
#include "user_data.h"

/* Which profile is in force and where it comes from: 1 when from a default
 * rule of the policy (the user chose none), 2 from an enforced rule, 0
 * otherwise. */
int policy_profile_source(struct pin_step *s) {
  if (!s->policy.present || !s->policy.applies || !s->policy.profile[0]) return 0;
  if (s->policy.enforce) return 2;
  return s->request.profile[0] ? 0 : 1; /* the user's own profile wins over a default */
}

/* The strategy a step or rank places with, without the profile, when a
 * default rule's profile does not fit it. */
const char *policy_without_profile(const char *strategy) {
  return sp_strategy_needs_profile(strategy) == 1 ? "compact" : strategy;
}

const char *policy_profile_store(struct pin_step *s, char *buf, size_t len) {
  if (!policy_profile_source(s) || !s->policy.user_store) return s->config.store;
  return user_data_dir(getuid(), USER_STORE_SUBDIR, buf, len) == 0 ? buf : NULL;
}

int policy_candidate_fails(struct pin_step *s, const char *why) {
  char m[ERR_LEN * 2];
  snprintf(m, sizeof m, "the site policy's rule %.128s gave this job the candidate %.64s with profile %.255s%s, which cannot "
           "place it: %.500s (the job does not count for it; resubmit it, or tell the admin)",
           s->policy.rule, s->policy.strategy, s->policy.profile, s->policy.user_store ? " of your own store" : "", why);
  s->failure[0] = '\0';
  return step_fail(s, m);
}

/* The decision job_submit.lua recorded for this job, as the job's first
 * step on this node read and kept it (job_decision.h); slurmstepd, root,
 * before the step's privileges are dropped. The task's environment is never trusted
 * for it (a user can set any variable). */
int read_policy(struct pin_step *s, spank_t sp) {
  memset(&s->policy, 0, sizeof s->policy);
  s->policy_text[0] = '\0';
  if (!s->config.policy) return 0;
  uint32_t job_id = 0;
  char err[ERR_LEN];
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || !job_id)
    return step_fail(s, "cannot read this job's id for the site policy's decision");
  if (job_decision_read(s->config.run_dir, job_id, job_decision_node(), s->policy_text, sizeof s->policy_text, err,
                        sizeof err) != 0)
    return step_fail(s, err);
  if (pin_policy_parse(s->policy_text, &s->policy) != 0) {
    slurm_error("slurm-pin: ignoring a malformed policy decision in the job's AdminComment");
    memset(&s->policy, 0, sizeof s->policy);
    s->policy_text[0] = '\0';
  }
  return 0;
}

/* `name`, or `name=value`, added to a list (cut at its size). */
static void append_item(char *list, size_t size, const char *sep, const char *name, const char *value) {
  size_t used = strlen(list);
  snprintf(list + used, size - used, "%s%s%s%s", used ? sep : "", name, value ? "=" : "", value ? value : "");
}

/* The policy's env in the step's environment, in slurmstepd before
 * anything reads it (the helper reads OMP_NUM_THREADS, the tasks inherit
 * it): a default rule's values fill what the step does not set, an
 * enforced rule's replace them. env_note says what was set and kept. */
void apply_policy_env(struct pin_step *s, spank_t sp) {
  int n, overwrite;
  const struct pin_policy_env *env = pin_policy_env(&s->policy, &s->request, &n, &overwrite);
  char set[ERR_LEN / 2] = "", kept[ERR_LEN / 4] = "";
  for (int i = 0; i < n; ++i) {
    spank_err_t rc = spank_setenv(sp, env[i].name, env[i].value, overwrite);
    if (rc == ESPANK_SUCCESS)
      append_item(set, sizeof set, " ", env[i].name, env[i].value);
    else if (rc == ESPANK_ENV_EXISTS)
      append_item(kept, sizeof kept, ", ", env[i].name, NULL);
    else
      slurm_error("slurm-pin: %s: cannot set %s from the site policy's rule %s", job_decision_node() ?: "this node",
                  env[i].name, s->policy.rule);
  }
  if (set[0] || kept[0])
    snprintf(s->env_note, sizeof s->env_note, "policy rule %s set %s%s%s%s", s->policy.rule, set[0] ? set : "nothing",
             kept[0] ? " (the step's own " : "", kept, kept[0] ? " kept)" : "");
}
