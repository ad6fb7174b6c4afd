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
 * This file holds the hooks, the srun options and each task's binding; how
 * slurmstepd places the step once per node is step_placing.c (pin_step.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cpu_set_text.h"
#include "engine_link.h"
#include "helper_report.h"
#include "job_decision.h"
#include "launcher_step.h"
#include "preload_list.h"
#include "pin_components.h"
#include "pin_config.h"
#include "pin_step.h"
#include "placement_cache.h"
#include "placing_helper.h"
#include "policy_yield.h"
#include "process_binding.h"
#include "slurm_binding_env.h"
#include "slurm_pin_frontend.h"
#include "stderr_line.h"
#include "step_plan.h"
#include "task_env.h"
#include "task_file.h"

SPANK_PLUGIN(slurm_pin, 1);

#ifdef SP_SPANK_FAILURE_MODE
/* Slurm 25.05 and later drain the node when a hook fails, unless the plugin
 * says otherwise. slurm-pin fails a job by ending its tasks with one line
 * (task_init), never by a failing hook in slurmstepd; should a hook fail
 * all the same, it is that job's failure, never the node's. */
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

static struct pin_step this_step;

/* ---- options ---------------------------------------------------------- */

/* In srun, sbatch, salloc: plugstack.conf's values, checked once the user
 * asks something of slurm-pin; a mistake ends the command. Option values
 * need no engine (slurm_pin_options.h): it loads only for what it must
 * read (a profile, a placement file), so a step that asks for a strategy
 * costs srun no C++ runtime, hwloc or METIS. */
static void check_site_values(struct pin_step *s) {
  char err[ERR_LEN];
  s->options_given = 1;
  if (s->site_checked++) return;
  if (pin_config_check(&s->config, err, sizeof err) != 0) {
    slurm_error("slurm-pin: plugstack.conf: %s", err);
    exit(1);
  }
}

/* A bad value in srun, sbatch or salloc: one error line, then stop before
 * anything is submitted (returning -1 would add Slurm's own second line). In
 * slurmstepd, values were checked already; refuse without exiting. */
static int reject(const char *option, const char *message) {
  slurm_error("%s: %s", option, message);
  if (spank_context() != S_CTX_REMOTE) exit(1);
  return -1;
}

/* The program's own arguments (srun's, sbatch's), NUL-separated after its
 * name, in a buffer of its own; their size, 0 if unreadable. */
static size_t own_cmdline(struct pin_step *s, const char **args) {
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (!f) return 0;
  size_t n = fread(s->cmdline, 1, sizeof s->cmdline - 1, f);
  fclose(f);
  s->cmdline[n] = '\0';
  *args = s->cmdline;
  return n;
}

/* On that command line: the value of option `name` (also spelt `alt`, or
 * NULL) when `a` is "NAME=V" or follows "NAME"; NULL otherwise. */
static const char *option_value(const char *a, const char *prev, const char *name, const char *alt) {
  for (const char *o = name; o; o = o == name ? alt : NULL) {
    size_t n = strlen(o);
    if (strncmp(a, o, n) == 0 && a[n] == '=') return a + n + 1;
    if (strcmp(prev, o) == 0) return a;
  }
  return NULL;
}

/* `a` is where the command's own options end: the program (srun) or the
 * script (sbatch), being neither an option nor the value of the one before. */
static int is_program(const char *a, const char *prev) {
  return a[0] != '-' && !(prev[0] == '-' && !strchr(prev, '='));
}

/* A --cpu-bind or --pin-strategy value past its modifiers (verbose, quiet). */
static const char *skip_modifiers(const char *v) {
  for (;;) {
    if (strncmp(v, "verbose,", 8) == 0) v += 8;
    else if (strncmp(v, "quiet,", 6) == 0) v += 6;
    else return v;
  }
}

static void strategy_help(void) {
  printf("slurm-pin strategies (--pin-strategy=STRATEGY):\n%s", sp_strategies_help());
  printf("profile-guided strategies need --pin-profile=NAME[@VERSION]|PATH\n");
  exit(0);
}

/* sbatch reads its script before it hands options to plugins, so
 * `sbatch --pin-strategy=help` alone would wait for a script on stdin (or
 * say "Batch script is empty!"): sbatch and salloc ask for the help on
 * their command line, before the script's name, when the plugin starts. */
static int asks_strategy_help(struct pin_step *s) {
  const char *cmdline;
  size_t n = own_cmdline(s, &cmdline);
  if (!n) return 0;
  const char *prev = "";
  for (const char *a = cmdline + strlen(cmdline) + 1; a < cmdline + n; prev = a, a += strlen(a) + 1) {
    if (strcmp(a, "--") == 0) break;
    const char *v = option_value(a, prev, "--pin-strategy", NULL);
    if (v && strcmp(skip_modifiers(v), "help") == 0) return 1;
    if (!v && is_program(a, prev)) break;
  }
  return 0;
}

static int opt_strategy(int val, const char *arg, int remote) {
  struct pin_step *s = &this_step;
  (void)val;
  char err[ERR_LEN];
  if (!remote) check_site_values(s);
  if (!arg || strlen(arg) >= sizeof s->request.strategy) return reject("--pin-strategy", "value missing or too long");
  /* --cpu-bind style modifiers: --pin-strategy=verbose,lpgp or quiet,lpgp. */
  for (;;) {
    if (strncmp(arg, "verbose,", 8) == 0) s->request.verbose = 1, arg += 8;
    else if (strncmp(arg, "quiet,", 6) == 0) s->request.verbose = 0, arg += 6;
    else break;
  }
  if (!remote && strcmp(arg, "help") == 0) strategy_help();
  strcpy(s->request.strategy, arg);
  s->request.strategy_set = 1;
  if (remote) return 0; /* checked in srun; slurmstepd reads no user file as root */
  if (pin_check_strategy(&s->config, arg, err, sizeof err) != 0) return reject("--pin-strategy", err);
  if (strncmp(arg, "file:", 5) == 0 && sp_check_placement_file(arg + 5, err, sizeof err) != 0)
    return reject("--pin-strategy", err);
  return 0;
}

static int opt_profile(int val, const char *arg, int remote) {
  struct pin_step *s = &this_step;
  (void)val;
  char err[ERR_LEN];
  if (!remote) check_site_values(s);
  if (!arg || strlen(arg) >= sizeof s->request.profile) return reject("--pin-profile", "value missing or too long");
  strcpy(s->request.profile, arg);
  if (remote) return 0;
  /* A store name is looked up without the engine; a file is the engine's to read. */
  int rc = sp_is_profile_name(arg) ? sp_check_store_profile(arg, s->config.store, err, sizeof err)
                                   : sp_check_profile(arg, s->config.store, err, sizeof err);
  if (rc != 0) return reject("--pin-profile", err);
  return 0;
}

/* The options whose value is one word the engine checks: `val` says which. */
enum { VALUE_MEM, VALUE_GRANULARITY, VALUE_SMT, VALUE_GPU, VALUE_THREADS, VALUE_THREADS_OLD };

/* Where an option's value goes in struct pin_request, and its size. */
#define REQUEST_FIELD(f) offsetof(struct pin_request, f), sizeof(((struct pin_request *)0)->f)

static const struct {
  const char *option;
  size_t offset, size; /* of its field in the step's request */
  int (*check)(const char *value, char *err, size_t len);
} value_options[] = {
    [VALUE_MEM] = {"--pin-mem", REQUEST_FIELD(mem), sp_check_mem_policy},
    [VALUE_GRANULARITY] = {"--pin-granularity", REQUEST_FIELD(granularity), sp_check_granularity},
    [VALUE_SMT] = {"--pin-smt", REQUEST_FIELD(smt), sp_check_smt},
    [VALUE_GPU] = {"--pin-gpu", REQUEST_FIELD(gpu), sp_check_gpu_mode},
    [VALUE_THREADS] = {"--pin-thread-binding", REQUEST_FIELD(threads), sp_check_thread_mode},
    /* 0.1's spelling, which read as a thread count. */
    [VALUE_THREADS_OLD] = {"--pin-threads", REQUEST_FIELD(threads), sp_check_thread_mode},
};

static int opt_value(int val, const char *arg, int remote) {
  struct pin_step *s = &this_step;
  char err[ERR_LEN];
  if (!remote) check_site_values(s);
  const char *option = value_options[val].option;
  if (val == VALUE_THREADS_OLD && !remote)
    slurm_info("warning: --pin-threads is deprecated: use --pin-thread-binding=%.20s", arg ? arg : "HOW");
  if (!arg) return reject(option, "value missing");
  /* slurmstepd checks the values again in the placing helper
   * (pin_check_request): the engine never loads into slurmstepd. */
  if (!remote && value_options[val].check(arg, err, sizeof err) != 0) return reject(option, err);
  if (strlen(arg) >= value_options[val].size) return reject(option, "value too long");
  memcpy((char *)&s->request + value_options[val].offset, arg, strlen(arg) + 1);
  return 0;
}

/* The options without a value: `val` says which. */
enum { FLAG_PHASES, FLAG_OVERSUBSCRIBE, FLAG_VERBOSE, FLAG_DRYRUN };

static int opt_flag(int val, const char *arg, int remote) {
  struct pin_step *s = &this_step;
  (void)arg;
  if (!remote) check_site_values(s);
  int *const flags[] = {&s->request.phases, &s->request.oversubscribe, &s->request.verbose, &s->request.dryrun};
  *flags[val] = 1;
  return 0;
}


static struct spank_option options[] = {
    {"pin-strategy", "STRATEGY", "Thread placement: [verbose,]STRATEGY (see \"--pin-strategy=help\" for them)", 1,
     0, opt_strategy},
    {"pin-profile", "NAME|PATH", "Sharing profile: NAME[@VERSION] from the site's store, or a file", 1, 0,
     opt_profile},
    {"pin-mem", "POLICY", "NUMA memory policy: none|local|interleave", 1, VALUE_MEM, opt_value},
    {"pin-granularity", "LEVEL", "Bind each thread to its pu, core, l2, l3 or numa domain", 1,
     VALUE_GRANULARITY, opt_value},
    {"pin-smt", "K", "Use K hardware threads of each core, one thread on each (mpibind's smt:K)", 1, VALUE_SMT,
     opt_value},
    {"pin-gpu", "closest|none", "Give each task the GPUs nearest its CPUs (and CPUs near them), set "
     "CUDA_VISIBLE_DEVICES/ROCR_VISIBLE_DEVICES/ZE_AFFINITY_MASK per task", 1, VALUE_GPU, opt_value},
    {"pin-thread-binding", "HOW", "Bind threads through auto (default: OpenMP variables for OpenMP threads, a "
     "pthread shim for the others), env (OpenMP variables), preload (the shim) or ompt (per-region pinning)", 1,
     VALUE_THREADS, opt_value},
    {"pin-threads", "HOW", "Deprecated spelling of --pin-thread-binding", 1, VALUE_THREADS_OLD, opt_value},
    {"pin-phases", NULL, "Place every parallel region of the profile on its own (per-region pinning)", 0,
     FLAG_PHASES, opt_flag},
    {"pin-oversubscribe", NULL, "Let threads beyond the cores' hardware threads share them (where the site says "
     "oversubscribe=error)", 0, FLAG_OVERSUBSCRIBE,
     opt_flag},
    {"pin-verbose", NULL, "Print each task's binding", 0, FLAG_VERBOSE, opt_flag},
    {"pin-dryrun", NULL, "Print what would be bound, bind nothing", 0, FLAG_DRYRUN, opt_flag},
    SPANK_OPTIONS_TABLE_END};

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
  if (ctx == S_CTX_ALLOCATOR && asks_strategy_help(s)) strategy_help();
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
  for (struct spank_option *o = options; o->name; ++o)
    if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
      slurm_error("slurm-pin: cannot register --%s", o->name);
      return -1;
    }
  return 0;
}

