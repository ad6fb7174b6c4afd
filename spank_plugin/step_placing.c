/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the placing helper does to place a step, once per node (pin_step.h):
 * the step's CPUs, its options and the policy's decision given to the
 * engine, the placement computed (a default rule's profile yielding when
 * it does not fit), or an MPI launcher's ranks prepared to place themselves
 * (launcher_step.h). The helper's protocol around it is step_helper.c.
 */
#define _GNU_SOURCE
#include "pin_step.h"

#include <dlfcn.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_set_text.h"
#include "engine_link.h"
#include "job_decision.h"
#include "launcher_step.h"
#include "pin_components.h"
#include "policy_yield.h"
#include "process_binding.h"
#include "slurm_binding_env.h"

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
  if (sp_topology_pus(s->placement, pus, sizeof pus) < 0) return step_fail(s, sp_error(s->placement));
  if (strcmp(online, pus) != 0) {
    char m[ERR_LEN];
    snprintf(m, sizeof m,
             "topology %.300s describes CPUs %.200s but this node has CPUs %.200s: fix topology= in plugstack.conf "
             "(--pin-dryrun previews it without binding)",
             s->config.topology, pus, online);
    return step_fail(s, m);
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
    return step_fail(s, "cannot read the job's allocated cores (S_JOB_ALLOC_CORES)");
  return strcmp(all, job_pus) == 0;
}

/* The step's CPUs on this node: its cores (Slurm numbers them as hwloc's
 * logical cores) as PUs, within what slurmstepd may use; with whole_node,
 * every CPU of a node the job holds whole for a step of one task there. */
static int step_cpus(struct pin_step *s, spank_t sp, uint32_t ntasks, char *cpus, size_t len) {
  char *cores = NULL;
  if (spank_get_item(sp, S_STEP_ALLOC_CORES, &cores) != ESPANK_SUCCESS || !cores || !*cores)
    return step_fail(s, "cannot read this step's allocated cores (S_STEP_ALLOC_CORES)");
  if (sp_cores_to_pus(s->placement, cores, s->step_pus, sizeof s->step_pus) < 0) return step_fail(s, sp_error(s->placement));
  const char *pus = s->step_pus;
  if (s->config.exclusive_only || (s->config.whole_node && ntasks == 1)) {
    int whole = job_has_node(s, sp, s->node_pus);
    if (whole < 0) return -1;
    if (!whole && s->config.exclusive_only) return -2; /* the job shares the node: stay out of the way */
    if (whole && s->config.whole_node && ntasks == 1) pus = s->node_pus;
  }
  return snprintf(cpus, len, "%s", pus) < (int)len ? 0 : step_fail(s, "too many CPUs in this step");
}

/* OMP_NUM_THREADS, as the engine reads it; unset: one thread per core. */
static int threads_wanted(struct pin_step *s, spank_t sp) {
  char value[LIST_LEN];
  int rc = spank_getenv(sp, "OMP_NUM_THREADS", value, sizeof value);
  if (rc == ESPANK_ENV_NOEXIST) return 0;
  if (rc != ESPANK_SUCCESS) return step_fail(s, "OMP_NUM_THREADS is too long to be a thread count");
  char err[512];
  int threads = sp_omp_num_threads_of(value, err, sizeof err);
  if (threads < 0) return step_fail(s, err);
  return sp_set_threads(s->placement, threads) == 0 ? 0 : step_fail(s, sp_error(s->placement));
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
    return step_fail(s, sp_error(s->placement));
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
  return step_fail(s, m);
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
  return sp_set_gpu_locality(s->placement, "closest") == 0 ? 0 : step_fail(s, sp_error(s->placement));
}

static int describe_in_slurm_terms(struct pin_step *s) {
  free(s->cpu_bind_list);
  s->cpu_bind_list = slurm_cpu_bind_list(sp_get_ntasks(s->placement), step_plan_task_cpus, s->placement);
  return s->cpu_bind_list ? 0 : step_fail(s, "cannot describe the binding in SLURM_CPU_BIND: out of memory");
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
  if (!ranks) return step_fail(s, "out of memory");
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
  return rc ? step_fail(s, sp_error(s->placement)) : 0;
}

static int compute(struct pin_step *s, spank_t sp, const char *strategy, const char *profile) {
  uint32_t ntasks = 0;
  int rc;
  char mine[PATH_MAX];
  const char *store = policy_profile_store(s, mine, sizeof mine);
  if (!store) return step_fail(s, "cannot find your home directory, where your own profile store is");
  s->placement = sp_init();
  if (!s->placement) return step_fail(s, "out of memory");
  if (sp_set_topology(s->placement, s->config.topology[0] ? s->config.topology : "this") != 0 ||
      sp_set_topology_cache(s->placement, cache_path(s)) != 0)
    return step_fail(s, sp_error(s->placement));
  if (s->config.topology[0] && !s->request.dryrun && check_topology_file(s) != 0) return -1;
  if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS || ntasks == 0)
    return step_fail(s, "cannot read the number of tasks on this node");
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
      (*profile && sp_set_profile(s->placement, profile, store, "simple", NULL)) ||
      sp_compute(s->placement))
    return step_fail(s, sp_error(s->placement));
  return s->request.dryrun ? 0 : describe_in_slurm_terms(s); /* a dry run sets no task's environment */
}

/* The step placed as the request and the policy say. A default rule's
 * profile that does not fit the step (none for its thread count, none at
 * all) yields: the rule's strategy without a profile when it needs none,
 * else compact, with a note; an enforced rule that cannot apply fails the
 * step with one line naming the rule. */
