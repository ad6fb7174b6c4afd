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

#define ERR_LEN 1024
#define LIST_LEN 65536

/* srun: the components of a heterogeneous step whose options are parsed;
 * Slurm allows at most 128 (MAX_HET_JOB_COMPONENTS). */
#define MAX_COMPONENTS 128

/* What slurm-pin does for the step on this node. */
enum step_state {
  STEP_LEFT_ALONE = 0, /* nothing: no strategy, not an application step, a shared node (exclusive_only) */
  STEP_PINNED,         /* placed, or its launcher's ranks prepared: task_init binds */
  STEP_FAILING,        /* `failure` ends every task, in task_init (never a failing hook) */
  STEP_UNCONFIGURED,   /* plugstack.conf is wrong (logged): stay out of the way */
};

struct pin_step;

/* What the placing helper is given: the step as slurmstepd knew it when it
 * started the helper. */
struct helper_job {
  struct pin_step *s;
  spank_t sp;
  const char *strategy;
  int batch;
  struct timespec started; /* in the helper */
  /* The most the helper may allocate (bytes), and the step's own memory
   * on this node when that is what caps it (MiB; 0: max_memory= does). */
  unsigned long long memory, step_mib;
};

/* One step on this node (slurmstepd), or one srun, sbatch or salloc: all
 * the plugin knows of it, handed to every function that uses it, as
 * Slurm's task plugins are handed their step record. SPANK's hooks and
 * option callbacks take no context: each starts from the one instance,
 * `this_step`, and hands it on. */
struct pin_step {
  enum step_state state;
  struct pin_config config;   /* plugstack.conf */
  struct pin_request request; /* the --pin-* options */
  struct pin_policy policy;   /* the site policy's decision for this job, if any */
  char policy_text[PIN_POLICY_TEXT_MAX]; /* that decision as recorded (read_policy) */
  sp_placement_t *placement;  /* computed by the placing helper (never in slurmstepd) */
  struct step_plan plan;      /* what the helper found for the tasks (step_plan.h) */
  /* The placing helper (placing_helper.h): started once the step is known
   * (init_post_opt, else user_init), finished in user_init. */
  enum { PLACING_NOT_YET = 0, PLACING_STARTED, PLACING_DONE } placing;
  struct placing_helper helper;
  struct helper_job job;
  double helper_ms;           /* its own time placing the step */
  long helper_peak_kib;       /* its peak resident memory */
  char failure[ERR_LEN];      /* found by user_init, reported by task_init */
  char note_text[ERR_LEN];    /* the plugin's own note for verbose users (a rule's profile that did not fit) */
  char env_note[ERR_LEN];     /* what the policy's env set in the step (apply_policy_env) */
  /* How threads are bound on this node (set in the placing helper): the
   * request's mode, or env where auto cannot preload the thread library (a
   * static program, no library). */
  char threads_mode[16];
  /* This step is an MPI launcher's daemon, or a batch script
   * (launcher_step.h): left as Slurm placed it, its ranks place themselves. */
  struct {
    int on;
    char name[64];              /* the daemon's program, or "batch script" */
    char command[PATH_MAX];     /* slurm-pin, which starts each rank */
    char options[PATH_MAX * 4]; /* SLURM_PIN_RANK_OPTIONS */
    char node_cpus[LIST_LEN];   /* the CPUs the node's ranks share */
  } launcher;
  /* srun, sbatch, salloc: a --pin-* option (or its environment twin) was
   * given, so the engine is loaded and every value checked (once: checked);
   * jobs without one leave the engine unloaded (engine_link.h). */
  int options_given, site_checked;
  struct pin_request components[MAX_COMPONENTS]; /* srun A : B, each component's options */
  int component_count;
  char component_variable[64]; /* slurmstepd: the variable this component's options came from */
  char yielded_cpu_bind[256]; /* srun: the user's --cpu-bind a site default yielded to (policy) */
  char cmdline[65536];        /* srun's, sbatch's own command line (own_cmdline) */
  char *cpu_bind_list;        /* SLURM_CPU_BIND_LIST of the step on this node, made once for every task */
  char placements_dir[PATH_MAX + 16]; /* the node's placement cache (placement_cache.h) */
  char topology_cache[PATH_MAX + 16]; /* where slurmd saved the node's topology (cache_path) */
  char cpus[LIST_LEN];        /* the step's CPUs on this node */
  char step_pus[LIST_LEN];    /* the step's cores as PUs (step_cpus) */
  char node_pus[LIST_LEN];    /* every PU of the node (step_cpus, for whole_node and exclusive_only) */
};

static struct pin_step this_step;


static int is_application_step(spank_t sp);
static int is_batch_step(spank_t sp);
static int read_policy(struct pin_step *s, spank_t sp);
static void apply_policy_env(struct pin_step *s, spank_t sp);
static int check_program(struct pin_step *s, spank_t sp);
static void start_early(struct pin_step *s, spank_t sp);

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

