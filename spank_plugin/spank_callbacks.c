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
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu_set_text.h"
#include "engine_link.h"
#include "job_decision.h"
#include "launcher_step.h"
#include "preload_list.h"
#include "pin_components.h"
#include "pin_config.h"
#include "placement_cache.h"
#include "policy_yield.h"
#include "slurm_binding_env.h"
#include "slurm_pin_frontend.h"
#include "stderr_line.h"
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

#define ERR_LEN 1024
#define LIST_LEN 65536

static struct pin_config config;
static struct pin_request request;
static struct pin_policy policy; /* the site policy's decision for this job, if any */
static char policy_text[PATH_MAX + 512]; /* that decision as recorded (read_policy) */
static sp_placement_t *placement; /* computed by user_init */
static char failure[ERR_LEN];     /* found by user_init, reported by task_init */
static int active;                /* this step is pinned on this node */
/* This step is an MPI launcher's daemon, or a batch script (launcher_step.h):
 * left as Slurm placed it, its ranks place themselves. */
static struct {
  int on;
  char name[64];             /* the daemon's program, or "batch script" */
  char command[PATH_MAX];    /* slurm-pin, which starts each rank */
  char options[PATH_MAX * 4]; /* SLURM_PIN_RANK_OPTIONS */
  char node_cpus[65536];     /* the CPUs the node's ranks share */
} launcher;
/* srun: the components of a heterogeneous step whose options are parsed;
 * Slurm allows at most 128 (MAX_HET_JOB_COMPONENTS). */
#define MAX_COMPONENTS 128
static struct pin_request components[MAX_COMPONENTS];
static int component_count;

static int is_application_step(spank_t sp);
static int is_batch_step(spank_t sp);
static int read_policy(spank_t sp);

/* ---- options ---------------------------------------------------------- */

/* srun, sbatch, salloc: the user gave a --pin-* option (or its
 * environment twin), so the engine is loaded and every value checked; jobs
 * without one leave the engine unloaded (engine_link.h). */
static int options_given;

/* In srun, sbatch, salloc: plugstack.conf's values, checked by the engine
 * once the user asks something of slurm-pin; a mistake ends the command. */
