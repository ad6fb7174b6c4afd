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
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pin_bind.h"
#include "pin_config.h"
#include "pin_env.h"
#include "slurm_pin/placement.h"

SPANK_PLUGIN(slurm_pin, 1);

#define ERR_LEN 1024
#define LIST_LEN 65536

static struct pin_config config;
static struct pin_request request;
static struct pin_policy policy; /* the site policy's decision for this job, if any */
static sp_placement_t *placement; /* computed by user_init */
static char failure[ERR_LEN];     /* found by user_init, reported by task_init */
static int active;                /* this step is pinned on this node */

/* ---- options ---------------------------------------------------------- */

/* A bad value in srun, sbatch or salloc: one error line, then stop before
 * anything is submitted (returning -1 would add Slurm's own second line). In
 * slurmstepd, values were checked already; refuse without exiting. */
static int reject(const char *option, const char *message) {
  slurm_error("%s: %s", option, message);
  if (spank_context() != S_CTX_REMOTE) exit(1);
  return -1;
}

static int opt_strategy(int val, const char *arg, int remote) {
  (void)val;
  char err[ERR_LEN];
  if (!arg || strlen(arg) >= sizeof request.strategy) return reject("--pin-strategy", "value missing or too long");
  /* --cpu-bind style modifiers: --pin-strategy=verbose,lpgp or quiet,lpgp. */
  for (;;) {
    if (strncmp(arg, "verbose,", 8) == 0) request.verbose = 1, arg += 8;
    else if (strncmp(arg, "quiet,", 6) == 0) request.verbose = 0, arg += 6;
    else break;
  }
  if (!remote && strcmp(arg, "help") == 0) {
    printf("slurm-pin strategies (--pin-strategy=STRATEGY):\n%s", sp_strategies_help());
    printf("profile-guided strategies need --pin-profile=NAME[@VERSION]|PATH\n");
    exit(0);
  }
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
  if (!arg || strlen(arg) >= sizeof request.profile) return reject("--pin-profile", "value missing or too long");
  strcpy(request.profile, arg);
  if (!remote && sp_check_profile(arg, config.store, err, sizeof err) != 0) return reject("--pin-profile", err);
  return 0;
}

static int opt_mem(int val, const char *arg, int remote) {
  (void)val, (void)remote;
  char err[ERR_LEN];
  if (!arg || pin_check_mem(arg, err, sizeof err) != 0) return reject("--pin-mem", arg ? err : "value missing");
  snprintf(request.mem, sizeof request.mem, "%s", arg);
  return 0;
}

static int opt_granularity(int val, const char *arg, int remote) {
  (void)val, (void)remote;
  char err[ERR_LEN];
  if (!arg || pin_check_granularity(arg, err, sizeof err) != 0)
    return reject("--pin-granularity", arg ? err : "value missing");
  snprintf(request.granularity, sizeof request.granularity, "%s", arg);
  return 0;
}

static int opt_threads(int val, const char *arg, int remote) {
  (void)val, (void)remote;
  char err[ERR_LEN];
  if (!arg || pin_check_threads(arg, err, sizeof err) != 0) return reject("--pin-threads", arg ? err : "value missing");
  snprintf(request.threads, sizeof request.threads, "%s", arg);
  return 0;
}

/* The options without a value: `val` says which. */
enum { FLAG_PHASES, FLAG_OVERSUBSCRIBE, FLAG_VERBOSE, FLAG_DRYRUN };

static int opt_flag(int val, const char *arg, int remote) {
  (void)arg, (void)remote;
  int *const flags[] = {&request.phases, &request.oversubscribe, &request.verbose, &request.dryrun};
  *flags[val] = 1;
  return 0;
}

static char strategy_usage[512] = "Thread placement: [verbose,]"; /* + the engine's list */