/* Where slurmd saved this node's topology, or NULL (topology= or none). */
static const char *cache_path(struct pin_step *s) {
  if (s->config.topology[0] || strcmp(s->config.topology_cache, "none") == 0) return NULL;
  if (s->config.topology_cache[0]) return s->config.topology_cache;
  snprintf(s->topology_cache, sizeof s->topology_cache, "%s/topology.xml", s->config.run_dir);
  return s->topology_cache;
}

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

/* The step fails with `message` (cut, never overflowed; the first failure
 * wins), which task_init reports: -1, for the caller to return. */
static int fail(struct pin_step *s, const char *message) {
  if (!s->failure[0]) snprintf(s->failure, sizeof s->failure, "%.*s", (int)sizeof s->failure - 1, message);
  return -1;
}

/* A topology= file must describe this node: the same CPUs as the kernel's
 * online set (cheap to read, unlike a full discovery). */
static int check_topology_file(struct pin_step *s) {
  char online[LIST_LEN], pus[LIST_LEN];
  FILE *f = fopen("/sys/devices/system/cpu/online", "r");
  if (!f) return 0; /* nothing to compare with */
  int ok = fgets(online, sizeof online, f) != NULL;
  fclose(f);
  if (!ok) return 0;
  online[strcspn(online, "\n")] = '\0';
  if (sp_topology_pus(s->placement, pus, sizeof pus) < 0) return fail(s, sp_error(s->placement));
  if (strcmp(online, pus) != 0) {
    char m[ERR_LEN];
    snprintf(m, sizeof m,
             "topology %.300s describes CPUs %.200s but this node has CPUs %.200s: fix topology= in plugstack.conf "
             "(--pin-dryrun previews it without binding)",
             s->config.topology, pus, online);
    return fail(s, m);
  }
  return 0;
}

/* 1 when the job holds every CPU of this node (`all`, LIST_LEN long, gets
 * them), 0 when it shares it, -1 (failure set) when Slurm cannot say. */
static int job_has_node(struct pin_step *s, spank_t sp, char *all) {
  char *job_cores = NULL;
  char job_pus[LIST_LEN];
  if (spank_get_item(sp, S_JOB_ALLOC_CORES, &job_cores) != ESPANK_SUCCESS || !job_cores ||
      sp_cores_to_pus(s->placement, job_cores, job_pus, sizeof job_pus) < 0 ||
      sp_topology_pus(s->placement, all, LIST_LEN) < 0)
    return fail(s, "cannot read the job's allocated cores (S_JOB_ALLOC_CORES)");
  return strcmp(all, job_pus) == 0;
}

/* The step's CPUs on this node: its cores (Slurm numbers them as hwloc's
 * logical cores) as PUs, within what slurmstepd may use; with whole_node,
 * every CPU of a node the job holds whole for a step of one task there. */
static int step_cpus(struct pin_step *s, spank_t sp, uint32_t ntasks, char *cpus, size_t len) {
  char *cores = NULL;
  if (spank_get_item(sp, S_STEP_ALLOC_CORES, &cores) != ESPANK_SUCCESS || !cores || !*cores)
    return fail(s, "cannot read this step's allocated cores (S_STEP_ALLOC_CORES)");
  if (sp_cores_to_pus(s->placement, cores, s->step_pus, sizeof s->step_pus) < 0) return fail(s, sp_error(s->placement));
  const char *pus = s->step_pus;
  if (s->config.exclusive_only || (s->config.whole_node && ntasks == 1)) {
    int whole = job_has_node(s, sp, s->node_pus);
    if (whole < 0) return -1;
    if (!whole && s->config.exclusive_only) return -2; /* the job shares the node: stay out of the way */
    if (whole && s->config.whole_node && ntasks == 1) pus = s->node_pus;
  }
  return snprintf(cpus, len, "%s", pus) < (int)len ? 0 : fail(s, "too many CPUs in this step");
}

/* OMP_NUM_THREADS, as the engine reads it; unset: one thread per core. */
static int threads_wanted(struct pin_step *s, spank_t sp) {
  char value[LIST_LEN];
  int rc = spank_getenv(sp, "OMP_NUM_THREADS", value, sizeof value);
  if (rc == ESPANK_ENV_NOEXIST) return 0;
  if (rc != ESPANK_SUCCESS) return fail(s, "OMP_NUM_THREADS is too long to be a thread count");
  if (sp_set_omp_num_threads(s->placement, value) != 0) return fail(s, sp_error(s->placement));
  return 0;
}

/* How the task is bound beyond its CPUs: threads, memory, what the task is
 * told (the policy's decision, read from the job record). */