static void check_site_values(void) {
  static int checked;
  char err[ERR_LEN];
  options_given = 1;
  if (checked++) return;
  if (pin_engine_load(err, sizeof err) != 0) {
    slurm_error("slurm-pin: %s", err);
    exit(1);
  }
  if (pin_config_check(&config, err, sizeof err) != 0) {
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
static size_t own_cmdline(const char **args) {
  static char cmdline[65536];
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (!f) return 0;
  size_t n = fread(cmdline, 1, sizeof cmdline - 1, f);
  fclose(f);
  cmdline[n] = '\0';
  *args = cmdline;
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
static int asks_strategy_help(void) {
  const char *cmdline;
  size_t n = own_cmdline(&cmdline);
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
  (void)val;
  char err[ERR_LEN];
  if (!remote) check_site_values();
  if (!arg || strlen(arg) >= sizeof request.strategy) return reject("--pin-strategy", "value missing or too long");
  /* --cpu-bind style modifiers: --pin-strategy=verbose,lpgp or quiet,lpgp. */
  for (;;) {
    if (strncmp(arg, "verbose,", 8) == 0) request.verbose = 1, arg += 8;
    else if (strncmp(arg, "quiet,", 6) == 0) request.verbose = 0, arg += 6;
    else break;
  }
  if (!remote && strcmp(arg, "help") == 0) strategy_help();
  strcpy(request.strategy, arg);
  request.strategy_set = 1;
  if (remote) return 0; /* checked in srun; slurmstepd reads no user file as root */
  if (pin_check_strategy(&config, arg, err, sizeof err) != 0) return reject("--pin-strategy", err);
  if (strncmp(arg, "file:", 5) == 0 && sp_check_placement_file(arg + 5, err, sizeof err) != 0)
    return reject("--pin-strategy", err);
  return 0;
}

static int opt_profile(int val, const char *arg, int remote) {
  (void)val;
  char err[ERR_LEN];
  if (!remote) check_site_values();
  if (!arg || strlen(arg) >= sizeof request.profile) return reject("--pin-profile", "value missing or too long");
  strcpy(request.profile, arg);
  if (!remote && sp_check_profile(arg, config.store, err, sizeof err) != 0) return reject("--pin-profile", err);
  return 0;
}

/* The options whose value is one word the engine checks: `val` says which. */
enum { VALUE_MEM, VALUE_GRANULARITY, VALUE_SMT, VALUE_GPU, VALUE_THREADS, VALUE_THREADS_OLD };

static const struct {
  const char *option;
  char *field; /* in request */
  size_t size;
  int (*check)(const char *value, char *err, size_t len);
} value_options[] = {
    [VALUE_MEM] = {"--pin-mem", request.mem, sizeof request.mem, pin_check_mem},
    [VALUE_GRANULARITY] = {"--pin-granularity", request.granularity, sizeof request.granularity,
                           pin_check_granularity},
    [VALUE_SMT] = {"--pin-smt", request.smt, sizeof request.smt, sp_check_smt},
    [VALUE_GPU] = {"--pin-gpu", request.gpu, sizeof request.gpu, sp_check_gpu_mode},
    [VALUE_THREADS] = {"--pin-thread-binding", request.threads, sizeof request.threads, pin_check_threads},
    /* 0.1's spelling, which read as a thread count. */
    [VALUE_THREADS_OLD] = {"--pin-threads", request.threads, sizeof request.threads, pin_check_threads},
};

static int opt_value(int val, const char *arg, int remote) {
  char err[ERR_LEN];
  if (!remote) check_site_values();
  const char *option = value_options[val].option;
  if (val == VALUE_THREADS_OLD && !remote)
    slurm_info("warning: --pin-threads is deprecated: use --pin-thread-binding=%.20s", arg ? arg : "HOW");
  if (!arg) return reject(option, "value missing");
  if (value_options[val].check(arg, err, sizeof err) != 0) return reject(option, err);
  if (strlen(arg) >= value_options[val].size) return reject(option, "value too long");
  memcpy(value_options[val].field, arg, strlen(arg) + 1);
  return 0;
}

/* The options without a value: `val` says which. */
enum { FLAG_PHASES, FLAG_OVERSUBSCRIBE, FLAG_VERBOSE, FLAG_DRYRUN };

static int opt_flag(int val, const char *arg, int remote) {
  (void)arg;
  if (!remote) check_site_values();
  int *const flags[] = {&request.phases, &request.oversubscribe, &request.verbose, &request.dryrun};
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
    {"pin-thread-binding", "HOW", "Bind threads through env (OpenMP variables), preload (a pthread shim) or "
     "ompt (per-region pinning)", 1, VALUE_THREADS, opt_value},
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

/* Where slurmd saved this node's topology, or NULL (topology= or none). */
static const char *cache_path(void) {
  static char in_run_dir[PATH_MAX + 16];
  if (config.topology[0] || strcmp(config.topology_cache, "none") == 0) return NULL;
  if (config.topology_cache[0]) return config.topology_cache;
  snprintf(in_run_dir, sizeof in_run_dir, "%s/topology.xml", config.run_dir);
  return in_run_dir;
}

/* slurmd, as root, when it starts: discover this node once and save it for
 * every step (sp_set_topology_cache). A failure costs only speed: log it.
 * Slurm 22.05 calls slurm_spank_init there, not slurm_spank_slurmd_init. */
static int slurmd_start(int ac, char **av) {
  char err[ERR_LEN];
  struct pin_config site;
  pin_config_defaults(&site);
  /* srun and slurmstepd refuse steps over it; the admin sees it here first. */
  if (pin_config_parse(&site, ac, av, err, sizeof err) != 0 || pin_config_check(&site, err, sizeof err) != 0) {
    slurm_error("slurm-pin: plugstack.conf: %s", err);
    return 0;
  }
  config = site;
  const char *path = cache_path();
  if (path && sp_save_topology(path, err, sizeof err) < 0)
    slurm_error("slurm-pin: cannot save this node's topology (steps will discover it): %s", err);
  return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av) {
  spank_context_t ctx = spank_context();
  if (ctx == S_CTX_SLURMD) return slurmd_start(ac, av);
  if (ctx != S_CTX_LOCAL && ctx != S_CTX_REMOTE && ctx != S_CTX_ALLOCATOR) return 0;
  if (ctx == S_CTX_ALLOCATOR && asks_strategy_help()) strategy_help();
  char err[ERR_LEN];
  pin_config_defaults(&config);
  memset(&request, 0, sizeof request);
  if (pin_config_parse(&config, ac, av, err, sizeof err) != 0) {
    slurm_error("slurm-pin: plugstack.conf: %s", err);
    /* In slurmstepd a failing init would fail the launch and may drain the
     * node: there, log and stay out of the way. srun shows it to everyone. */
    if (ctx != S_CTX_REMOTE) return -1;
    active = -1;
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
static void user_cpu_bind(int component, char *buf, size_t len) {
  buf[0] = '\0';
  const char *env = getenv("SLURM_CPU_BIND");
  if (env) snprintf(buf, len, "%s", env);
  const char *cmdline;
  size_t n = own_cmdline(&cmdline);
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
static int user_binds(int component, char *bind, size_t len) {
  user_cpu_bind(component, bind, len);
  const char *type = skip_modifiers(bind); /* --cpu-bind=verbose,map_cpu:1: map_cpu:1 */
  return *type && strcmp(type, "none") != 0 && strcmp(type, "no") != 0 && strcmp(type, "verbose") != 0 &&
         strcmp(type, "quiet") != 0;
}

/* srun: the user's --cpu-bind a site default yielded to, when the site has
 * a policy (whose rule, known once the job exists, may be enforced). */
static char yielded_cpu_bind[256];

/* The option's environment twin, which slurmstepd reads as the option. */
#define PIN_STRATEGY_TWIN "_SLURM_SPANK_OPTION_slurm_pin_pin_strategy"

static void say_cpu_bind_kept(const char *bind) {
  if (request.verbose || config.verbose)
    slurm_info("slurm-pin: --cpu-bind=%.200s is this step's binding: the site's default placement does not apply "
               "(--pin-strategy=STRATEGY chooses slurm-pin's instead)", bind);
}

/* The user's explicit --cpu-bind is the user's choice, as --pin-strategy
 * is: a strategy the user gave replaces it (said once); a site default
 * (plugstack.conf default=, a default rule of the policy) yields to it, the
 * step being strategy none, which slurmstepd receives as the option's
 * environment twin (and, in srun A : B, with the component's options); an
 * enforced default= refuses the step here. */
static void respect_cpu_bind(int component) {
  char bind[256];
  if (!user_binds(component, bind, sizeof bind)) return;
  if (request.strategy_set) {
    if (strcmp(request.strategy, "none") != 0)
      slurm_info("warning: --pin-strategy=%s replaces --cpu-bind=%.200s in every task (drop one of them; "
                 "--pin-strategy=none keeps Slurm's binding)", request.strategy, bind);
    return;
  }
  if ((config.enforce & PIN_ENFORCE_STRATEGY) && strcmp(config.default_strategy, "none") != 0) {
    slurm_error("--cpu-bind=%.200s: this cluster binds every step with strategy '%s' (enforce): remove --cpu-bind",
                bind, config.default_strategy);
    exit(1);
  }
  if (strcmp(config.default_strategy, "none") == 0 && !config.policy) return; /* nothing would replace it */
  if (config.policy) snprintf(yielded_cpu_bind, sizeof yielded_cpu_bind, "%s", bind);
  strcpy(request.strategy, "none");
  request.strategy_set = 1;
  if (setenv(PIN_STRATEGY_TWIN, "none", 1) != 0) {
    slurm_error("slurm-pin: cannot pass --cpu-bind's choice on to the step");
    exit(1);
  }
  if (!config.policy) say_cpu_bind_kept(bind); /* else once the job's rule is known */
}

/* Cross-option checks of the options given (to component `component` of an
 * srun; -1 in sbatch and salloc). */
static int check_request(int component) {
  if (component >= 0) respect_cpu_bind(component);
  const char *s = pin_effective_strategy(&config, &request, NULL);
  if (request.dryrun && config.enforce) {
    slurm_error("--pin-dryrun: this cluster binds every step with strategy '%s' (enforce): remove --pin-dryrun",
                config.default_strategy);
    exit(1);
  }
  char err[ERR_LEN];
  if (pin_check_enforced(&config, &request, err, sizeof err) != 0) {
    slurm_error("%s", err);
    exit(1);
  }
  if (request.phases && request.threads[0] && strcmp(request.threads, "ompt") != 0) {
    slurm_error("--pin-phases moves threads at every parallel region, which needs --pin-thread-binding=ompt, not %s",
                request.threads);
    exit(1);
  }
  if (request.phases && strncmp(s, "file:", 5) != 0 && !request.profile[0]) {
    slurm_error("--pin-phases needs a profile with parallel regions (--pin-profile) or a placement file with "
                "regions (--pin-strategy=file:PATH)");
    exit(1);
  }
  if (!options_given) return 0; /* the site's own default: slurmstepd checks it */
  if (sp_strategy_needs_profile(s) == 1 && !request.profile[0]) {
    slurm_error("--pin-strategy=%s needs a sharing profile: add --pin-profile=NAME or --pin-profile=FILE", s);
    exit(1); /* one line, nothing submitted (see reject) */
  }
  return 0;
}

/* srun calls init_post_opt once per component of a heterogeneous step,
 * after that component's options: keep them, start the next one afresh, and
 * give every component's options to the job (pin_components.h). One
 * component: nothing is exported, SPANK's own option passing suffices. */
static void save_component(void) {
  if (component_count >= MAX_COMPONENTS) {
    slurm_error("slurm-pin: more than %d components in one step", MAX_COMPONENTS);
    exit(1);
  }
  components[component_count++] = request;
  memset(&request, 0, sizeof request);
  if (component_count < 2) return;
  for (int k = 0; k < component_count; ++k) {
    char name[64], value[PATH_MAX * 3 + PIN_STRATEGY_MAX * 3 + 256];
    snprintf(name, sizeof name, PIN_COMPONENT_ENV "%d", k);
    if (pin_request_format(&components[k], value, sizeof value) != 0 || setenv(name, value, 1) != 0) {
      slurm_error("slurm-pin: cannot pass the options of component %d to the step", k);
      exit(1);
    }
  }
}

/* After every option is known: in srun, sbatch, salloc the cross-option
 * checks; in slurmstepd (root, before privileges are dropped) the policy's
 * decision, read once per step. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av) {
  (void)sp, (void)ac, (void)av;
  if (active < 0) return 0;
  if (spank_remote(sp)) return is_application_step(sp) || is_batch_step(sp) ? read_policy(sp), 0 : 0;
  int rc = check_request(spank_context() == S_CTX_LOCAL ? component_count : -1);
  if (spank_context() == S_CTX_LOCAL) save_component();
  return rc;
}

/* srun, once its job exists: the job's policy rule when it is enforced and
 * binds (1), as slurmctld recorded it; 0 when not, or when slurmctld cannot
 * tell (the node then decides, as always). */
static int enforced_rule(spank_t sp, struct pin_policy *rule) {
  uint32_t job = 0;
  char text[PATH_MAX + 512];
  if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS || !job) return 0;
  if (job_decision_ask(job, text, sizeof text) != 0 || pin_policy_parse(text, rule) != 0) return 0;
  return rule->present && rule->enforce && strcmp(rule->strategy, "none") != 0;
}

/* An explicit --cpu-bind that the job's enforced rule would override is
 * refused here, in one line, before any task starts: on the node the rule
 * wins, and the user's binding could not be kept. */
int slurm_spank_local_user_init(spank_t sp, int ac, char **av) {
  (void)ac, (void)av;
  struct pin_policy rule;
  if (active < 0 || !config.policy || !yielded_cpu_bind[0]) return 0;
  if (!enforced_rule(sp, &rule)) return say_cpu_bind_kept(yielded_cpu_bind), 0;
  slurm_error("--cpu-bind=%.200s: the site policy's rule %s binds every step of this job with strategy '%s' "
              "(enforce): remove --cpu-bind", yielded_cpu_bind, rule.rule, rule.strategy);
  exit(1);
}

/* ---- slurmstepd: compute once per node -------------------------------- */

static int is_application_step(spank_t sp) {
  uint32_t step = 0;
  if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS) return 0;
  /* The batch shell, the extern step and interactive steps are not pinned:
   * pinning the batch shell would also leak OMP_* into every inner step. */
  return step != SLURM_BATCH_SCRIPT && step != SLURM_EXTERN_CONT && step != SLURM_INTERACTIVE_STEP;
}

static int is_batch_step(spank_t sp) {
  uint32_t step = 0;
  return spank_get_item(sp, S_JOB_STEPID, &step) == ESPANK_SUCCESS && step == SLURM_BATCH_SCRIPT;
}

/* What the plugin itself notes of the step for verbose users (a policy
 * rule's profile that did not fit), beside the engine's notes. */
static char note_text[ERR_LEN];

/* Long messages are cut, never overflowed: the first failure wins. */
static void fail(const char *message) {
  if (!failure[0]) snprintf(failure, sizeof failure, "%.*s", (int)sizeof failure - 1, message);
}

/* A topology= file must describe this node: the same CPUs as the kernel's
 * online set (cheap to read, unlike a full discovery). */
static int check_topology_file(void) {
  char online[LIST_LEN], pus[LIST_LEN];
  FILE *f = fopen("/sys/devices/system/cpu/online", "r");
  if (!f) return 0; /* nothing to compare with */
  int ok = fgets(online, sizeof online, f) != NULL;
  fclose(f);
  if (!ok) return 0;
  online[strcspn(online, "\n")] = '\0';
  if (sp_topology_pus(placement, pus, sizeof pus) < 0) return fail(sp_error(placement)), -1;
  if (strcmp(online, pus) != 0) {
    char m[ERR_LEN];
    snprintf(m, sizeof m,
             "topology %.300s describes CPUs %.200s but this node has CPUs %.200s: fix topology= in plugstack.conf "
             "(--pin-dryrun previews it without binding)",
             config.topology, pus, online);
    return fail(m), -1;
  }
  return 0;
}

/* 1 when the job holds every CPU of this node (`all`, LIST_LEN long, gets
 * them), 0 when it shares it, -1 (failure set) when Slurm cannot say. */
static int job_has_node(spank_t sp, char *all) {
  char *job_cores = NULL;
  static char job_pus[LIST_LEN];
  if (spank_get_item(sp, S_JOB_ALLOC_CORES, &job_cores) != ESPANK_SUCCESS || !job_cores ||
      sp_cores_to_pus(placement, job_cores, job_pus, sizeof job_pus) < 0 ||
      sp_topology_pus(placement, all, LIST_LEN) < 0)
    return fail("cannot read the job's allocated cores (S_JOB_ALLOC_CORES)"), -1;
  return strcmp(all, job_pus) == 0;
}

/* The step's CPUs on this node: its cores (Slurm numbers them as hwloc's
 * logical cores) as PUs, within what slurmstepd may use; with whole_node,
 * every CPU of a node the job holds whole for a step of one task there. */
static int step_cpus(spank_t sp, uint32_t ntasks, char *cpus, size_t len) {
  char *cores = NULL;
  static char pus[LIST_LEN];
  if (spank_get_item(sp, S_STEP_ALLOC_CORES, &cores) != ESPANK_SUCCESS || !cores || !*cores)
    return fail("cannot read this step's allocated cores (S_STEP_ALLOC_CORES)"), -1;
  if (sp_cores_to_pus(placement, cores, pus, sizeof pus) < 0) return fail(sp_error(placement)), -1;
  if (config.exclusive_only || (config.whole_node && ntasks == 1)) {
    static char all[LIST_LEN];
    int whole = job_has_node(sp, all);
    if (whole < 0) return -1;
    if (!whole && config.exclusive_only) return -2; /* the job shares the node: stay out of the way */
    if (whole && config.whole_node && ntasks == 1) strcpy(pus, all);
  }
  return snprintf(cpus, len, "%s", pus) < (int)len ? 0 : (fail("too many CPUs in this step"), -1);
}

/* OMP_NUM_THREADS, as the engine reads it; unset: one thread per core. */
static int threads_wanted(spank_t sp) {
  static char value[LIST_LEN];
  int rc = spank_getenv(sp, "OMP_NUM_THREADS", value, sizeof value);
  if (rc == ESPANK_ENV_NOEXIST) return 0;
  if (rc != ESPANK_SUCCESS) return fail("OMP_NUM_THREADS is too long to be a thread count"), -1;
  if (sp_set_omp_num_threads(placement, value) != 0) return fail(sp_error(placement)), -1;
  return 0;
}

/* How the task is bound beyond its CPUs: threads, memory, what the task is
 * told (the policy's decision, read from the job record). */
static int set_binding(const char *strategy) {
  char origin[200] = "";
  if (policy.present && policy.applies && strcmp(strategy, policy.strategy) == 0)
    snprintf(origin, sizeof origin, "policy rule %s", policy.rule);
  if (sp_set_thread_mode(placement, pin_effective_threads(&request)) ||
      sp_set_thread_library(placement, config.threads_lib) ||
      sp_set_mem_policy(placement, pin_effective_mem(&config, &request, &policy)) ||
      sp_set_legacy_omp_env(placement, config.legacy_omp_env) || sp_set_origin(placement, origin))
    return fail(sp_error(placement)), -1;
  return 0;
}

/* Whether any of `names` is set in the task's environment. */
static int any_set(spank_t sp, const char *const *names) {
  static char value[8192];
  for (const char *const *name = names; *name; ++name)
    if (spank_getenv(sp, *name, value, sizeof value) != ESPANK_ENV_NOEXIST) return 1;
  return 0;
}

/* The GPU mode in force: the user's --pin-gpu, else the site's gpu= for a
 * job Slurm gave GPUs (its variables are set); "" otherwise. */
static const char *gpu_mode(spank_t sp) {
  if (request.gpu[0]) return request.gpu;
  if (strcmp(config.gpu, "closest") != 0) return "";
  return any_set(sp, slurm_gpu_list_names) || any_set(sp, sp_job_gpu_variable_names()) ? config.gpu : "";
}

static int gpu_list_too_long(const char *name) {
  char m[ERR_LEN];
  snprintf(m, sizeof m, "%s is too long to be a list of GPUs", name);
  return fail(m), -1;
}

/* Device locality, in the mode gpu_mode() names. The job's view of its GPUs
 * goes to the engine as the job has it, and which of the node's GPUs they
 * are as Slurm says (the step's list, else the job's). */
static int set_gpus(spank_t sp) {
  if (strcmp(gpu_mode(sp), "closest") != 0) return 0;
  static char value[8192];
  for (const char *const *name = sp_job_gpu_variable_names(); *name; ++name) {
    int rc = spank_getenv(sp, *name, value, sizeof value);
    if (rc == ESPANK_ENV_NOEXIST) continue;
    if (rc != ESPANK_SUCCESS || sp_set_job_gpu_variable(placement, *name, value) != 0) return gpu_list_too_long(*name);
  }
  for (const char *const *name = slurm_gpu_list_names; *name; ++name) {
    int rc = spank_getenv(sp, *name, value, sizeof value);
    if (rc == ESPANK_ENV_NOEXIST || (rc == ESPANK_SUCCESS && !value[0])) continue;
    if (rc != ESPANK_SUCCESS || sp_set_job_gpus(placement, value) != 0) return gpu_list_too_long(*name);
    break;
  }
  return sp_set_gpu_locality(placement, "closest") == 0 ? 0 : (fail(sp_error(placement)), -1);
}

/* SLURM_CPU_BIND_LIST for the step's placement on this node (one mask per
 * task), made once per step for every task's environment. */
static char *cpu_bind_list;

static int task_cpus_of(const void *p, int task, char *buf, size_t len) {
  return sp_get_task_cpus(p, task, buf, len);
}

static int describe_in_slurm_terms(void) {
  free(cpu_bind_list);
  cpu_bind_list = slurm_cpu_bind_list(sp_get_ntasks(placement), task_cpus_of, placement);
  return cpu_bind_list ? 0 : (fail("cannot describe the binding in SLURM_CPU_BIND: out of memory"), -1);
}

/* The node's placement cache (placement_cache.h), found when the step is
 * placed; the first task's privileged hook writes into it. */
static char placements_dir[PATH_MAX + 16];

/* More tasks than CPUs on this node: Slurm oversubscribed the step itself
 * (srun -O, --overcommit), so its tasks share CPUs, spread evenly. */
static int overcommitted(const char *cpus, uint32_t ntasks) {
  struct cpu_place set;
  if (cpu_place_parse(cpus, strlen(cpus), &set) != 0) return 0;
  int n = CPU_COUNT_S(set.size, set.set);
  cpu_place_free(&set);
  return ntasks > (uint32_t)n;
}

static int compute(spank_t sp, const char *strategy, const char *profile) {
  if (placement_cache_dir(config.run_dir, placements_dir, sizeof placements_dir) != 0)
    return fail("run_dir= is too long"), -1;
  uint32_t ntasks = 0;
  int rc;
  static char cpus[LIST_LEN];
  placement = sp_init();
  if (!placement) return fail("out of memory"), -1;
  if (sp_set_topology(placement, config.topology[0] ? config.topology : "this") != 0 ||
      sp_set_topology_cache(placement, cache_path()) != 0)
    return fail(sp_error(placement)), -1;
  if (config.topology[0] && !request.dryrun && check_topology_file() != 0) return -1;
  if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS || ntasks == 0)
    return fail("cannot read the number of tasks on this node"), -1;
  if ((rc = step_cpus(sp, ntasks, cpus, sizeof cpus)) != 0) return rc;
  if (threads_wanted(sp) != 0 || set_binding(strategy) != 0 || set_gpus(sp) != 0) return -1;
  /* A dry run shows the placement for the topology as configured, even one
   * larger than this machine; a real binding never leaves slurmstepd's CPUs. */
  if (sp_set_restrict(placement, cpus) || sp_set_restrict_to_process(placement, !request.dryrun) ||
      sp_set_strategy(placement, strategy) || sp_set_tasks(placement, (int)ntasks) ||
      sp_set_granularity(placement, pin_effective_granularity(&config, &request, &policy)) ||
      sp_set_oversubscribe(placement, pin_effective_oversubscribe(&config, &request) || overcommitted(cpus, ntasks)) ||
      sp_set_phases(placement, request.phases, 0) ||
      sp_set_smt(placement, request.smt[0] ? atoi(request.smt) : 0) ||
      sp_set_budget(placement, (size_t)config.max_file, config.max_time) ||
      sp_set_placement_cache(placement, config.placement_cache > 0 ? placements_dir : NULL) ||
      (*profile && sp_set_profile(placement, profile, config.store, "simple", NULL)) ||
      sp_compute(placement))
    return fail(sp_error(placement)), -1;
  return request.dryrun ? 0 : describe_in_slurm_terms(); /* a dry run sets no task's environment */
}

/* Which profile is in force and where it comes from: 1 when from a default
 * rule of the policy (the user chose none), 2 from an enforced rule, 0
 * otherwise. */
static int profile_from_policy(void) {
  if (!policy.present || !policy.applies || !policy.profile[0]) return 0;
  if (policy.enforce) return 2;
  return request.profile[0] ? 0 : 1; /* the user's own profile wins over a default */
}

/* The strategy a step or rank places with, without the profile, when a
 * default rule's profile does not fit it. */
static const char *without_profile(const char *strategy) {
  return sp_strategy_needs_profile(strategy) == 1 ? "compact" : strategy;
}

/* The step placed as the request and the policy say. A default rule's
 * profile that does not fit the step (none for its thread count, none at
 * all) yields: the rule's strategy without a profile when it needs none,
 * else compact, with a note; an enforced rule that cannot apply fails the
 * step with one line naming the rule. */
static int compute_with_policy(spank_t sp, const char *strategy) {
  int from = profile_from_policy();
  int rc = compute(sp, strategy, pin_effective_profile(&request, &policy));
  if (rc != -1 || !from) return rc;
  char why[ERR_LEN], m[ERR_LEN];
  snprintf(why, sizeof why, "%s", failure);
  if (from == 2) {
    failure[0] = '\0';
    policy_enforced_error(m, sizeof m, policy.rule, "step", why);
    return fail(m), -1;
  }
  const char *instead = without_profile(strategy);
  failure[0] = '\0';
  sp_finalize(placement);
  placement = NULL;
  if ((rc = compute(sp, instead, "")) != 0) return rc;
  policy_yield_note(note_text, sizeof note_text, policy.rule, policy.profile, why, instead);
  return 0;
}

/* The decision job_submit.lua recorded for this job, as the job's first
 * step on this node read and kept it (job_decision.h); slurmstepd, root,
 * before the step's privileges are dropped. The task's environment is never trusted
 * for it (a user can set any variable). */
static int read_policy(spank_t sp) {
  memset(&policy, 0, sizeof policy);
  policy_text[0] = '\0';
  if (!config.policy) return 0;
  uint32_t job_id = 0;
  char err[ERR_LEN];
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || !job_id)
    return fail("cannot read this job's id for the site policy's decision"), -1;
  if (job_decision_read(config.run_dir, job_id, job_decision_node(), policy_text, sizeof policy_text, err,
                        sizeof err) != 0)
    return fail(err), -1;
  if (pin_policy_parse(policy_text, &policy) != 0) {
    slurm_error("slurm-pin: ignoring a malformed policy decision in the job's AdminComment");
    memset(&policy, 0, sizeof policy);
    policy_text[0] = '\0';
  }
  return 0;
}

/* The site's rules, checked again where the user cannot reach: whatever
 * the source of a value (srun's options, their environment twins, the
 * policy's decision), slurmstepd refuses what plugstack.conf forbids. */
static int site_allows(const char *strategy) {
  char err[ERR_LEN], m[ERR_LEN];
  /* "none" needs no engine: a step slurm-pin leaves alone does not load it. */
  if (strcmp(strategy, "none") == 0) {
    if (pin_check_site_rules(&config, strategy, err, sizeof err) != 0) return fail(err), -1;
  } else if (pin_engine_load(err, sizeof err) != 0) {
    return fail(err), -1;
  } else if (pin_config_check(&config, err, sizeof err) != 0) {
    snprintf(m, sizeof m, "plugstack.conf: %.900s", err);
    return fail(m), -1;
  } else if (pin_check_strategy(&config, strategy, err, sizeof err) != 0) {
    return fail(err), -1;
  }
  if (pin_check_enforced(&config, &request, err, sizeof err) != 0) return fail(err), -1;
  if (request.dryrun && (config.enforce || (policy.present && policy.applies && policy.enforce))) {
    snprintf(m, sizeof m, "--pin-dryrun: %s binds every step of this job: remove --pin-dryrun",
             config.enforce ? "this cluster (enforce in plugstack.conf)" : "the site policy (an enforced rule)");
    return fail(m), -1;
  }
  return 0;
}

/* The thread library: configured (threads_lib=) or beside the plugin, and
 * readable by the user, or the step does not run. */
static int locate_threads_lib(void) {
  char err[ERR_LEN], m[ERR_LEN + 128];
  if (config.threads_lib[0]) {
    if (sp_check_thread_library(config.threads_lib, err, sizeof err) == 0) return 0;
    snprintf(m, sizeof m, "threads_lib= in plugstack.conf cannot be used: %.900s", err);
    return fail(m), -1;
  }
  Dl_info self;
  const char *plugin = dladdr((void *)&slurm_spank_init, &self) ? self.dli_fname : "";
  if (sp_find_thread_library(plugin, config.threads_lib, sizeof config.threads_lib, err, sizeof err) != 0) {
    snprintf(m, sizeof m, "%.900s (or set threads_lib= in plugstack.conf)", err);
    return fail(m), -1;
  }
  return 0;
}

/* preload and ompt load the thread library into the program. */
static int find_threads_lib(void) {
  return strcmp(pin_effective_threads(&request), "env") == 0 ? 0 : locate_threads_lib();
}

/* The components of this heterogeneous step (SLURM_HET_SIZE, or its old
 * name), 0 otherwise. */
static int het_size(spank_t sp) {
  char size[16];
  if (spank_getenv(sp, "SLURM_HET_SIZE", size, sizeof size) != ESPANK_SUCCESS &&
      spank_getenv(sp, "SLURM_PACK_SIZE", size, sizeof size) != ESPANK_SUCCESS)
    return 0;
  int n = atoi(size);
  return n > 0 && n <= MAX_COMPONENTS ? n : 0;
}

/* Which component this is: each has its own job id (S_JOB_ID), and srun
 * gives every task the ids of all components. -1: not found. */
static int het_component(spank_t sp, int size) {
  uint32_t job = 0;
  if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS) return -1;
  const char *prefixes[] = {"SLURM_JOB_ID_HET_GROUP_", "SLURM_JOB_ID_PACK_GROUP_"};
  for (int k = 0; k < size; ++k)
    for (int p = 0; p < 2; ++p) {
      char name[64], id[32];
      snprintf(name, sizeof name, "%s%d", prefixes[p], k);
      if (spank_getenv(sp, name, id, sizeof id) == ESPANK_SUCCESS && strtoul(id, NULL, 10) == job) return k;
    }
  return -1;
}

/* A component of `srun A : B` runs with its own --pin-* options, which srun
 * exported (save_component); SPANK's values are those of the last
 * component. Without them (one srun for several components, as
 * `srun --het-group=0,1`), every component has the same options. */
static int use_component_options(spank_t sp) {
  int size = het_size(sp), k = size ? het_component(sp, size) : -1;
  if (k < 0) return 0;
  char name[64];
  static char value[PATH_MAX * 3 + PIN_STRATEGY_MAX * 3 + 256];
  snprintf(name, sizeof name, PIN_COMPONENT_ENV "%d", k);
  int rc = spank_getenv(sp, name, value, sizeof value);
  if (rc == ESPANK_ENV_NOEXIST) return 0;
  struct pin_request mine;
  char err[ERR_LEN];
  if (rc != ESPANK_SUCCESS || pin_request_parse(value, &mine) != 0 || pin_check_request(&mine, err, sizeof err) != 0) {
    char m[ERR_LEN];
    snprintf(m, sizeof m, "%s is malformed: leave it to srun, which sets it for heterogeneous steps", name);
    return fail(m), -1;
  }
  request = mine;
  return 0;
}

/* A launcher's daemon or a batch script: nothing is placed for it; what
 * its ranks need is prepared (launcher_step.h). */
static int prepare_launcher(spank_t sp, const char *strategy) {
  char err[ERR_LEN];
  uint32_t ntasks = 0;
  /* The ranks start through the runtime, preloaded into the daemon,
   * whatever their own thread binding. */
  if (locate_threads_lib() != 0) return -1;
  Dl_info self;
  const char *plugin = dladdr((void *)&slurm_spank_init, &self) ? self.dli_fname : "";
  if (launcher_find_command(plugin, launcher.command, sizeof launcher.command, err, sizeof err) != 0)
    return fail(err), -1;
  placement = sp_init();
  if (!placement) return fail("out of memory"), -1;
  if (sp_set_topology(placement, config.topology[0] ? config.topology : "this") != 0 ||
      sp_set_topology_cache(placement, cache_path()) != 0)
    return fail(sp_error(placement)), -1;
  if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS || ntasks == 0)
    return fail("cannot read the number of tasks on this node"), -1;
  int rc = step_cpus(sp, ntasks, launcher.node_cpus, sizeof launcher.node_cpus);
  if (rc != 0) return rc;
  struct pin_request ranks = request;
  snprintf(ranks.strategy, sizeof ranks.strategy, "%s", strategy);
  ranks.strategy_set = 1;
  snprintf(ranks.profile, sizeof ranks.profile, "%s", pin_effective_profile(&request, &policy));
  snprintf(ranks.mem, sizeof ranks.mem, "%s", pin_effective_mem(&config, &request, &policy));
  snprintf(ranks.granularity, sizeof ranks.granularity, "%s", pin_effective_granularity(&config, &request, &policy));
  snprintf(ranks.threads, sizeof ranks.threads, "%s", pin_effective_threads(&request));
  snprintf(ranks.gpu, sizeof ranks.gpu, "%s", gpu_mode(sp));
  ranks.verbose = request.verbose || config.verbose;
  ranks.oversubscribe = pin_effective_oversubscribe(&config, &request);
  char origin[200] = "";
  if (policy.present && policy.applies && strcmp(strategy, policy.strategy) == 0)
    snprintf(origin, sizeof origin, "policy rule %s", policy.rule);
  const char *cache = cache_path();
  const char *node = job_decision_node();
  /* A rule's profile that does not fit a rank: as compute_with_policy. */
  int from = profile_from_policy();
  const char *rule = from ? policy.rule : "", *mode = from == 2 ? "enforce" : from ? "default" : "";
  const char *fallback = from == 1 ? without_profile(strategy) : "";
  struct rank_request r = {&ranks, &config, cache ? cache : "", policy_text, origin, launcher.name, node ? node : "",
                           rule, mode, fallback};
  if (launcher_rank_options(&r, launcher.options, sizeof launcher.options) != 0)
    return fail("the ranks' options are too long to pass on"), -1;
  launcher.on = 1;
  return 0;
}

/* The step's program is an MPI launcher's daemon: named as one, and root's
 * alone where the task's PATH finds it (launcher_program_trusted); its
 * name in launcher.name. Anything else is an ordinary step, placed (and
 * under enforce, bound) as any other. */
static int is_launcher_daemon(spank_t sp) {
  int argc = 0;
  char **argv = NULL, why[ERR_LEN];
  static char path[LIST_LEN];
  if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS || argc < 1 || !argv[0] ||
      !launcher_named(config.launchers, argv[0], launcher.name, sizeof launcher.name))
    return 0;
  if (spank_getenv(sp, "PATH", path, sizeof path) != ESPANK_SUCCESS) path[0] = '\0';
  if (launcher_program_trusted(argv[0], path, why, sizeof why)) return 1;
  slurm_debug("slurm-pin: %s is placed as an ordinary program, not as a launcher's daemon: %s", argv[0], why);
  return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av) {
  (void)ac, (void)av;
  if (!spank_remote(sp) || active < 0) return 0;
  int batch = is_batch_step(sp);
  if (!batch && !is_application_step(sp)) return 0;
  /* A batch script is placed for the ranks an mpirun in it may start
   * itself, when the job asked for a strategy and launchers are on. */
  if (batch && strcmp(config.launchers, "none") == 0) return 0;
  if (batch) snprintf(launcher.name, sizeof launcher.name, "batch script");
  if (use_component_options(sp) != 0 || failure[0]) return active = 1, 0; /* task_init reports it */
  const char *strategy = pin_effective_strategy(&config, &request, &policy);
  if (strcmp(strategy, "none") == 0 && batch) return 0;
  if (site_allows(strategy) != 0) return active = 1, 0;
  if (strcmp(strategy, "none") == 0) return 0;
  if (batch || is_launcher_daemon(sp)) {
    int rc = prepare_launcher(sp, strategy);
    active = rc == -2 ? 0 : 1;
    return 0;
  }
  if (find_threads_lib() != 0) return active = 1, 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = compute_with_policy(sp, strategy);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  /* What the step's launch waited for on this node (SlurmdDebug=debug;
   * bench/srun reads it). */
  slurm_debug("slurm-pin: step placed in %.3f ms (strategy %s%s)",
              (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6, strategy,
              rc == 0 && sp_get_cached(placement) == 1 ? ", from the node's placement cache" : "");
  active = rc == -2 ? 0 : 1; /* -2: exclusive_only and a shared node */
  return 0;                  /* errors end the step in task_init, never here */
}

/* ---- slurmstepd: each task, just before exec --------------------------- */

/* Which task this is; the engine holds everything else. */
struct task_view {
  int task, rank;
  char node[256];
};

static int read_task(spank_t sp, struct task_view *v) {
  uint32_t rank = 0;
  if (spank_get_item(sp, S_TASK_ID, &v->task) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS)
    return fail("cannot read the task id"), -1;
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
static void describe(const struct task_view *v) {
  char what[ERR_LEN], note[ERR_LEN]; /* one line each: cut to a terminal's worth */
  const char *run = request.dryrun ? "dry run: " : "";
  int n = sp_describe_task(placement, v->task, what, sizeof what);
  stderr_line("slurm-pin: %s%s task %d (rank %d): %s\n", run, v->node, v->task, v->rank,
              n < 0 ? sp_error(placement) : what);
  if (v->task != 0) return;
  for (int i = 0; i < sp_get_nnotes(placement); ++i)
    if (sp_get_note(placement, i, note, sizeof note) >= 0) say_note(run, v->node, note);
  say_note(run, v->node, note_text);
}

/* A text output of the engine too long for a fixed buffer (a variable's
 * value, the task data): asked its length, then read into malloc'd memory
 * (the caller frees it); NULL with the engine's error. get(NULL, 0) is the
 * first call. */
#define ENGINE_TEXT(out, call_with_buf_len)                                  \
  do {                                                                       \
    char *buf = NULL;                                                        \
    size_t len = 0;                                                          \
    int n_ = (call_with_buf_len);                                            \
    if (n_ >= 0 && (buf = malloc((len = (size_t)n_ + 1))) != NULL &&         \
        (call_with_buf_len) < 0) {                                           \
      free(buf);                                                             \
      buf = NULL;                                                            \
    }                                                                        \
    (out) = buf;                                                             \
  } while (0)

static int spank_set(void *sp, const char *name, const char *value) {
  return spank_setenv((spank_t)sp, name, value, 1) == ESPANK_SUCCESS ? 0 : -1;
}

/* The engine's environment for this task, variable by variable; then what
 * only Slurm's tasks are told: SLURM_CPU_BIND* saying what slurm-pin's
 * binding is (Slurm's said what its own was, which this replaces; nested
 * launchers read it), and the policy's decision as read from the node. */
static int export_env(spank_t sp, const struct task_view *v) {
  static char current[LIST_LEN];
  for (int i = 0; i < sp_get_env_count(placement); ++i) {
    char name[256];
    int n = sp_get_env_name(placement, i, name, sizeof name);
    if (n < 0 || (size_t)n >= sizeof name) return fail("the engine names a variable it cannot"), -1;
    int got = spank_getenv(sp, name, current, sizeof current);
    if (got != ESPANK_SUCCESS && got != ESPANK_ENV_NOEXIST) {
      char m[ERR_LEN];
      snprintf(m, sizeof m, "%s is too long to extend", name);
      return fail(m), -1;
    }
    const char *now = got == ESPANK_SUCCESS ? current : NULL;
    if (sp_get_env_value(placement, v->task, i, now, NULL, 0) == SP_ENV_UNSET) {
      if (spank_unsetenv(sp, name) != ESPANK_SUCCESS) return fail("cannot set the task's environment"), -1;
      continue;
    }
    char *value;
    ENGINE_TEXT(value, sp_get_env_value(placement, v->task, i, now, buf, len));
    if (!value) return fail(*sp_error(placement) ? sp_error(placement) : "out of memory"), -1;
    int rc = spank_setenv(sp, name, value, 1);
    free(value);
    if (rc != ESPANK_SUCCESS) return fail("cannot set the task's environment"), -1;
  }
  int rc = policy_text[0] ? spank_setenv(sp, SP_ENV_POLICY, policy_text, 1) : spank_unsetenv(sp, SP_ENV_POLICY);
  if (rc != ESPANK_SUCCESS || slurm_cpu_bind_export(cpu_bind_list, spank_set, sp) != 0)
    return fail("cannot set the task's environment"), -1;
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
static void keep_placement(void) {
  char err[ERR_LEN];
  if (placements_dir[0] && placement_cache_store(placements_dir, placement, config.placement_cache, err, sizeof err) != 0)
    slurm_info("slurm-pin: %s", err);
}

/* Root, in the first task's process before privileges are dropped: the
 * node's placement cache is root's. */
int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av) {
  (void)ac, (void)av;
  int task = -1;
  if (active <= 0 || launcher.on || failure[0] || spank_get_item(sp, S_TASK_ID, &task) != ESPANK_SUCCESS) return 0;
  if (task == 0) keep_placement();
  return 0;
}

/* What the task's thread library reads and its environment cannot hold
 * (the task file, common/task_env.h): in an anonymous file the task
 * inherits (common/task_file.h), made here, as the user, in the task's own
 * process: nothing root writes, nothing another user can read, nothing
 * left when the task ends. */
static int export_task_file(spank_t sp, const struct task_view *v) {
  char *data;
  ENGINE_TEXT(data, sp_get_task_data(placement, v->task, buf, len));
  if (!data) return fail(*sp_error(placement) ? sp_error(placement) : "out of memory"), -1;
  if (!data[0]) return free(data), 0; /* the task needs none */
  char path[64], m[ERR_LEN];
  int made = task_file_create(data, strlen(data), path, sizeof path), e = errno;
  free(data);
  if (made != 0) {
    snprintf(m, sizeof m, "cannot keep the task's places for its thread library: %s", strerror(e));
    return fail(m), -1;
  }
  if (spank_setenv(sp, SP_ENV_TASK_FILE, path, 1) != ESPANK_SUCCESS) return fail("cannot set the task's environment"), -1;
  return 0;
}

/* Binding variables the task inherited (from a batch script, a launcher,
 * the user) that describe no binding of this task: removed, so that what
 * the task sees is what slurm-pin did, or nothing. */
static void drop_inherited_binding(spank_t sp) {
  static const char *const names[] = SP_ENV_BINDING_NAMES;
  static char preload[LIST_LEN], kept[LIST_LEN], external[sizeof SP_EXTERNAL_LAUNCHER_MARK];
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
static int start_launcher(spank_t sp, struct task_view *v) {
  static char preload[LIST_LEN], value[LIST_LEN + PATH_MAX];
  if (read_task(sp, v) != 0) return -1;
  int rc = spank_getenv(sp, "LD_PRELOAD", preload, sizeof preload);
  if (rc == ESPANK_SUCCESS && preload[0]) snprintf(value, sizeof value, "%s %s", preload, config.threads_lib);
  else snprintf(value, sizeof value, "%s", config.threads_lib);
  if ((rc != ESPANK_SUCCESS && rc != ESPANK_ENV_NOEXIST) || spank_setenv(sp, "LD_PRELOAD", value, 1) ||
      spank_setenv(sp, SP_ENV_RANK_OPTIONS, launcher.options, 1) ||
      spank_setenv(sp, SP_ENV_NODE_CPUS, launcher.node_cpus, 1) ||
      spank_setenv(sp, SP_ENV_RANK_WRAPPER, launcher.command, 1))
    return fail("cannot set the launcher's environment for its ranks"), -1;
  if (request.verbose || config.verbose || request.dryrun)
    stderr_line("slurm-pin: %s task %d (rank %d): %s, left as Slurm placed it; its ranks are placed by local "
            "rank on CPUs %s (strategy %s)\n", v->node, v->task, v->rank, launcher.name, launcher.node_cpus,
            pin_effective_strategy(&config, &request, &policy));
  return 0;
}

/* preload and ompt: the program must take the library, or its threads
 * would stay where the task is while the verbose line names places. */
static int check_program(spank_t sp) {
  if (strcmp(pin_effective_threads(&request), "env") == 0) return 0;
  int argc = 0;
  char **argv = NULL, err[ERR_LEN];
  static char path[LIST_LEN];
  if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS || argc < 1 || !argv[0]) return 0;
  if (spank_getenv(sp, "PATH", path, sizeof path) != ESPANK_SUCCESS) path[0] = '\0';
  return sp_check_preloadable(argv[0], path, err, sizeof err) == 0 ? 0 : (fail(err), -1);
}

static int pin_task(spank_t sp, struct task_view *v) {
  if (read_task(sp, v) != 0) return -1;
  drop_component_options(sp);
  if (request.dryrun) return describe(v), 0;
  if (check_program(sp) != 0) return -1;
  if (sp_bind_task(placement, v->task) != 0) return fail(sp_error(placement)), -1;
  if (export_env(sp, v) != 0 || export_task_file(sp, v) != 0) return -1;
  if (request.verbose || config.verbose) describe(v);
  return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
  (void)ac, (void)av;
  if (spank_remote(sp) && active >= 0 && (is_application_step(sp) || is_batch_step(sp))) drop_inherited_binding(sp);
  if (active <= 0) return 0;
  struct task_view view;
  if (!failure[0]) launcher.on ? start_launcher(sp, &view) : pin_task(sp, &view);
  if (failure[0]) {
    /* This is the forked task, before exec: end it with the one line that
     * explains why. Returning -1 would do the same with three more lines of
     * Slurm's own; every task fails alike, so nothing runs half-bound.
     * The node is named here: since 25.05 Slurm's prefix no longer does. */
    const char *node = job_decision_node();
    slurm_error("%s: slurm-pin: %s", node ? node : "this node", failure);
    fflush(NULL);
    _exit(1);
  }
  return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av) {
  (void)sp, (void)ac, (void)av;
  sp_finalize(placement);
  placement = NULL;
  free(cpu_bind_list);
  cpu_bind_list = NULL;
  return 0;
}

/* ---- the job's epilog, on each node, as root ------------------------------ */

/* plugstack.conf's arguments, as the hooks of a job script get them. No
 * slurmctld RPC here: Slurm 24.11's job scripts have no RPC layer. */
static int job_script_config(int ac, char **av, uint32_t *job, spank_t sp) {
  char err[ERR_LEN];
  pin_config_defaults(&config);
  if (pin_config_parse(&config, ac, av, err, sizeof err) != 0) {
    slurm_error("slurm-pin: plugstack.conf: %s", err);
    return -1;
  }
  return spank_get_item(sp, S_JOB_ID, job) == ESPANK_SUCCESS ? 0 : -1;
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av) {
  uint32_t job = 0;
  if (job_script_config(ac, av, &job, sp) == 0) job_decision_forget(config.run_dir, job, job_decision_node());
  return 0;
}
