/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "slurm_pin_options.h"

#include <string.h>

#include "option_text.h"

static const struct sp_strategy_row strategies[] = {
    {"none", 0, "no binding: the OS scheduler places threads"},
    {"compact", 0, "thread n+1 on the free core closest to thread n (fills shared caches first)"},
    {"scatter", 0, "threads spread round-robin over the outermost domains (packages, NUMA nodes) first"},
    {"random", 0, "a seeded random permutation of the cores"},
    {"lp-compact", 1, "optimal pairs of threads (max-weight matching), pairs placed compact"},
    {"lp-scatter", 1, "optimal pairs of threads, pairs spread over the outermost domains"},
    {"gp", 1, "threads partitioned (METIS) onto the outermost shared caches, compact inside each"},
    {"lpgp", 1, "optimal pairs first, then pairs partitioned level by level down the cache tree"},
    {"gplp", 1, "threads partitioned level by level, optimal pairs where two cores share a cache"},
    {"file:PATH", 0, "explicit CPUs per task and thread from a placement file"},
};
#define STRATEGIES ((int)(sizeof strategies / sizeof strategies[0]))

int sp_strategy_rows(void) { return STRATEGIES; }

const struct sp_strategy_row *sp_strategy_row(int i) { return i >= 0 && i < STRATEGIES ? &strategies[i] : NULL; }

/* The index of `text` in the NULL-ended `names`, or -1. */
static int index_in(const char *const *names, const char *text) {
  for (int i = 0; names[i]; ++i)
    if (strcmp(text, names[i]) == 0) return i;
  return -1;
}

/* A value's text in a message: its first 64 bytes (option_text.h). */
static const char *shown(const char *text, char *buf, size_t len) {
  return option_text_shown(text, strlen(text), 64, buf, len);
}

/* -1, with "unknown WHAT 'TEXT': USE" in err. */
static int unknown(const char *what, const char *text, const char *use, char *err, size_t len) {
  char buf[300];
  return option_text_fail(err, len, "unknown %s '%s': %s", what, shown(text, buf, sizeof buf), use);
}

int sp_strategy_of(const char *text, char *err, size_t len) {
  text = text ? text : "";
  if (strncmp(text, "file:", 5) == 0) {
    if (text[5]) return STRATEGIES - 1;
    return option_text_fail(err, len, "strategy file: needs a path (write file:/path/to/placement)");
  }
  char use[256] = "use one of ";
  for (int i = 0; i < STRATEGIES; ++i) {
    if (i < STRATEGIES - 1 && strcmp(text, strategies[i].name) == 0) return i;
    strcat(use, strategies[i].name);
    strcat(use, i < STRATEGIES - 1 ? "|" : " (or 'help')");
  }
  return unknown("strategy", text, use, err, len);
}

int sp_granularity_of(const char *text, char *err, size_t len) {
  static const char *const names[] = {"pu", "core", "l2", "l3", "numa", NULL};
  int i = index_in(names, text ? text : "");
  return i >= 0 ? i : unknown("granularity", text ? text : "", "use pu, core, l2, l3 or numa", err, len);
}

int sp_smt_of(const char *text, char *err, size_t len) {
  text = text ? text : "";
  size_t n = strspn(text, "0123456789");
  int k = 0;
  for (size_t i = 0; i < n && i < 3; ++i) k = k * 10 + (text[i] - '0');
  if (n > 0 && n <= 3 && !text[n] && k >= 1 && k <= SP_MAX_SMT) return k;
  char buf[300];
  return option_text_fail(err, len, "smt (hardware threads per core) wants a whole number from 1 to %d, not '%s'",
                          SP_MAX_SMT, shown(text, buf, sizeof buf));
}

/* Each level is 1 to 5 digits (so no overflow) and a space may follow a comma. */
int sp_omp_num_threads_of(const char *value, char *err, size_t len) {
  if (!value || !*value) return 0;
  int first = 0;
  for (const char *v = value;;) {
    size_t n = strspn(v, "0123456789");
    long k = 0;
    for (size_t i = 0; i < n && i < 5; ++i) k = k * 10 + (v[i] - '0');
    if (n == 0 || n > 5 || k < 1 || k > 65536 || (v[n] != ',' && v[n] != '\0')) break;
    if (!first) first = (int)k;
    if (!v[n]) return first;
    v += n + 1;
    v += strspn(v, " ");
  }
  char buf[300];
  return option_text_fail(err, len,
                          "OMP_NUM_THREADS='%s' is not a thread count: set a number (or a list such as 8,2 for "
                          "nested levels), or unset it",
                          shown(value, buf, sizeof buf));
}

int sp_gpu_mode_of(const char *text, char *err, size_t len) {
  static const char *const names[] = {"closest", "none", NULL};
  int i = index_in(names, text ? text : "");
  return i >= 0 ? i : unknown("GPU mode", text ? text : "", "use closest or none", err, len);
}

static const char *const mem_policies[] = {"none", "local", "interleave", NULL};

int sp_mem_policy_of(const char *text, char *err, size_t len) {
  int i = index_in(mem_policies, text ? text : "");
  return i >= 0 ? i : unknown("memory policy", text ? text : "", "use none, local or interleave", err, len);
}

const char *sp_mem_policy_name(int policy) {
  return policy >= SP_MEM_NONE && policy <= SP_MEM_INTERLEAVE ? mem_policies[policy] : "?";
}

static const char *const thread_modes[] = {"env", "preload", "ompt", "auto", NULL};

int sp_thread_mode_of(const char *text, char *err, size_t len) {
  int i = index_in(thread_modes, text ? text : "");
  return i >= 0 ? i
                : unknown("thread binding", text ? text : "",
                          "use env (OpenMP variables), preload (the pthread shim), ompt (per-region pinning) or auto "
                          "(OpenMP variables for OpenMP threads, the shim for the others)",
                          err, len);
}

const char *sp_thread_mode_name(int mode) {
  return mode >= SP_THREADS_ENV && mode <= SP_THREADS_AUTO ? thread_modes[mode] : "?";
}

int sp_check_strategy(const char *name, char *err, size_t len) { return sp_strategy_of(name, err, len) < 0 ? -1 : 0; }
int sp_check_granularity(const char *g, char *err, size_t len) { return sp_granularity_of(g, err, len) < 0 ? -1 : 0; }
int sp_check_smt(const char *k, char *err, size_t len) { return sp_smt_of(k, err, len) < 0 ? -1 : 0; }
int sp_check_gpu_mode(const char *mode, char *err, size_t len) { return sp_gpu_mode_of(mode, err, len) < 0 ? -1 : 0; }
int sp_check_mem_policy(const char *p, char *err, size_t len) { return sp_mem_policy_of(p, err, len) < 0 ? -1 : 0; }
int sp_check_thread_mode(const char *m, char *err, size_t len) { return sp_thread_mode_of(m, err, len) < 0 ? -1 : 0; }

int sp_strategy_needs_profile(const char *name) {
  int i = sp_strategy_of(name, NULL, 0);
  return i >= 0 && strategies[i].needs_profile;
}