static int set_binding(struct pin_step *s, const char *strategy) {
  char origin[200] = "";
  if (s->policy.present && s->policy.applies && strcmp(strategy, s->policy.strategy) == 0)
    snprintf(origin, sizeof origin, "policy rule %s", s->policy.rule);
  if (sp_set_thread_mode(s->placement, s->threads_mode) ||
      sp_set_thread_library(s->placement, s->config.threads_lib) ||
      sp_set_mem_policy(s->placement, pin_effective_mem(&s->config, &s->request, &s->policy)) ||
      sp_set_legacy_omp_env(s->placement, s->config.legacy_omp_env) || sp_set_origin(s->placement, origin))
    return fail(s, sp_error(s->placement));
  return 0;
}

/* Whether any of `names` is set in the task's environment. */
static int any_set(spank_t sp, const char *const *names) {
  char value[8192];
  for (const char *const *name = names; *name; ++name)
    if (spank_getenv(sp, *name, value, sizeof value) != ESPANK_ENV_NOEXIST) return 1;
  return 0;
}

/* The GPU mode in force: the user's --pin-gpu, else the site's gpu= for a
 * job Slurm gave GPUs (its variables are set); "" otherwise. */
static const char *gpu_mode(struct pin_step *s, spank_t sp) {
  if (s->request.gpu[0]) return s->request.gpu;
  if (strcmp(s->config.gpu, "closest") != 0) return "";
  return any_set(sp, slurm_gpu_list_names) || any_set(sp, sp_job_gpu_variable_names()) ? s->config.gpu : "";
}

static int gpu_list_too_long(struct pin_step *s, const char *name) {
  char m[ERR_LEN];
  snprintf(m, sizeof m, "%s is too long to be a list of GPUs", name);
  return fail(s, m);
}

/* Device locality, in the mode gpu_mode() names. The job's view of its GPUs
 * goes to the engine as the job has it, and which of the node's GPUs they
 * are as Slurm says (the step's list, else the job's). */
static int set_gpus(struct pin_step *s, spank_t sp) {
  if (strcmp(gpu_mode(s, sp), "closest") != 0) return 0;
  char value[8192];
  for (const char *const *name = sp_job_gpu_variable_names(); *name; ++name) {
    int rc = spank_getenv(sp, *name, value, sizeof value);
    if (rc == ESPANK_ENV_NOEXIST) continue;
    if (rc != ESPANK_SUCCESS || sp_set_job_gpu_variable(s->placement, *name, value) != 0) return gpu_list_too_long(s, *name);
  }
  for (const char *const *name = slurm_gpu_list_names; *name; ++name) {
    int rc = spank_getenv(sp, *name, value, sizeof value);
    if (rc == ESPANK_ENV_NOEXIST || (rc == ESPANK_SUCCESS && !value[0])) continue;
    if (rc != ESPANK_SUCCESS || sp_set_job_gpus(s->placement, value) != 0) return gpu_list_too_long(s, *name);
    break;
  }
  return sp_set_gpu_locality(s->placement, "closest") == 0 ? 0 : fail(s, sp_error(s->placement));
}

static int task_cpus_of(const void *p, int task, char *buf, size_t len) {
  return sp_get_task_cpus(p, task, buf, len);
}

static int describe_in_slurm_terms(struct pin_step *s) {
  free(s->cpu_bind_list);
  s->cpu_bind_list = slurm_cpu_bind_list(sp_get_ntasks(s->placement), task_cpus_of, s->placement);
  return s->cpu_bind_list ? 0 : fail(s, "cannot describe the binding in SLURM_CPU_BIND: out of memory");
}

/* More tasks than CPUs on this node: Slurm oversubscribed the step itself
 * (srun -O, --overcommit), so its tasks share CPUs, spread evenly. */
static int overcommitted(const char *cpus, uint32_t ntasks) {
  struct cpu_place set;
  if (cpu_place_parse(cpus, strlen(cpus), &set) != 0) return 0;
  int n = CPU_COUNT_S(set.size, set.set);
  cpu_place_free(&set);
  return ntasks > (uint32_t)n;
}

/* Which of the job's tasks run here (their global ranks) and how many the
 * job has, for a profile's rank traffic. Slurm not telling leaves the
 * engine's default (this node's tasks are the job's). */
static int set_task_ranks(struct pin_step *s, spank_t sp, uint32_t ntasks) {
  uint32_t total = 0;
  if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &total) != ESPANK_SUCCESS || total < ntasks) return 0;
  int *ranks = calloc(ntasks, sizeof *ranks);
  if (!ranks) return fail(s, "out of memory");
  for (uint32_t i = 0; i < ntasks; ++i) {
    uint32_t global = 0;
    if (spank_get_item(sp, S_JOB_LOCAL_TO_GLOBAL_ID, i, &global) != ESPANK_SUCCESS) {
      free(ranks);
      return 0;
    }
    ranks[i] = (int)global;
  }
  int rc = sp_set_task_ranks(s->placement, ranks, (int)ntasks, (int)total);
  free(ranks);
  return rc ? fail(s, sp_error(s->placement)) : 0;
}