/* The user's own --cpu-bind for component `component` (srun A : B), as srun
 * was given it (its command line, or SLURM_CPU_BIND in its environment,
 * which srun reads as the option); "" when none. Scanning stops at "--" or
 * at what looks like the program. Read from srun's own command line because
 * SPANK has no item for it (spank.h's S_* items carry no CPU binding) and
 * srun exports SLURM_CPU_BIND only to the tasks, after this runs. It is
 * srun's own memory, in the user's process, and only a warning depends on
 * it: never a binding, never anything in slurmstepd. */
static void user_cpu_bind(struct pin_step *s, int component, char *buf, size_t len) {
  buf[0] = '\0';
  const char *env = getenv("SLURM_CPU_BIND");
  if (env) snprintf(buf, len, "%s", env);
  const char *cmdline;
  size_t n = own_cmdline(s, &cmdline);
  if (!n) return;
  const char *prev = "", *a = cmdline + strlen(cmdline) + 1;
  for (int k = 0; k < component && a < cmdline + n; a += strlen(a) + 1)
    if (strcmp(a, ":") == 0) ++k; /* srun splits its components there */
  for (; a < cmdline + n; prev = a, a += strlen(a) + 1) {
    if (strcmp(a, "--") == 0 || strcmp(a, ":") == 0) break;
    const char *v = option_value(a, prev, "--cpu-bind", "--cpu_bind");
    if (v) snprintf(buf, len, "%s", v);
    else if (is_program(a, prev)) break;
  }
}