static struct spank_option options[] = {
    {"pin-strategy", "STRATEGY", strategy_usage, 1, 0, opt_strategy},
    {"pin-profile", "NAME|PATH", "Sharing profile: NAME[@VERSION] from the site's store, or a file", 1, 0,
     opt_profile},
    {"pin-mem", "POLICY", "NUMA memory policy: none|local|interleave", 1, 0, opt_mem},
    {"pin-granularity", "LEVEL", "Bind each thread to its pu, core, l2, l3 or numa domain", 1, 0,
     opt_granularity},
    {"pin-threads", "HOW", "Bind threads through env (OpenMP variables), preload (a pthread shim) or ompt "
     "(per-region pinning)", 1, 0, opt_threads},
    {"pin-phases", NULL, "Place every parallel region of the profile on its own (per-region pinning)", 0,
     FLAG_PHASES, opt_flag},
    {"pin-oversubscribe", NULL, "Allow more threads than cores (they share cores)", 0, FLAG_OVERSUBSCRIBE,
     opt_flag},
    {"pin-verbose", NULL, "Print each task's binding", 0, FLAG_VERBOSE, opt_flag},
    {"pin-dryrun", NULL, "Print what would be bound, bind nothing", 0, FLAG_DRYRUN, opt_flag},
    SPANK_OPTIONS_TABLE_END};

/* ---- srun/sbatch/salloc and slurmstepd start ------------------------- */

int slurm_spank_init(spank_t sp, int ac, char **av) {
  spank_context_t ctx = spank_context();
  if (ctx != S_CTX_LOCAL && ctx != S_CTX_REMOTE && ctx != S_CTX_ALLOCATOR) return 0;
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
  if (!strchr(strategy_usage, '|')) {
    for (int i = 0; i < sp_strategy_count(); ++i)
      snprintf(strategy_usage + strlen(strategy_usage), sizeof strategy_usage - strlen(strategy_usage), "%s|",
               sp_strategy_name(i));
    snprintf(strategy_usage + strlen(strategy_usage), sizeof strategy_usage - strlen(strategy_usage), "help");
  }
  for (struct spank_option *o = options; o->name; ++o)
    if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
      slurm_error("slurm-pin: cannot register --%s", o->name);
      return -1;
    }
  return 0;
}

/* After every option is known (srun, sbatch, salloc): cross-option checks. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av) {
  (void)sp, (void)ac, (void)av;
  if (spank_remote(sp) || active < 0) return 0;
  const char *s = pin_effective_strategy(&config, &request, NULL);
  if (request.dryrun && config.enforce) {
    slurm_error("--pin-dryrun: this cluster binds every step with strategy '%s' (enforce): remove --pin-dryrun",
                config.default_strategy);
    exit(1);
  }
  if (request.phases && request.threads[0] && strcmp(request.threads, "ompt") != 0) {
    slurm_error("--pin-phases moves threads at every parallel region, which needs --pin-threads=ompt, not %s",
                request.threads);
    exit(1);
  }
  if (request.phases && strncmp(s, "file:", 5) != 0 && !request.profile[0]) {
    slurm_error("--pin-phases needs a profile with parallel regions (--pin-profile) or a placement file with "
                "regions (--pin-strategy=file:PATH)");
    exit(1);
  }
  if (sp_strategy_needs_profile(s) == 1 && !request.profile[0]) {
    slurm_error("--pin-strategy=%s needs a sharing profile: add --pin-profile=NAME or --pin-profile=FILE", s);
    exit(1); /* one line, nothing submitted (see reject) */
  }
  return 0;
}

/* ---- slurmstepd: compute once per node -------------------------------- */

static int is_application_step(spank_t sp) {
  uint32_t step = 0;
  if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS) return 0;
  /* The batch shell, the extern step and interactive steps are not pinned:
   * pinning the batch shell would also leak OMP_* into every inner step. */
  return step != SLURM_BATCH_SCRIPT && step != SLURM_EXTERN_CONT && step != SLURM_INTERACTIVE_STEP;
}

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