static int compute(struct pin_step *s, spank_t sp, const char *strategy, const char *profile) {
  uint32_t ntasks = 0;
  int rc;
  s->placement = sp_init();
  if (!s->placement) return fail(s, "out of memory");
  if (sp_set_topology(s->placement, s->config.topology[0] ? s->config.topology : "this") != 0 ||
      sp_set_topology_cache(s->placement, cache_path(s)) != 0)
    return fail(s, sp_error(s->placement));
  if (s->config.topology[0] && !s->request.dryrun && check_topology_file(s) != 0) return -1;
  if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS || ntasks == 0)
    return fail(s, "cannot read the number of tasks on this node");
  if ((rc = step_cpus(s, sp, ntasks, s->cpus, sizeof s->cpus)) != 0) return rc;
  /* The helper places on the step's CPUs, not on other jobs' (best
   * effort: the engine keeps to the CPUs it may use either way). */
  if (!s->request.dryrun) process_bind_cpus(s->cpus, NULL, 0);
  if (threads_wanted(s, sp) != 0 || set_binding(s, strategy) != 0 || set_gpus(s, sp) != 0 ||
      set_task_ranks(s, sp, ntasks) != 0)
    return -1;
  /* A dry run shows the placement for the topology as configured, even one
   * larger than this machine; a real binding never leaves slurmstepd's CPUs. */
  if (sp_set_restrict(s->placement, s->cpus) || sp_set_restrict_to_process(s->placement, !s->request.dryrun) ||
      sp_set_strategy(s->placement, strategy) || sp_set_tasks(s->placement, (int)ntasks) ||
      sp_set_granularity(s->placement, pin_effective_granularity(&s->config, &s->request, &s->policy)) ||
      sp_set_oversubscribe(s->placement, pin_effective_oversubscribe(&s->config, &s->request) || overcommitted(s->cpus, ntasks)) ||
      sp_set_phases(s->placement, s->request.phases, 0) ||
      sp_set_smt(s->placement, s->request.smt[0] ? atoi(s->request.smt) : 0) ||
      sp_set_budget(s->placement, (size_t)s->config.max_file, s->config.max_time) ||
      sp_set_placement_cache(s->placement, s->config.placement_cache > 0 ? s->placements_dir : NULL) ||
      (*profile && sp_set_profile(s->placement, profile, s->config.store, "simple", NULL)) ||
      sp_compute(s->placement))
    return fail(s, sp_error(s->placement));
  return s->request.dryrun ? 0 : describe_in_slurm_terms(s); /* a dry run sets no task's environment */
}

/* Which profile is in force and where it comes from: 1 when from a default
 * rule of the policy (the user chose none), 2 from an enforced rule, 0
 * otherwise. */
static int profile_from_policy(struct pin_step *s) {
  if (!s->policy.present || !s->policy.applies || !s->policy.profile[0]) return 0;
  if (s->policy.enforce) return 2;
  return s->request.profile[0] ? 0 : 1; /* the user's own profile wins over a default */
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
static int compute_with_policy(struct pin_step *s, spank_t sp, const char *strategy) {
  int from = profile_from_policy(s);
  int rc = compute(s, sp, strategy, pin_effective_profile(&s->request, &s->policy));
  if (rc != -1 || !from) return rc;
  char why[ERR_LEN], m[ERR_LEN];
  snprintf(why, sizeof why, "%s", s->failure);
  if (from == 2) {
    s->failure[0] = '\0';
    policy_enforced_error(m, sizeof m, s->policy.rule, "step", why);
    return fail(s, m);
  }
  const char *instead = without_profile(strategy);
  s->failure[0] = '\0';
  sp_finalize(s->placement);
  s->placement = NULL;
  if ((rc = compute(s, sp, instead, "")) != 0) return rc;
  policy_yield_note(s->note_text, sizeof s->note_text, s->policy.rule, s->policy.profile, why, instead);
  return 0;
}

/* The decision job_submit.lua recorded for this job, as the job's first
 * step on this node read and kept it (job_decision.h); slurmstepd, root,
 * before the step's privileges are dropped. The task's environment is never trusted
 * for it (a user can set any variable). */
static int read_policy(struct pin_step *s, spank_t sp) {
  memset(&s->policy, 0, sizeof s->policy);
  s->policy_text[0] = '\0';
  if (!s->config.policy) return 0;
  uint32_t job_id = 0;
  char err[ERR_LEN];
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || !job_id)
    return fail(s, "cannot read this job's id for the site policy's decision");
  if (job_decision_read(s->config.run_dir, job_id, job_decision_node(), s->policy_text, sizeof s->policy_text, err,
                        sizeof err) != 0)
    return fail(s, err);
  if (pin_policy_parse(s->policy_text, &s->policy) != 0) {
    slurm_error("slurm-pin: ignoring a malformed policy decision in the job's AdminComment");
    memset(&s->policy, 0, sizeof s->policy);
    s->policy_text[0] = '\0';
  }
  return 0;
}