/* The user's own --cpu-bind for component `component` in `bind` when it
 * asks Slurm for a binding (not none, nor only verbosity): 1, else 0. */
static int user_binds(struct pin_step *s, int component, char *bind, size_t len) {
  user_cpu_bind(s, component, bind, len);
  const char *type = skip_modifiers(bind); /* --cpu-bind=verbose,map_cpu:1: map_cpu:1 */
  return *type && strcmp(type, "none") != 0 && strcmp(type, "no") != 0 && strcmp(type, "verbose") != 0 &&
         strcmp(type, "quiet") != 0;
}

/* The option's environment twin, which slurmstepd reads as the option. */
#define PIN_STRATEGY_TWIN "_SLURM_SPANK_OPTION_slurm_pin_pin_strategy"

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
static int check_request(struct pin_step *s, int component) {
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
static void save_component(struct pin_step *s) {
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
  int rc = check_request(s, spank_context() == S_CTX_LOCAL ? s->component_count : -1);
  if (spank_context() == S_CTX_LOCAL) save_component(s);
  return rc;
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
int slurm_spank_local_user_init(spank_t sp, int ac, char **av) {
  struct pin_step *s = &this_step;
  (void)ac, (void)av;
  struct pin_policy rule;
  if (s->state == STEP_UNCONFIGURED || !s->config.policy || !s->yielded_cpu_bind[0]) return 0;
  if (!enforced_rule(sp, &rule)) return say_cpu_bind_kept(s, s->yielded_cpu_bind), 0;
  slurm_error("--cpu-bind=%.200s: the site policy's rule %s binds every step of this job with strategy '%s' "
              "(enforce): remove --cpu-bind", s->yielded_cpu_bind, rule.rule, rule.strategy);
  exit(1);
}

/* ---- slurmstepd: the step placed once per node (step_placing.c) ------- */

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

/* ---- slurmstepd: each task, just before exec --------------------------- */

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
static void keep_placement(struct pin_step *s) {
  char err[ERR_LEN];
  if (s->placements_dir[0] && placement_cache_store(s->placements_dir, s->plan.cache_name, s->plan.cache_data,
                                                    s->plan.cache_size, s->config.placement_cache, err, sizeof err) != 0)
    slurm_info("slurm-pin: %s", err);
}

/* Root, in the first task's process before privileges are dropped: the
 * node's placement cache is root's. */
int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av) {
  struct pin_step *s = &this_step;
  (void)ac, (void)av;
  int task = -1;
  if (s->state != STEP_PINNED || s->launcher.on || spank_get_item(sp, S_TASK_ID, &task) != ESPANK_SUCCESS) return 0;
  if (task == 0) keep_placement(s);
  return 0;
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
static void drop_inherited_binding(spank_t sp) {
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

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
  struct pin_step *s = &this_step;
  (void)ac, (void)av;
  if (spank_remote(sp) && s->state != STEP_UNCONFIGURED && (is_application_step(sp) || is_batch_step(sp))) drop_inherited_binding(sp);
  if (s->state != STEP_PINNED && s->state != STEP_FAILING) return 0;
  struct task_view view;
  if (!s->failure[0]) s->launcher.on ? start_launcher(s, sp, &view) : pin_task(s, sp, &view);
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
