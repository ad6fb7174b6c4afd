/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "engine_link.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "slurm_pin/placement.h"

#ifndef PIN_PLUGIN_TO_LIB
#define PIN_PLUGIN_TO_LIB ".."
#endif
#ifndef PIN_ENGINE_SONAME
#define PIN_ENGINE_SONAME "libslurmpin.so.0"
#endif
#define ENGINE_SONAME PIN_ENGINE_SONAME

static void *engine;
static char load_error[1024];

const char *pin_engine_error(void) { return load_error; }

/* The plugin's directory, from the address of this code. */
static int plugin_dir(char *dir, size_t len) {
  Dl_info self;
  if (!dladdr((void *)&pin_engine_load, &self) || !self.dli_fname) return -1;
  const char *slash = strrchr(self.dli_fname, '/');
  if (!slash) return -1;
  return snprintf(dir, len, "%.*s", (int)(slash - self.dli_fname), self.dli_fname) < (int)len ? 0 : -1;
}

static void *try_open(const char *path) {
  /* Local: the engine's hwloc and C++ runtime stay out of the program's
   * symbol lookups. Now: a missing symbol shows here, not mid-step. */
  return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

int pin_engine_load(char *err, size_t len) {
  if (!engine) {
    char dir[PATH_MAX], path[PATH_MAX + 64];
    if (plugin_dir(dir, sizeof dir) == 0) {
      snprintf(path, sizeof path, "%s/%s", dir, ENGINE_SONAME);
      engine = try_open(path);
      if (!engine) {
        snprintf(path, sizeof path, "%s/%s/%s", dir, PIN_PLUGIN_TO_LIB, ENGINE_SONAME);
        engine = try_open(path);
      }
    }
    if (!engine) engine = try_open(ENGINE_SONAME);
    if (!engine) {
      const char *why = dlerror();
      snprintf(load_error, sizeof load_error,
               "cannot load the placement engine %s (%.600s): install the libslurmpin0 package of the "
               "plugin's version",
               ENGINE_SONAME, why ? why : "not found");
    }
  }
  if (!engine && err && len) snprintf(err, len, "%s", load_error);
  return engine ? 0 : -1;
}

/* The engine's function `name`, loading the engine first; NULL on failure
 * (load_error says why). */
static void *engine_symbol(const char *name) {
  if (pin_engine_load(NULL, 0) != 0) return NULL;
  void *f = dlsym(engine, name);
  if (!f)
    snprintf(load_error, sizeof load_error,
             "the placement engine %s lacks %s: install the libslurmpin0 package of the plugin's version",
             ENGINE_SONAME, name);
  return f;
}

/* Inside each forwarder: `real` is the engine's function of the same name
 * and type (checked against placement.h), or the forwarder returns `fail`. */
#define LINK(name, fail)                                  \
  static __typeof__(&name) real;                          \
  if (!real) {                                            \
    union { void *object; __typeof__(&name) fn; } u;      \
    u.object = engine_symbol(#name);                      \
    if (!u.object) return fail;                           \
    real = u.fn;                                          \
  }
/* The same for checks that explain a failure in err[len]. */
#define LINK_CHECK(name, err, len)                        \
  static __typeof__(&name) real;                          \
  if (!real) {                                            \
    union { void *object; __typeof__(&name) fn; } u;      \
    u.object = engine_symbol(#name);                      \
    if (!u.object) {                                      \
      if (err && len) snprintf(err, len, "%s", load_error); \
      return -1;                                          \
    }                                                     \
    real = u.fn;                                          \
  }

/* ---- handle ----------------------------------------------------------- */

sp_placement_t *sp_init(void) { LINK(sp_init, NULL); return real(); }
void sp_finalize(sp_placement_t *p) {
  if (!p) return; /* nothing was computed: nothing to load */
  LINK(sp_finalize, );
  real(p);
}
const char *sp_error(const sp_placement_t *p) { LINK(sp_error, load_error); return real(p); }

/* ---- inputs ----------------------------------------------------------- */

int sp_set_topology(sp_placement_t *p, const char *source) { LINK(sp_set_topology, -1); return real(p, source); }
int sp_set_topology_cache(sp_placement_t *p, const char *path) {
  LINK(sp_set_topology_cache, -1);
  return real(p, path);
}
int sp_set_restrict(sp_placement_t *p, const char *cpulist) { LINK(sp_set_restrict, -1); return real(p, cpulist); }
int sp_set_restrict_to_process(sp_placement_t *p, int on) { LINK(sp_set_restrict_to_process, -1); return real(p, on); }
int sp_set_granularity(sp_placement_t *p, const char *g) { LINK(sp_set_granularity, -1); return real(p, g); }
int sp_set_strategy(sp_placement_t *p, const char *name) { LINK(sp_set_strategy, -1); return real(p, name); }
int sp_set_tasks(sp_placement_t *p, int ntasks) { LINK(sp_set_tasks, -1); return real(p, ntasks); }
int sp_set_oversubscribe(sp_placement_t *p, int allow) { LINK(sp_set_oversubscribe, -1); return real(p, allow); }
int sp_set_smt(sp_placement_t *p, int k) { LINK(sp_set_smt, -1); return real(p, k); }
int sp_set_gpu(sp_placement_t *p, const char *mode) { LINK(sp_set_gpu, -1); return real(p, mode); }
int sp_set_gpu_env(sp_placement_t *p, const char *name, const char *value) {
  LINK(sp_set_gpu_env, -1);
  return real(p, name, value);
}
int sp_set_phases(sp_placement_t *p, int on, double merge) { LINK(sp_set_phases, -1); return real(p, on, merge); }
int sp_set_profile(sp_placement_t *p, const char *spec, const char *store, const char *model, const char *region) {
  LINK(sp_set_profile, -1);
  return real(p, spec, store, model, region);
}
int sp_set_omp_num_threads(sp_placement_t *p, const char *value) {
  LINK(sp_set_omp_num_threads, -1);
  return real(p, value);
}
int sp_set_thread_mode(sp_placement_t *p, const char *mode) { LINK(sp_set_thread_mode, -1); return real(p, mode); }
int sp_set_thread_library(sp_placement_t *p, const char *path) {
  LINK(sp_set_thread_library, -1);
  return real(p, path);
}
int sp_set_mem_policy(sp_placement_t *p, const char *policy) { LINK(sp_set_mem_policy, -1); return real(p, policy); }
int sp_set_legacy_omp_env(sp_placement_t *p, int on) { LINK(sp_set_legacy_omp_env, -1); return real(p, on); }
int sp_set_origin(sp_placement_t *p, const char *why) { LINK(sp_set_origin, -1); return real(p, why); }
int sp_set_slurm_cpu_bind(sp_placement_t *p, int on) { LINK(sp_set_slurm_cpu_bind, -1); return real(p, on); }
int sp_set_policy_decision(sp_placement_t *p, const char *decision) {
  LINK(sp_set_policy_decision, -1);
  return real(p, decision);
}
const char *const *sp_gpu_env_names(void) {
  static const char *const none[] = {NULL}; /* no engine: no GPU variables to read */
  LINK(sp_gpu_env_names, none);
  return real();
}

/* ---- computing, binding, environment ---------------------------------- */

int sp_set_budget(sp_placement_t *p, size_t max_file_bytes, double max_seconds) {
  LINK(sp_set_budget, -1);
  return real(p, max_file_bytes, max_seconds);
}
int sp_compute(sp_placement_t *p) { LINK(sp_compute, -1); return real(p); }
int sp_bind_task(sp_placement_t *p, int task) { LINK(sp_bind_task, -1); return real(p, task); }
const char *sp_describe_task(sp_placement_t *p, int task) { LINK(sp_describe_task, NULL); return real(p, task); }
const char *sp_get_task_data(sp_placement_t *p, int task) { LINK(sp_get_task_data, NULL); return real(p, task); }
int sp_get_env_count(sp_placement_t *p) { LINK(sp_get_env_count, -1); return real(p); }
const char *sp_get_env_name(sp_placement_t *p, int i) { LINK(sp_get_env_name, NULL); return real(p, i); }
const char *sp_get_env_value(sp_placement_t *p, int task, int i, const char *current) {
  LINK(sp_get_env_value, NULL);
  return real(p, task, i, current);
}
int sp_cores_to_pus(sp_placement_t *p, const char *cores, char *buf, size_t len) {
  LINK(sp_cores_to_pus, -1);
  return real(p, cores, buf, len);
}
int sp_topology_pus(sp_placement_t *p, char *buf, size_t len) { LINK(sp_topology_pus, -1); return real(p, buf, len); }
int sp_save_topology(const char *path, char *err, size_t len) {
  LINK_CHECK(sp_save_topology, err, len);
  return real(path, err, len);
}

/* ---- checks and names ------------------------------------------------- */

int sp_check_strategy(const char *name, char *err, size_t len) {
  LINK_CHECK(sp_check_strategy, err, len);
  return real(name, err, len);
}
int sp_check_mem_policy(const char *policy, char *err, size_t len) {
  LINK_CHECK(sp_check_mem_policy, err, len);
  return real(policy, err, len);
}
int sp_check_thread_mode(const char *mode, char *err, size_t len) {
  LINK_CHECK(sp_check_thread_mode, err, len);
  return real(mode, err, len);
}
int sp_check_granularity(const char *granularity, char *err, size_t len) {
  LINK_CHECK(sp_check_granularity, err, len);
  return real(granularity, err, len);
}
int sp_check_smt(const char *k, char *err, size_t len) { LINK_CHECK(sp_check_smt, err, len); return real(k, err, len); }
int sp_check_gpu_mode(const char *mode, char *err, size_t len) {
  LINK_CHECK(sp_check_gpu_mode, err, len);
  return real(mode, err, len);
}
int sp_check_profile(const char *spec, const char *store, char *err, size_t len) {
  LINK_CHECK(sp_check_profile, err, len);
  return real(spec, store, err, len);
}
int sp_check_placement_file(const char *path, char *err, size_t len) {
  LINK_CHECK(sp_check_placement_file, err, len);
  return real(path, err, len);
}
int sp_check_thread_library(const char *path, char *err, size_t len) {
  LINK_CHECK(sp_check_thread_library, err, len);
  return real(path, err, len);
}
int sp_find_thread_library(const char *from, char *buf, size_t len, char *err, size_t errlen) {
  LINK_CHECK(sp_find_thread_library, err, errlen);
  return real(from, buf, len, err, errlen);
}
int sp_check_preloadable(const char *program, const char *path_env, char *err, size_t len) {
  LINK_CHECK(sp_check_preloadable, err, len);
  return real(program, path_env, err, len);
}
const char *sp_strategies_help(void) { LINK(sp_strategies_help, load_error); return real(); }
int sp_strategy_needs_profile(const char *name) { LINK(sp_strategy_needs_profile, -1); return real(name); }
int sp_is_profile_name(const char *spec) { LINK(sp_is_profile_name, 0); return real(spec); }
