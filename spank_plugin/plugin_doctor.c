/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "plugin_doctor.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "engine_link.h"
#include "pin_config.h"
#include "slurm_pin_frontend.h"

#define MSG_LEN 1200

/* The values only the engine knows and the root directories, for a
 * configuration that differs from the defaults in one argument at most. */
static int check_values(const struct pin_config *c, const char *what, pin_doctor_report report, void *ctx) {
  char err[MSG_LEN];
  if (pin_config_check(c, err, sizeof err) == 0) return 0;
  report(ctx, 1, what, err);
  return 1;
}

/* Each argument alone over the defaults: one mistake never hides another. */
static int check_arguments(int ac, char **av, struct pin_config *all, pin_doctor_report report, void *ctx) {
  int errors = 0;
  char err[MSG_LEN];
  for (int i = 0; i < ac; ++i) {
    struct pin_config one;
    pin_config_defaults(&one);
    if (pin_config_parse_arg(&one, av[i], err, sizeof err) != 0) {
      report(ctx, 1, av[i], err);
      ++errors;
      continue;
    }
    pin_config_parse_arg(all, av[i], err, sizeof err);
    errors += check_values(&one, av[i], report, ctx);
  }
  return errors;
}

/* Where the plugin is, as its hooks find it. */
static const char *plugin_path(void) {
  Dl_info self;
  return dladdr((void *)&slurm_pin_doctor, &self) && self.dli_fname ? self.dli_fname : "";
}

static int check_thread_runtime(const struct pin_config *c, pin_doctor_report report, void *ctx) {
  char err[MSG_LEN], found[PATH_MAX], m[MSG_LEN + 64];
  if (c->threads_lib[0]) {
    if (sp_check_thread_library(c->threads_lib, err, sizeof err) == 0) return 0;
    snprintf(m, sizeof m, "threads_lib= cannot be used: %.1000s", err);
    report(ctx, 1, "thread runtime", m);
    return 1;
  }
  if (sp_find_thread_library(plugin_path(), found, sizeof found, err, sizeof err) == 0) return 0;
  snprintf(m, sizeof m, "%.1000s (--pin-thread-binding=preload|ompt would fail, and auto bind by OpenMP variables only; or set threads_lib=)", err);
  report(ctx, 1, "thread runtime", m);
  return 1;
}

int slurm_pin_doctor(int ac, char **av, pin_doctor_report report, void *ctx) {
  char err[MSG_LEN];
  if (pin_engine_load(err, sizeof err) != 0) {
    report(ctx, 1, "engine", err);
    return 1;  /* every value check needs it */
  }
  struct pin_config all;
  pin_config_defaults(&all);
  int errors = check_values(&all, "the defaults", report, ctx);
  if (errors) return errors;
  errors = check_arguments(ac, av, &all, report, ctx);
  if (errors) return errors;
  /* The line as a whole: what no argument says alone (default= outside allowed=). */
  struct pin_config line;
  pin_config_defaults(&line);
  if (pin_config_parse(&line, ac, av, err, sizeof err) != 0) {
    report(ctx, 1, "the line", err);
    return 1;
  }
  errors = check_thread_runtime(&line, report, ctx);
  /* What the doctor checks beyond the node's plugin: the store's directory
   * and whether the site's policy is on. */
  report(ctx, 0, "store", line.store);
  report(ctx, 0, "policy", line.policy ? "on" : "off");
  return errors;
}