/* The policy's env in the step's environment, in slurmstepd before
 * anything reads it (the helper reads OMP_NUM_THREADS, the tasks inherit
 * it): a default rule's values fill what the step does not set, an
 * enforced rule's replace them. env_note says what was set and kept. */
static void apply_policy_env(struct pin_step *s, spank_t sp) {
  int n, overwrite;
  const struct pin_policy_env *env = pin_policy_env(&s->policy, &s->request, &n, &overwrite);
  char set[ERR_LEN / 2] = "", kept[ERR_LEN / 4] = "";
  for (int i = 0; i < n; ++i) {
    spank_err_t rc = spank_setenv(sp, env[i].name, env[i].value, overwrite);
    char *list = rc == ESPANK_SUCCESS ? set : kept;
    size_t size = rc == ESPANK_SUCCESS ? sizeof set : sizeof kept, used = strlen(list);
    if (rc == ESPANK_SUCCESS)
      snprintf(list + used, size - used, "%s%s=%s", used ? " " : "", env[i].name, env[i].value);
    else if (rc == ESPANK_ENV_EXISTS)
      snprintf(list + used, size - used, "%s%s", used ? ", " : "", env[i].name);
    else
      slurm_error("slurm-pin: %s: cannot set %s from the site policy's rule %s", job_decision_node() ?: "this node",
                  env[i].name, s->policy.rule);
  }
  if (set[0] || kept[0])
    snprintf(s->env_note, sizeof s->env_note, "policy rule %s set %s%s%s%s", s->policy.rule, set[0] ? set : "nothing",
             kept[0] ? " (the step's own " : "", kept, kept[0] ? " kept)" : "");
}

/* The site's rules, checked again where the user cannot reach: whatever
 * the source of a value (srun's options, their environment twins, the
 * policy's decision), slurmstepd refuses what plugstack.conf forbids. */
static int site_allows(struct pin_step *s, const char *strategy) {
  char err[ERR_LEN], m[ERR_LEN];
  /* "none" needs no engine: a step slurm-pin leaves alone does not load it. */
  if (strcmp(strategy, "none") == 0) {
    if (pin_check_site_rules(&s->config, strategy, err, sizeof err) != 0) return fail(s, err);
  } else if (pin_engine_load(err, sizeof err) != 0) {
    return fail(s, err);
  } else if (pin_config_check(&s->config, err, sizeof err) != 0) {
    snprintf(m, sizeof m, "plugstack.conf: %.900s", err);
    return fail(s, m);
  } else if (pin_check_strategy(&s->config, strategy, err, sizeof err) != 0) {
    return fail(s, err);
  }
  if (pin_check_enforced(&s->config, &s->request, err, sizeof err) != 0) return fail(s, err);
  if (s->request.dryrun && (s->config.enforce || (s->policy.present && s->policy.applies && s->policy.enforce))) {
    snprintf(m, sizeof m, "--pin-dryrun: %s binds every step of this job: remove --pin-dryrun",
             s->config.enforce ? "this cluster (enforce in plugstack.conf)" : "the site policy (an enforced rule)");
    return fail(s, m);
  }
  return 0;
}

/* The thread library: configured (threads_lib=) or beside the plugin, and
 * readable by the user: 0, or -1 with `m` saying why not. */
static int locate_threads_lib(struct pin_step *s, char *m, size_t len) {
  char err[ERR_LEN];
  if (s->config.threads_lib[0]) {
    if (sp_check_thread_library(s->config.threads_lib, err, sizeof err) == 0) return 0;
    snprintf(m, len, "threads_lib= in plugstack.conf cannot be used: %.900s", err);
    return -1;
  }
  Dl_info self;
  const char *plugin = dladdr((void *)&slurm_spank_init, &self) ? self.dli_fname : "";
  if (sp_find_thread_library(plugin, s->config.threads_lib, sizeof s->config.threads_lib, err, sizeof err) != 0) {
    snprintf(m, len, "%.900s (or set threads_lib= in plugstack.conf)", err);
    return -1;
  }
  return 0;
}

/* auto cannot bind the threads of programs without OpenMP here (`note`,
 * sp_auto_binding_note's): OMP_PLACES alone binds this step's threads, and
 * verbose users are told why. */
static void threads_by_env_only(struct pin_step *s, const char *note) {
  snprintf(s->threads_mode, sizeof s->threads_mode, "env");
  size_t used = strlen(s->note_text);
  snprintf(s->note_text + used, sizeof s->note_text - used, "%s%s", used ? "; " : "", note);
}

/* preload, ompt and auto load the thread library into the program: without
 * it, preload and ompt fail the step, auto binds by OMP_PLACES alone. */
