/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How the step's threads are bound on this node, in the placing helper
 * (pin_step.h): preload, ompt and auto load slurm-pin's thread library into
 * the program, so the library must be there and the program must take it;
 * where auto cannot, OMP_PLACES alone binds the threads, and verbose users
 * are told why.
 */
#define _GNU_SOURCE
#include "pin_step.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* The thread library: configured (threads_lib=) or beside the plugin, and
 * readable by the user: 0, or -1 with `m` saying why not. */
int locate_threads_lib(struct pin_step *s, char *m, size_t len) {
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
int find_threads_lib(struct pin_step *s) {
  char m[ERR_LEN + 128], note[ERR_LEN];
  if (strcmp(s->threads_mode, "env") == 0 || locate_threads_lib(s, m, sizeof m) == 0) return 0;
  if (strcmp(s->threads_mode, "auto") != 0) return step_fail(s, m);
  sp_auto_binding_note(NULL, NULL, "slurm-pin's thread library is not installed on this node", note, sizeof note);
  threads_by_env_only(s, note);
  return 0;
}

/* preload and ompt: the program must take the library, or its threads
 * would stay where the task is while the verbose line names places. */
int check_program(struct pin_step *s, spank_t sp) {
  if (strcmp(s->threads_mode, "env") == 0) return 0;
  int argc = 0;
  char **argv = NULL, err[ERR_LEN];
  char path[LIST_LEN];
  if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS || argc < 1 || !argv[0]) return 0;
  if (spank_getenv(sp, "PATH", path, sizeof path) != ESPANK_SUCCESS) path[0] = '\0';
  if (strcmp(s->threads_mode, "auto") != 0)
    return sp_check_preloadable(argv[0], path, err, sizeof err) == 0 ? 0 : step_fail(s, err);
  /* auto: a program that cannot load the library is placed as env places it. */
  if (sp_auto_binding_note(argv[0], path, NULL, err, sizeof err) == 0) return 0;
  threads_by_env_only(s, err);
  return sp_set_thread_mode(s->placement, "env") == 0 ? 0 : step_fail(s, sp_error(s->placement));
}
