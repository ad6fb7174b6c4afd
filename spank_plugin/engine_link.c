/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "engine_link.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "slurm_pin_frontend.h"

#ifndef PIN_PLUGIN_TO_LIB
#define PIN_PLUGIN_TO_LIB ".."
#endif
/* The engine with the front-end interface the plugin uses beyond the
 * public API: private to slurm-pin, shipped with the plugin. */
#ifndef PIN_ENGINE_NAME
#define PIN_ENGINE_NAME "libslurmpin_frontend.so"
#endif
#define ENGINE_NAME PIN_ENGINE_NAME
#define ENGINE_FIX "install the plugin's package (slurm-pin-spank) again: the engine ships with it"

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
      snprintf(path, sizeof path, "%s/%s", dir, ENGINE_NAME);
      engine = try_open(path);
      if (!engine) {
        snprintf(path, sizeof path, "%s/%s/slurm-pin/%s", dir, PIN_PLUGIN_TO_LIB, ENGINE_NAME);
        engine = try_open(path);
      }
    }
    if (!engine) {
      const char *why = dlerror();
      snprintf(load_error, sizeof load_error, "cannot load the placement engine %s (%.600s): %s", ENGINE_NAME,
               why ? why : "the plugin's directory is unknown", ENGINE_FIX);
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
             "the placement engine %s lacks %s: %s", ENGINE_NAME, name, ENGINE_FIX);
  return f;
}

/* Inside each forwarder: `real` is the engine's function of the same name
 * and type (checked against its declaration), or the forwarder returns `fail`. */
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

/* ---- by hand: calls whose failure is not the usual one ----------------- */

void sp_finalize(sp_placement_t *p) {
  if (!p) return; /* nothing was computed: nothing to load */
  LINK(sp_finalize, );
  real(p);
}
const char *sp_error(const sp_placement_t *p) { LINK(sp_error, load_error); return real(p); }
const char *sp_strategies_help(void) { LINK(sp_strategies_help, load_error); return real(); }
/* hwloc comes with the engine, not with the plugin: its CPU list printer
 * (of the engine's CPU sets) is the engine's, found in its libraries. */
int hwloc_bitmap_list_snprintf(char *buf, size_t len, hwloc_const_bitmap_t set) {
  LINK(hwloc_bitmap_list_snprintf, -1);
  return real(buf, len, set);
}
const char *const *sp_job_gpu_variable_names(void) {
  static const char *const none[] = {NULL}; /* no engine: no GPU variables to read */
  LINK(sp_job_gpu_variable_names, none);
  return real();
}

/* ---- every other function of the API: pointers NULL, numbers -1, checks
 * with the reason in their err (gen_forwarders.awk) ---------------------- */

#include "engine_forwarders.inc"