static int find_threads_lib(struct pin_step *s) {
  char m[ERR_LEN + 128], note[ERR_LEN];
  if (strcmp(s->threads_mode, "env") == 0 || locate_threads_lib(s, m, sizeof m) == 0) return 0;
  if (strcmp(s->threads_mode, "auto") != 0) return fail(s, m);
  sp_auto_binding_note(NULL, NULL, "slurm-pin's thread library is not installed on this node", note, sizeof note);
  threads_by_env_only(s, note);
  return 0;
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
static int use_component_options(struct pin_step *s, spank_t sp) {
  int size = het_size(sp), k = size ? het_component(sp, size) : -1;
  if (k < 0) return 0;
  char name[64];
  char value[PATH_MAX * 3 + PIN_STRATEGY_MAX * 3 + 256];
  snprintf(name, sizeof name, PIN_COMPONENT_ENV "%d", k);
  int rc = spank_getenv(sp, name, value, sizeof value);
  if (rc == ESPANK_ENV_NOEXIST) return 0;
  struct pin_request mine; /* its values are checked in the placing helper, as the options' are */
  if (rc != ESPANK_SUCCESS || pin_request_parse(value, &mine) != 0) {
    char m[ERR_LEN];
    snprintf(m, sizeof m, "%s is malformed: leave it to srun, which sets it for heterogeneous steps", name);
    return fail(s, m);
  }
  s->request = mine;
  snprintf(s->component_variable, sizeof s->component_variable, "%s", name);
  return 0;
}

/* A launcher's daemon or a batch script: nothing is placed for it; what
 * its ranks need is prepared (launcher_step.h). */
static int prepare_launcher(struct pin_step *s, spank_t sp, const char *strategy) {
  char err[ERR_LEN];
  uint32_t ntasks = 0;
  /* The ranks start through the runtime, preloaded into the daemon,
   * whatever their own thread binding. */
  char m[ERR_LEN + 128];
  if (locate_threads_lib(s, m, sizeof m) != 0) return fail(s, m);
  Dl_info self;
  const char *plugin = dladdr((void *)&slurm_spank_init, &self) ? self.dli_fname : "";
  if (launcher_find_command(plugin, s->launcher.command, sizeof s->launcher.command, err, sizeof err) != 0)
    return fail(s, err);
  s->placement = sp_init();
  if (!s->placement) return fail(s, "out of memory");
  if (sp_set_topology(s->placement, s->config.topology[0] ? s->config.topology : "this") != 0 ||
      sp_set_topology_cache(s->placement, cache_path(s)) != 0)
    return fail(s, sp_error(s->placement));
  if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS || ntasks == 0)
    return fail(s, "cannot read the number of tasks on this node");
  int rc = step_cpus(s, sp, ntasks, s->launcher.node_cpus, sizeof s->launcher.node_cpus);
  if (rc != 0) return rc;
  struct pin_request ranks = s->request;
  snprintf(ranks.strategy, sizeof ranks.strategy, "%s", strategy);
  ranks.strategy_set = 1;
  snprintf(ranks.profile, sizeof ranks.profile, "%s", pin_effective_profile(&s->request, &s->policy));
  snprintf(ranks.mem, sizeof ranks.mem, "%s", pin_effective_mem(&s->config, &s->request, &s->policy));
  snprintf(ranks.granularity, sizeof ranks.granularity, "%s", pin_effective_granularity(&s->config, &s->request, &s->policy));
  snprintf(ranks.threads, sizeof ranks.threads, "%s", s->threads_mode);
  snprintf(ranks.gpu, sizeof ranks.gpu, "%s", gpu_mode(s, sp));
  ranks.verbose = s->request.verbose || s->config.verbose;
  ranks.oversubscribe = pin_effective_oversubscribe(&s->config, &s->request);
  char origin[200] = "";
  if (s->policy.present && s->policy.applies && strcmp(strategy, s->policy.strategy) == 0)
    snprintf(origin, sizeof origin, "policy rule %s", s->policy.rule);
  const char *cache = cache_path(s);
  const char *node = job_decision_node();
  /* A rule's profile that does not fit a rank: as compute_with_policy. */
  int from = profile_from_policy(s);
  const char *rule = from ? s->policy.rule : "", *mode = from == 2 ? "enforce" : from ? "default" : "";
  const char *fallback = from == 1 ? without_profile(strategy) : "";
  struct rank_request r = {&ranks, &s->config, cache ? cache : "", s->policy_text, origin, s->launcher.name, node ? node : "",
                           rule, mode, fallback};
  if (launcher_rank_options(&r, s->launcher.options, sizeof s->launcher.options) != 0)
    return fail(s, "the ranks' options are too long to pass on");
  s->launcher.on = 1;
  return 0;
}

/* The step's program is an MPI launcher's daemon: named as one, and root's
 * alone where the task's PATH finds it (launcher_program_trusted); its
 * name in launcher.name. Anything else is an ordinary step, placed (and
 * under enforce, bound) as any other. */