/* The step's CPUs on this node: its cores (Slurm numbers them as hwloc's
 * logical cores) as PUs, within what slurmstepd may use. */
static int step_cpus(spank_t sp, char *cpus, size_t len) {
  char *cores = NULL, all[LIST_LEN], mask[LIST_LEN];
  static char pus[LIST_LEN];
  if (spank_get_item(sp, S_STEP_ALLOC_CORES, &cores) != ESPANK_SUCCESS || !cores || !*cores)
    return fail("cannot read this step's allocated cores (S_STEP_ALLOC_CORES)"), -1;
  if (sp_cores_to_pus(placement, cores, pus, sizeof pus) < 0) return fail(sp_error(placement)), -1;
  if (config.exclusive_only) {
    char *job_cores = NULL;
    static char job_pus[LIST_LEN];
    if (spank_get_item(sp, S_JOB_ALLOC_CORES, &job_cores) != ESPANK_SUCCESS || !job_cores ||
        sp_cores_to_pus(placement, job_cores, job_pus, sizeof job_pus) < 0 ||
        sp_topology_pus(placement, all, sizeof all) < 0)
      return fail("cannot read the job's allocated cores (S_JOB_ALLOC_CORES)"), -1;
    if (strcmp(all, job_pus) != 0) return -2; /* the job shares the node: stay out of the way */
  }
  /* A dry run shows the placement for the topology as configured, even one
   * larger than this machine; a real binding never leaves the current mask. */
  if (request.dryrun) return snprintf(cpus, len, "%s", pus) < (int)len ? 0 : -1;
  if (pin_current_cpus(mask, sizeof mask) != 0 || pin_intersect_cpulists(pus, mask, cpus, len) != 0)
    return fail("cannot read this process's CPU affinity"), -1;
  if (!*cpus) return fail("none of this step's CPUs is usable by slurmstepd"), -1;
  return 0;
}

static int threads_wanted(spank_t sp, int *threads) {
  char value[256];
  *threads = 0;
  if (spank_getenv(sp, "OMP_NUM_THREADS", value, sizeof value) != ESPANK_SUCCESS) return 0;
  int n = pin_omp_threads(value);
  if (n < 0) {
    char m[ERR_LEN];
    snprintf(m, sizeof m,
             "OMP_NUM_THREADS='%.64s' is not a thread count: set a number (or a list such as 8,2 for nested "
             "levels), or unset it",
             value);
    return fail(m), -1;
  }
  *threads = n;
  return 0;
}

static int compute(spank_t sp, const char *strategy) {
  const char *profile = pin_effective_profile(&request, &policy);
  uint32_t ntasks = 0;
  int threads = 0, rc;
  static char cpus[LIST_LEN];
  placement = sp_init();
  if (!placement) return fail("out of memory"), -1;
  if (sp_set_topology(placement, config.topology[0] ? config.topology : "this") != 0)
    return fail(sp_error(placement)), -1;
  if (config.topology[0] && !request.dryrun && check_topology_file() != 0) return -1;
  if ((rc = step_cpus(sp, cpus, sizeof cpus)) != 0) return rc;
  if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS || ntasks == 0)
    return fail("cannot read the number of tasks on this node"), -1;
  if (threads_wanted(sp, &threads) != 0) return -1;
  if (sp_set_restrict(placement, cpus) || sp_set_strategy(placement, strategy) ||
      sp_set_tasks(placement, (int)ntasks) || sp_set_threads(placement, threads) ||
      sp_set_granularity(placement, pin_effective_granularity(&config, &request, &policy)) ||
      sp_set_oversubscribe(placement, request.oversubscribe) || sp_set_phases(placement, request.phases, 0) ||
      (*profile && sp_set_profile(placement, profile, config.store, "simple", NULL)) ||
      sp_compute(placement))
    return fail(sp_error(placement)), -1;
  return 0;
}

