/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --pin-* options of srun, sbatch and salloc (srun_options.h): each
 * value checked where the user typed it, so that a mistake is one
 * `srun: error:` line before anything is submitted. Option values need no
 * engine (slurm_pin_options.h): it loads only for what it must read (a
 * profile, a placement file), so a step that asks for a strategy costs srun
 * no C++ runtime, hwloc or METIS.
 */
#include "srun_options.h"

#include <slurm/slurm.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srun_cmdline.h"

/* SPANK's option callbacks take no context: the step they were registered for. */
static struct pin_step *step;

/* In srun, sbatch, salloc: plugstack.conf's values, checked once the user
 * asks something of slurm-pin; a mistake ends the command. */
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

/* --pin-strategy=help: the strategies, then the command ends. */
static void strategy_help(void) {
  printf("slurm-pin strategies (--pin-strategy=STRATEGY):\n%s", sp_strategies_help());
  printf("profile-guided strategies need --pin-profile=NAME[@VERSION]|PATH\n");
  exit(0);
}

static int opt_strategy(int val, const char *arg, int remote) {
  struct pin_step *s = step;
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
  struct pin_step *s = step;
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
  struct pin_step *s = step;
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
  struct pin_step *s = step;
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

int srun_options_register(spank_t sp, struct pin_step *s) {
  step = s;
  for (struct spank_option *o = options; o->name; ++o)
    if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
      slurm_error("slurm-pin: cannot register --%s", o->name);
      return -1;
    }
  return 0;
}

void srun_options_early_help(struct pin_step *s) {
  if (srun_cmdline_asks_strategy_help(s)) strategy_help();
}