static int compute_with_policy(struct pin_step *s, spank_t sp, const char *strategy) {
  int from = policy_profile_source(s);
  int rc = compute(s, sp, strategy, pin_effective_profile(&s->request, &s->policy));
  if (rc != -1 || !from) return rc;
  char why[ERR_LEN], m[ERR_LEN];
  snprintf(why, sizeof why, "%s", s->failure);
  if (s->policy.explore) return policy_candidate_fails(s, why);
  if (from == 2) {
    s->failure[0] = '\0';
    policy_enforced_error(m, sizeof m, s->policy.rule, "step", why);
    return step_fail(s, m);
  }
  const char *instead = policy_without_profile(strategy);
  s->failure[0] = '\0';
  sp_finalize(s->placement);
  s->placement = NULL;
  if ((rc = compute(s, sp, instead, "")) != 0) return rc;
  policy_yield_note(s->note_text, sizeof s->note_text, s->policy.rule, s->policy.profile, why, instead);
  return 0;
}

/* The site's rules, checked again where the user cannot reach: whatever
 * the source of a value (srun's options, their environment twins, the
 * policy's decision), slurmstepd refuses what plugstack.conf forbids. */
int site_allows(struct pin_step *s, const char *strategy) {
  char err[ERR_LEN], m[ERR_LEN];
  /* "none" needs no engine: a step slurm-pin leaves alone does not load it. */
  if (strcmp(strategy, "none") == 0) {
    if (pin_check_site_rules(&s->config, strategy, err, sizeof err) != 0) return step_fail(s, err);
  } else if (pin_engine_load(err, sizeof err) != 0) {
    return step_fail(s, err);
  } else if (pin_config_check(&s->config, err, sizeof err) != 0) {
    snprintf(m, sizeof m, "plugstack.conf: %.900s", err);
    return step_fail(s, m);
  } else if (pin_check_strategy(&s->config, strategy, err, sizeof err) != 0) {
    return step_fail(s, err);
  }
  if (pin_check_enforced(&s->config, &s->request, err, sizeof err) != 0) return step_fail(s, err);
  if (s->request.dryrun && (s->config.enforce || (s->policy.present && s->policy.applies && s->policy.enforce))) {
    snprintf(m, sizeof m, "--pin-dryrun: %s binds every step of this job: remove --pin-dryrun",
             s->config.enforce ? "this cluster (enforce in plugstack.conf)" : "the site policy (an enforced rule)");
    return step_fail(s, m);
  }
  return 0;
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
int use_component_options(struct pin_step *s, spank_t sp) {
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
    return step_fail(s, m);
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
  if (locate_threads_lib(s, m, sizeof m) != 0) return step_fail(s, m);
  Dl_info self;
  const char *plugin = dladdr((void *)&slurm_spank_init, &self) ? self.dli_fname : "";
  if (launcher_find_command(plugin, s->launcher.command, sizeof s->launcher.command, err, sizeof err) != 0)
    return step_fail(s, err);
  s->placement = sp_init();
  if (!s->placement) return step_fail(s, "out of memory");
  if (sp_set_topology(s->placement, s->config.topology[0] ? s->config.topology : "this") != 0 ||
      sp_set_topology_cache(s->placement, cache_path(s)) != 0)
    return step_fail(s, sp_error(s->placement));
  if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS || ntasks == 0)
    return step_fail(s, "cannot read the number of tasks on this node");
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
  int from = policy_profile_source(s);
  const char *rule = from ? s->policy.rule : "", *mode = from == 2 ? "enforce" : from ? "default" : "";
  const char *fallback = from == 1 && !s->policy.explore ? policy_without_profile(strategy) : "";
  /* The ranks find the profile where the step would: the user's own store
   * for the autopilot's store=user candidate. */
  struct pin_config site = s->config;
  if (!policy_profile_store(s, site.store, sizeof site.store))
    return step_fail(s, "cannot find your home directory, where your own profile store is");
  struct rank_request r = {&ranks, &site, cache ? cache : "", s->policy_text, origin, s->launcher.name, node ? node : "",
                           rule, mode, fallback};
  if (launcher_rank_options(&r, s->launcher.options, sizeof s->launcher.options) != 0)
    return step_fail(s, "the ranks' options are too long to pass on");
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

/* A value of the step's options the engine refuses: srun checks them, so
 * they were sent some other way (a component's variable the user set). */
static int bad_request(struct pin_step *s, const char *why) {
  char m[ERR_LEN];
  if (!s->component_variable[0]) return step_fail(s, why);
  snprintf(m, sizeof m, "%s is malformed: %.800s", s->component_variable, why);
  return step_fail(s, m);
}

/* What the placing helper does for the step (step_helper.c): the options'
 * values and the site's rules checked again, then the launcher's
 * preparation or the step's placement. */
int place_step(struct pin_step *s, spank_t sp, const char *strategy, int batch) {
  char err[ERR_LEN];
  int rc;
  skip_hwloc_plugins(s, sp);
  snprintf(s->threads_mode, sizeof s->threads_mode, "%s", pin_effective_threads(&s->request, &s->policy));
  /* The options' values, as srun checked them: a user may send others. */
  if (pin_check_request(&s->request, err, sizeof err) != 0) return bad_request(s, err);
  if (site_allows(s, strategy) != 0) return -1;
  if (batch || is_launcher_daemon(s, sp)) return prepare_launcher(s, sp, strategy);
  if (find_threads_lib(s) != 0) return -1;
  if ((rc = compute_with_policy(s, sp, strategy)) == 0 && !s->request.dryrun) rc = check_program(s, sp);
  return rc;
}