/* The decision job_submit.lua recorded in the job's AdminComment, which
 * only slurmctld and admins can set: read from the job record with one RPC
 * per step and node, as the user. The task's environment is never trusted
 * for it (a user can set any variable). */
static char policy_text[PATH_MAX + 512];

static int read_policy(spank_t sp) {
  memset(&policy, 0, sizeof policy);
  policy_text[0] = '\0';
  if (!config.policy) return 0;
  uint32_t job_id = 0;
  job_info_msg_t *msg = NULL;
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || !job_id ||
      slurm_load_job(&msg, job_id, SHOW_ALL) != SLURM_SUCCESS || !msg || msg->record_count < 1) {
    if (msg) slurm_free_job_info_msg(msg);
    return fail("cannot read the site policy's decision for this job from slurmctld (plugstack.conf has 'policy'): "
                "try again, or ask the admin"), -1;
  }
  const char *comment = msg->job_array[0].admin_comment;
  const char *ours = comment ? strstr(comment, "slurm-pin:") : NULL;
  if (ours) {
    snprintf(policy_text, sizeof policy_text, "%s", ours);
    char *end = strstr(policy_text, " | ");
    if (end) *end = '\0';
  }
  slurm_free_job_info_msg(msg);
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
  if (pin_check_strategy(&config, strategy, err, sizeof err) != 0) return fail(err), -1;
  if (request.dryrun && (config.enforce || (policy.present && policy.applies && policy.enforce))) {
    snprintf(m, sizeof m, "--pin-dryrun: %s binds every step of this job: remove --pin-dryrun",
             config.enforce ? "this cluster (enforce in plugstack.conf)" : "the site policy (an enforced rule)");
    return fail(m), -1;
  }
  return 0;
}

/* preload and ompt need the thread library: found (or configured) and
 * readable by the user, or the step does not run. */
static int find_threads_lib(void) {
  if (strcmp(pin_effective_threads(&request), "env") == 0) return 0;
  char err[ERR_LEN];
  if (config.threads_lib[0]) {
    if (pin_check_library(config.threads_lib, err, sizeof err) == 0) return 0;
    char m[ERR_LEN + 128];
    snprintf(m, sizeof m, "threads_lib= in plugstack.conf cannot be used: %.900s (fix the path)", err);
    return fail(m), -1;
  }
  Dl_info self;
  const char *plugin = dladdr((void *)&slurm_spank_init, &self) ? self.dli_fname : NULL;
  if (pin_find_threads_lib(plugin, config.threads_lib, sizeof config.threads_lib, err, sizeof err) != 0)
    return fail(err), -1;
  return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av) {
  (void)ac, (void)av;
  if (!spank_remote(sp) || active < 0 || !is_application_step(sp)) return 0;
  if (read_policy(sp) != 0) return active = 1, 0; /* task_init reports it */
  const char *strategy = pin_effective_strategy(&config, &request, &policy);
  if (site_allows(strategy) != 0) return active = 1, 0;
  if (strcmp(strategy, "none") == 0) return 0;
  if (find_threads_lib() != 0) return active = 1, 0;
  int rc = compute(sp, strategy);
  active = rc == -2 ? 0 : 1; /* -2: exclusive_only and a shared node */
  return 0;                  /* errors end the step in task_init, never here */
}

/* ---- slurmstepd: each task, just before exec --------------------------- */

struct task_view {
  int task, rank, nthreads;
  char node[256];
  char share[LIST_LEN];
  char *threads[4096];
};

