/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What srun, sbatch and salloc check of the whole request once every option
 * is known (srun_request.h): options that contradict each other or the
 * site, the user's own --cpu-bind against a site default, and each
 * component's options of a heterogeneous step passed on to slurmstepd.
 */
#define _GNU_SOURCE
#include "srun_request.h"

#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_decision.h"
#include "pin_components.h"
#include "srun_cmdline.h"

/* The option's environment twin, which slurmstepd reads as the option. */
#define PIN_STRATEGY_TWIN "_SLURM_SPANK_OPTION_slurm_pin_pin_strategy"

/* The user's own --cpu-bind for component `component` in `bind` when it
 * asks Slurm for a binding (not none, nor only verbosity): 1, else 0. */
static int user_binds(struct pin_step *s, int component, char *bind, size_t len) {
  srun_cmdline_cpu_bind(s, component, bind, len);
  const char *type = cpu_bind_type(bind); /* --cpu-bind=verbose,map_cpu:1: map_cpu:1 */
  return *type && strcmp(type, "none") != 0 && strcmp(type, "no") != 0 && strcmp(type, "verbose") != 0 &&
         strcmp(type, "quiet") != 0;
}

static void say_cpu_bind_kept(struct pin_step *s, const char *bind) {
  if (s->request.verbose || s->config.verbose)
    slurm_info("slurm-pin: --cpu-bind=%.200s is this step's binding: the site's default placement does not apply "
               "(--pin-strategy=STRATEGY chooses slurm-pin's instead)", bind);
}

/* The user's explicit --cpu-bind is the user's choice, as --pin-strategy
 * is: a strategy the user gave replaces it (said once); a site default
 * (plugstack.conf default=, a default rule of the policy) yields to it, the
 * step being strategy none, which slurmstepd receives as the option's
 * environment twin (and, in srun A : B, with the component's options); an
 * enforced default= refuses the step here. */
static void respect_cpu_bind(struct pin_step *s, int component) {
  char bind[256];
  if (!user_binds(s, component, bind, sizeof bind)) return;
  if (s->request.strategy_set) {
    if (strcmp(s->request.strategy, "none") != 0)
      slurm_info("warning: --pin-strategy=%s replaces --cpu-bind=%.200s in every task (drop one of them; "
                 "--pin-strategy=none keeps Slurm's binding)", s->request.strategy, bind);
    return;
  }
  if ((s->config.enforce & PIN_ENFORCE_STRATEGY) && strcmp(s->config.default_strategy, "none") != 0) {
    slurm_error("--cpu-bind=%.200s: this cluster binds every step with strategy '%s' (enforce): remove --cpu-bind",
                bind, s->config.default_strategy);
    exit(1);
  }
  if (strcmp(s->config.default_strategy, "none") == 0 && !s->config.policy) return; /* nothing would replace it */
  if (s->config.policy) snprintf(s->yielded_cpu_bind, sizeof s->yielded_cpu_bind, "%s", bind);
  strcpy(s->request.strategy, "none");
  s->request.strategy_set = 1;
  if (setenv(PIN_STRATEGY_TWIN, "none", 1) != 0) {
    slurm_error("slurm-pin: cannot pass --cpu-bind's choice on to the step");
    exit(1);
  }
  if (!s->config.policy) say_cpu_bind_kept(s, bind); /* else once the job's rule is known */
}

/* Cross-option checks of the options given (to component `component` of an
 * srun; -1 in sbatch and salloc). */
int srun_request_check(struct pin_step *s, int component) {
  if (component >= 0) respect_cpu_bind(s, component);
  const char *strategy = pin_effective_strategy(&s->config, &s->request, NULL);
  if (s->request.dryrun && s->config.enforce) {
    slurm_error("--pin-dryrun: this cluster binds every step with strategy '%s' (enforce): remove --pin-dryrun",
                s->config.default_strategy);
    exit(1);
  }
  char err[ERR_LEN];
  if (pin_check_enforced(&s->config, &s->request, err, sizeof err) != 0) {
    slurm_error("%s", err);
    exit(1);
  }
  if (s->request.phases && s->request.threads[0] && strcmp(s->request.threads, "ompt") != 0) {
    slurm_error("--pin-phases moves threads at every parallel region, which needs --pin-thread-binding=ompt, not %s",
                s->request.threads);
    exit(1);
  }
  if (s->request.phases && strncmp(strategy, "file:", 5) != 0 && !s->request.profile[0]) {
    slurm_error("--pin-phases needs a profile with parallel regions (--pin-profile) or a placement file with "
                "regions (--pin-strategy=file:PATH)");
    exit(1);
  }
  if (!s->options_given) return 0; /* the site's own default: slurmstepd checks it */
  if (sp_strategy_needs_profile(strategy) == 1 && !s->request.profile[0]) {
    slurm_error("--pin-strategy=%s needs a sharing profile: add --pin-profile=NAME or --pin-profile=FILE", strategy);
    exit(1); /* one line, nothing submitted (see reject) */
  }
  return 0;
}

/* srun calls init_post_opt once per component of a heterogeneous step,
 * after that component's options: keep them, start the next one afresh, and
 * give every component's options to the job (pin_components.h). One
 * component: nothing is exported, SPANK's own option passing suffices. */
void srun_request_save_component(struct pin_step *s) {
  if (s->component_count >= MAX_COMPONENTS) {
    slurm_error("slurm-pin: more than %d components in one step", MAX_COMPONENTS);
    exit(1);
  }
  s->components[s->component_count++] = s->request;
  memset(&s->request, 0, sizeof s->request);
  if (s->component_count < 2) return;
  for (int k = 0; k < s->component_count; ++k) {
    char name[64], value[PATH_MAX * 3 + PIN_STRATEGY_MAX * 3 + 256];
    snprintf(name, sizeof name, PIN_COMPONENT_ENV "%d", k);
    if (pin_request_format(&s->components[k], value, sizeof value) != 0 || setenv(name, value, 1) != 0) {
      slurm_error("slurm-pin: cannot pass the options of component %d to the step", k);
      exit(1);
    }
  }
}

/* srun, once its job exists: the job's policy rule when it is enforced and
 * binds (1), as slurmctld recorded it; 0 when not, or when slurmctld cannot
 * tell (the node then decides, as always). */
static int enforced_rule(spank_t sp, struct pin_policy *rule) {
  uint32_t job = 0;
  char text[PIN_POLICY_TEXT_MAX];
  if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS || !job) return 0;
  if (job_decision_ask(job, text, sizeof text) != 0 || pin_policy_parse(text, rule) != 0) return 0;
  return rule->present && rule->enforce && strcmp(rule->strategy, "none") != 0;
}

/* An explicit --cpu-bind that the job's enforced rule would override is
 * refused here, in one line, before any task starts: on the node the rule
 * wins, and the user's binding could not be kept. */
int srun_request_check_rule(struct pin_step *s, spank_t sp) {
  struct pin_policy rule;
  if (!s->config.policy || !s->yielded_cpu_bind[0]) return 0;
  if (!enforced_rule(sp, &rule)) return say_cpu_bind_kept(s, s->yielded_cpu_bind), 0;
  slurm_error("--cpu-bind=%.200s: the site policy's rule %s binds every step of this job with strategy '%s' "
              "(enforce): remove --cpu-bind", s->yielded_cpu_bind, rule.rule, rule.strategy);
  exit(1);
}