static int is_launcher_daemon(struct pin_step *s, spank_t sp) {
  int argc = 0;
  char **argv = NULL, why[ERR_LEN];
  char path[LIST_LEN];
  if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS || argc < 1 || !argv[0] ||
      !launcher_named(s->config.launchers, argv[0], s->launcher.name, sizeof s->launcher.name))
    return 0;
  if (spank_getenv(sp, "PATH", path, sizeof path) != ESPANK_SUCCESS) path[0] = '\0';
  if (launcher_program_trusted(argv[0], path, why, sizeof why)) return 1;
  slurm_debug("slurm-pin: %s is placed as an ordinary program, not as a launcher's daemon: %s", argv[0], why);
  return 0;
}

/* user_init's outcomes: a failure task_init reports, or the step placed
 * (rc 0), failing (-1, its failure set) or left alone (-2: exclusive_only
 * and a shared node). Hooks in slurmstepd return 0 whatever happened. */
static int step_fails(struct pin_step *s) {
  s->state = STEP_FAILING;
  return 0;
}

static int step_placed(struct pin_step *s, int rc) {
  s->state = rc == -2 ? STEP_LEFT_ALONE : s->failure[0] ? STEP_FAILING : STEP_PINNED;
  return 0;
}

/* hwloc loads every plugin it finds at a process's first topology (on
 * Debian OpenCL, GL, PCI, libxml2: 1.5-3 ms) and reads which to skip from
 * the environment. A step that asks nothing of devices needs none of them:
 * the node's saved topology reads without libxml2 and the machine's CPUs
 * are discovered without them. Set in the helper alone, single-threaded;
 * a site's own list is kept. */
static void skip_hwloc_plugins(struct pin_step *s, spank_t sp) {
  static const char skip[] = "hwloc_opencl,hwloc_gl,hwloc_xml_libxml,hwloc_pci";
  if (gpu_mode(s, sp)[0]) return;
  const char *site = getenv("HWLOC_PLUGINS_BLACKLIST");
  char value[4096];
  if (site && *site && snprintf(value, sizeof value, "%s,%s", site, skip) < (int)sizeof value)
    setenv("HWLOC_PLUGINS_BLACKLIST", value, 1);
  else if (!site || !*site)
    setenv("HWLOC_PLUGINS_BLACKLIST", skip, 1);
}