static int read_task(spank_t sp, struct task_view *v) {
  uint32_t rank = 0;
  if (spank_get_item(sp, S_TASK_ID, &v->task) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS)
    return fail("cannot read the task id"), -1;
  v->rank = (int)rank;
  if (spank_getenv(sp, "SLURMD_NODENAME", v->node, sizeof v->node) != ESPANK_SUCCESS)
    gethostname(v->node, sizeof v->node);
  v->nthreads = sp_get_nthreads(placement);
  if (v->nthreads > (int)(sizeof v->threads / sizeof v->threads[0]))
    return fail("more than 4096 threads per task"), -1;
  if (sp_get_task_cpus(placement, v->task, v->share, sizeof v->share) < 0)
    return fail("internal: no placement for this task"), -1;
  for (int i = 0; i < v->nthreads; ++i) {
    int need = sp_get_thread_cpus(placement, v->task, i, NULL, 0);
    v->threads[i] = need < 0 ? NULL : malloc((size_t)need + 1);
    if (!v->threads[i]) return fail("out of memory"), -1;
    sp_get_thread_cpus(placement, v->task, i, v->threads[i], (size_t)need + 1);
  }
  return 0;
}

static void describe(const struct task_view *v, const char *strategy, const char *places, const char *mem) {
  char origin[200] = "";
  if (policy.present && policy.applies && strcmp(strategy, policy.strategy) == 0)
    snprintf(origin, sizeof origin, " (policy rule %s)", policy.rule);
  char how[64] = "";
  const char *mode = pin_effective_threads(&request);
  if (strcmp(mode, "env") != 0) snprintf(how, sizeof how, ", threads by %s", mode);
  if (sp_get_nregions(placement) > 0)
    snprintf(how + strlen(how), sizeof how - strlen(how), ", %d regions", sp_get_nregions(placement));
  fprintf(stderr, "slurm-pin: %s%s task %d (rank %d): strategy %s%s, %d thread%s on CPUs %s, places %s, mem %s%s\n",
          request.dryrun ? "dry run: " : "", v->node, v->task, v->rank, strategy, origin, v->nthreads,
          v->nthreads == 1 ? "" : "s", v->share, places, mem, how);
}

/* SLURM_PIN_REGION_PLACES for this task: "NAME=CPUS CPUS ...;NAME=...". */
static int region_places(const struct task_view *v, char *buf, size_t len) {
  size_t pos = 0;
  buf[0] = '\0';
  for (int r = 0; r < sp_get_nregions(placement); ++r) {
    int w = snprintf(buf + pos, len - pos, "%s%s=", r ? ";" : "", sp_get_region_name(placement, r));
    if (w < 0 || (size_t)w >= len - pos) return -1;
    pos += (size_t)w;
    for (int i = 0; i < v->nthreads; ++i) {
      char cpus[4096];
      if (sp_get_region_thread_cpus(placement, r, v->task, i, cpus, sizeof cpus) < 0) return -1;
      w = snprintf(buf + pos, len - pos, i ? " %s" : "%s", cpus);
      if (w < 0 || (size_t)w >= len - pos) return -1;
      pos += (size_t)w;
    }
  }
  return 0;
}

/* preload and ompt: libslurm_pin_threads.so binds the threads. LLVM's libomp
 * would reset their affinity, so its own binding is turned off; OMP_PLACES
 * is left unset so that no runtime binds behind the library's back. */
static int export_thread_library(spank_t sp, const struct task_view *v, const char *mode) {
  static char buf[LIST_LEN];
  int rc = spank_setenv(sp, "KMP_AFFINITY", "disabled", 1);
  char preload[PATH_MAX * 4];
  if (spank_getenv(sp, "LD_PRELOAD", preload, sizeof preload) == ESPANK_SUCCESS && preload[0]) {
    size_t n = strlen(preload);
    snprintf(preload + n, sizeof preload - n, " %s", config.threads_lib);
  } else {
    snprintf(preload, sizeof preload, "%s", config.threads_lib);
  }
  rc |= spank_setenv(sp, "LD_PRELOAD", preload, 1);
  if (strcmp(mode, "ompt") == 0 && sp_get_nregions(placement) > 0) {
    if (region_places(v, buf, sizeof buf) != 0) return fail("the region places do not fit in the environment"), -1;
    rc |= spank_setenv(sp, "SLURM_PIN_REGION_PLACES", buf, 1);
  }
  return rc ? -1 : 0;
}

