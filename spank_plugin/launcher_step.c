/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "launcher_step.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kv_text.h"
#include "name_list.h"
#include "pin_components.h"
#include "trusted_dir.h"

#ifndef PIN_PLUGIN_TO_BIN
#define PIN_PLUGIN_TO_BIN "../../../bin"
#endif

int launcher_named(const char *launchers, const char *argv0, char *name, size_t len) {
  const char *base = name_in_list(launchers, argv0);
  return base && snprintf(name, len, "%s", base) < (int)len;
}

/* Whether `file` is one execvp would run: a regular file with an execute bit. */
static int executable(const char *file) {
  struct stat st;
  return stat(file, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH));
}

int launcher_program_trusted(const char *argv0, const char *path_env, char *why, size_t len) {
  if (!argv0 || !*argv0) return snprintf(why, len, "no program"), 0;
  if (strchr(argv0, '/')) return trusted_program(argv0, why, len) == 0;
  char file[PATH_MAX];
  for (const char *d = path_env ? path_env : ""; *d;) {
    size_t n = strcspn(d, ":");
    if (n == 0 || d[0] != '/') /* the task's working directory: a user's */
      return snprintf(why, len, "PATH has a relative directory before %s", argv0), 0;
    if (snprintf(file, sizeof file, "%.*s/%s", (int)n, d, argv0) >= (int)sizeof file)
      return snprintf(why, len, "PATH entry too long"), 0;
    if (executable(file)) return trusted_program(file, why, len) == 0;
    /* Not here: nobody but root may be able to put it here later. */
    file[n] = '\0';
    if (trusted_path_dir(file, why, len) != 0 && errno != ENOENT && errno != EACCES) return 0;
    d += n + (d[n] == ':');
  }
  return snprintf(why, len, "%s is in no directory of PATH", argv0), 0;
}

int launcher_rank_options(const struct rank_request *r, char *out, size_t len) {
  if (pin_request_format(r->settings, out, len) != 0) return -1;
  size_t at = strlen(out);
  char number[64];
  int rc = kv_put(out, len, &at, "store", r->site->store) || kv_put(out, len, &at, "cache", r->topology_cache) ||
           kv_put(out, len, &at, "decision", r->decision) || kv_put(out, len, &at, "origin", r->origin) ||
           kv_put(out, len, &at, "launcher", r->launcher) || kv_put(out, len, &at, "launchers", r->site->launchers) ||
           kv_put(out, len, &at, "node", r->node) || kv_put(out, len, &at, "rule", r->rule) ||
           kv_put(out, len, &at, "rule_mode", r->rule_mode) || kv_put(out, len, &at, "fallback", r->fallback) ||
           kv_put(out, len, &at, "legacy", r->site->legacy_omp_env ? "1" : "");
  snprintf(number, sizeof number, "%llu", r->site->max_file);
  rc = rc || kv_put(out, len, &at, "max_file", number);
  snprintf(number, sizeof number, "%g", r->site->max_time);
  return rc || kv_put(out, len, &at, "max_time", number) ? -1 : 0;
}

int launcher_find_command(const char *plugin, char *path, size_t len, char *err, size_t errlen) {
  const char *slash = strrchr(plugin, '/');
  if (!slash) return snprintf(err, errlen, "cannot tell where the plugin is installed"), -1;
  int dir = (int)(slash - plugin);
  const char *relative[] = {"../bin", PIN_PLUGIN_TO_BIN};
  char tried[1024] = "";
  for (size_t i = 0; i < sizeof relative / sizeof relative[0]; ++i) {
    snprintf(path, len, "%.*s/%s/slurm-pin", dir, plugin, relative[i]);
    if (access(path, X_OK) == 0) return 0;
    snprintf(tried + strlen(tried), sizeof tried - strlen(tried), "%s%s", tried[0] ? ", " : "", path);
  }
  snprintf(err, errlen, "the slurm-pin command is in none of %s: install the slurm-pin package", tried);
  return -1;
}