/* Milliseconds since `t0` (CLOCK_MONOTONIC). */
static double ms_since(const struct timespec *t0) {
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

/* A value of the step's options the engine refuses: srun checks them, so
 * they were sent some other way (a component's variable the user set). */
static int bad_request(struct pin_step *s, const char *why) {
  char m[ERR_LEN];
  if (!s->component_variable[0]) return fail(s, why);
  snprintf(m, sizeof m, "%s is malformed: %.800s", s->component_variable, why);
  return fail(s, m);
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

/* The helper's work (placing_helper.h): the engine's checks of the site's
 * rules, then the launcher's preparation or the step's placement and its
 * plan, each task's line only when someone reads it. Failures are
 * reported, never returned: the step fails with them in task_init. */
static int place_in_helper(void *arg, struct plan_writer *w) {
  struct helper_job *j = arg;
  struct pin_step *s = j->s;
  clock_gettime(CLOCK_MONOTONIC, &j->started);
  skip_hwloc_plugins(s, j->sp);
  char err[ERR_LEN];
  int rc;
  snprintf(s->threads_mode, sizeof s->threads_mode, "%s", pin_effective_threads(&s->request, &s->policy));
  /* The options' values, as srun checked them: a user may send others. */
  if (pin_check_request(&s->request, err, sizeof err) != 0) rc = bad_request(s, err);
  else if (site_allows(s, j->strategy) != 0) rc = -1;
  else if (j->batch || is_launcher_daemon(s, j->sp)) rc = prepare_launcher(s, j->sp, j->strategy);
  else if (find_threads_lib(s) != 0) rc = -1;
  else if ((rc = compute_with_policy(s, j->sp, j->strategy)) == 0 && !s->request.dryrun) rc = check_program(s, j->sp);
  struct plan_writer plan = {0};
  int lines = s->request.dryrun || s->request.verbose || s->config.verbose;
  if (rc == 0 && !s->failure[0] && !s->launcher.on && step_plan_encode(s->placement, s->request.dryrun, lines, &plan) != 0)
    rc = fail(s, *sp_error(s->placement) ? sp_error(s->placement) : "out of memory");
  if (s->failure[0]) said_out_of_memory(s);
  int bad = report(s, rc, w) || (rc == 0 && !s->failure[0] && !s->launcher.on && plan_put(w, plan.data, plan.size));
  free(plan.data);
  return bad ? -1 : 0;
}

/* The helper's report read back into the step record: user_init's outcome. */
static int read_report(struct pin_step *s, char *data, size_t size) {
  struct plan_reader r = {data, size, 0, 0};
  struct helper_report h;
  if (helper_report_read(&r, &h) != 0) return free(data), fail(s, "the placing helper's report is malformed");
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
  if (h.cpu_bind_list[0] && !(s->cpu_bind_list = strdup(h.cpu_bind_list))) rc = fail(s, "out of memory");
  if (h.failure[0]) fail(s, h.failure);
  if (rc != 0 || s->failure[0] || s->launcher.on) return free(data), rc;
  size_t n = 0;
  const char *plan = plan_get(&r, &n);
  struct plan_reader inside = {(char *)plan, n, 0, 0};
  if (!plan || step_plan_decode(&inside, &s->plan) != 0) return free(data), fail(s, "the placing helper's plan is malformed");
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
static int start_placing(struct pin_step *s, spank_t sp, const struct helper_identity *who) {
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
    return fail(s, "run_dir= is too long");
  s->job = (struct helper_job){s, sp, strategy, batch, {0, 0}, 0, 0};
  helper_memory(s, sp, &s->job);
  /* The engine's own budget, and a margin for loading it. */
  if (placing_helper_start(&s->helper, place_in_helper, &s->job, who, s->config.max_time + 10, s->job.memory, err,
                           sizeof err) != 0)
    return fail(s, err);
  s->placing = PLACING_STARTED;
  return 1;
}

/* The helper's result in the step record: user_init's outcome. */
static int finish_placing(struct pin_step *s) {
  char err[ERR_LEN], *data = NULL;
  size_t size = 0;
  s->placing = PLACING_DONE;
  if (placing_helper_finish(&s->helper, MAX_REPORT, &data, &size, err, sizeof err) != 0) return fail(s, err);
  return read_report(s, data, size);
}

/* In init_post_opt, slurmstepd (root) knows the step: its helper starts
 * there, as the job's user, and places it while slurmstepd sets the step
 * up. Not for steps that may ask for device locality: Slurm sets the GPU
 * variables the helper reads later. Anything missing (or a slurmstepd that
 * is not root, which could not become the user): user_init starts it. */
static void start_early(struct pin_step *s, spank_t sp) {
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
    return fail(s, "cannot read the task id");
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
    return fail(s, m);
  }
  const char *known = got == ESPANK_SUCCESS ? current : NULL;
  int n = e->action == SP_ENV_SET ? 0 : plan_env_value(e, known, value, sizeof value);
  if (n == SP_ENV_UNSET)
    return spank_unsetenv(sp, e->name) == ESPANK_SUCCESS ? 0 : fail(s, "cannot set the task's environment");
  if (n < 0) return fail(s, "the task's environment is too long");
  const char *text = e->action == SP_ENV_SET ? e->value : value; /* a value of any length, as the engine made it */
  return spank_setenv(sp, e->name, text, 1) == ESPANK_SUCCESS ? 0 : fail(s, "cannot set the task's environment");
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
    return fail(s, "cannot set the task's environment");
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
    return fail(s, m);
  }
  if (spank_setenv(sp, SP_ENV_TASK_FILE, path, 1) != ESPANK_SUCCESS) return fail(s, "cannot set the task's environment");
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
    return fail(s, "cannot set the launcher's environment for its ranks");
  if (s->request.verbose || s->config.verbose || s->request.dryrun)
    stderr_line("slurm-pin: %s task %d (rank %d): %s, left as Slurm placed it; its ranks are placed by local "
            "rank on CPUs %s (strategy %s)\n", v->node, v->task, v->rank, s->launcher.name, s->launcher.node_cpus,
            pin_effective_strategy(&s->config, &s->request, &s->policy));
  return 0;
}

/* preload and ompt: the program must take the library, or its threads
 * would stay where the task is while the verbose line names places. */
static int check_program(struct pin_step *s, spank_t sp) {
  if (strcmp(s->threads_mode, "env") == 0) return 0;
  int argc = 0;
  char **argv = NULL, err[ERR_LEN];
  char path[LIST_LEN];
  if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS || argc < 1 || !argv[0]) return 0;
  if (spank_getenv(sp, "PATH", path, sizeof path) != ESPANK_SUCCESS) path[0] = '\0';
  if (strcmp(s->threads_mode, "auto") != 0)
    return sp_check_preloadable(argv[0], path, err, sizeof err) == 0 ? 0 : fail(s, err);
  /* auto: a program that cannot load the library is placed as env places it. */
  if (sp_auto_binding_note(argv[0], path, NULL, err, sizeof err) == 0) return 0;
  threads_by_env_only(s, err);
  return sp_set_thread_mode(s->placement, "env") == 0 ? 0 : fail(s, sp_error(s->placement));
}

/* The task bound as its plan says, with libc alone (process_binding.h). */
static int pin_task(struct pin_step *s, spank_t sp, struct task_view *v) {
  char err[ERR_LEN];
  if (read_task(s, sp, v) != 0) return -1;
  if (v->task < 0 || v->task >= s->plan.ntasks) return fail(s, "this task is not in the step's placement");
  const struct task_plan *t = &s->plan.tasks[v->task];
  drop_component_options(sp);
  if (s->request.dryrun) return describe(s, t, v), 0;
  if (process_bind_cpus(t->cpus, err, sizeof err) != 0 || process_set_mem_policy(t->mem, err, sizeof err) != 0)
    return fail(s, err);
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