static int export_env(spank_t sp, const struct task_view *v, const char *strategy, const char *places) {
  static char buf[LIST_LEN];
  const char *const *th = (const char *const *)v->threads;
  const char *mode = pin_effective_threads(&request);
  char value[64];
  int rc = 0;
  if (strcmp(mode, "env") == 0) {
    rc |= spank_setenv(sp, "OMP_PLACES", places, 1);
    rc |= spank_setenv(sp, "OMP_PROC_BIND", "close", 1);
  } else if (export_thread_library(sp, v, mode) != 0) {
    rc = -1;
  }
  if (spank_getenv(sp, "OMP_NUM_THREADS", value, sizeof value) != ESPANK_SUCCESS) {
    snprintf(value, sizeof value, "%d", v->nthreads);
    rc |= spank_setenv(sp, "OMP_NUM_THREADS", value, 1);
  }
  if (config.legacy_omp_env && strcmp(mode, "env") == 0) {
    if (pin_gomp_affinity(th, v->nthreads, buf, sizeof buf) == 0)
      rc |= spank_setenv(sp, "GOMP_CPU_AFFINITY", buf, 1);
    if (pin_kmp_affinity(th, v->nthreads, buf, sizeof buf) == 0) rc |= spank_setenv(sp, "KMP_AFFINITY", buf, 1);
  }
  if (pin_cpus_list(th, v->nthreads, buf, sizeof buf) == 0) rc |= spank_setenv(sp, "SLURM_PIN_CPUS", buf, 1);
  rc |= spank_setenv(sp, "SLURM_PIN_STRATEGY", strategy, 1);
  /* What the policy decided, as read from the job record, replacing
   * anything the user put there. */
  if (policy_text[0]) rc |= spank_setenv(sp, "SLURM_PIN_POLICY", policy_text, 1);
  else spank_unsetenv(sp, "SLURM_PIN_POLICY");
  rc |= spank_setenv(sp, "SLURM_PIN_THREADS", mode, 1);
  if (rc && !failure[0]) fail("cannot set the task's environment");
  return rc ? -1 : 0;
}

static int pin_task(spank_t sp, struct task_view *v) {
  static char places[LIST_LEN];
  char err[ERR_LEN];
  const char *strategy = pin_effective_strategy(&config, &request, &policy);
  const char *mem = pin_effective_mem(&config, &request, &policy);
  if (read_task(sp, v) != 0) return -1;
  if (pin_omp_places((const char *const *)v->threads, v->nthreads, places, sizeof places) != 0)
    return fail("the thread places do not fit in the environment"), -1;
  if (request.dryrun) return describe(v, strategy, places, mem), 0;
  if (pin_bind_cpus(v->share, err, sizeof err) != 0) return fail(err), -1;
  if (pin_set_mem_policy(mem, v->share, err, sizeof err) != 0) return fail(err), -1;
  if (export_env(sp, v, strategy, places) != 0) return -1;
  if (request.verbose || config.verbose) describe(v, strategy, places, mem);
  return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
  (void)ac, (void)av;
  if (active <= 0) return 0;
  static struct task_view view;
  if (!failure[0]) pin_task(sp, &view);
  for (int i = 0; i < view.nthreads && i < 4096; ++i) free(view.threads[i]);
  if (failure[0]) {
    /* This is the forked task, before exec: end it with the one line that
     * explains why. Returning -1 would do the same with three more lines of
     * Slurm's own; every task fails alike, so nothing runs half-bound. */
    slurm_error("slurm-pin: %s", failure);
    fflush(NULL);
    _exit(1);
  }
  return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av) {
  (void)sp, (void)ac, (void)av;
  sp_finalize(placement);
  placement = NULL;
  return 0;
}
