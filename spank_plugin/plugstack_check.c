/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm-pin-plugstack-check [--plugin-dir DIRS] FILE...: the part of
 * `slurm-pin doctor` that reads plugstack.conf (and the files its include
 * lines name: plugstack_conf.h). Every line that loads slurm_pin.so is
 * checked by this slurm-pin's own plugin (plugin_doctor.h), as its hooks
 * would check it.
 *
 * Root runs this on files anyone may have written (`doctor --plugstack` on
 * a proposed line), so what a line names is data: its path is resolved as
 * Slurm resolves it (absolute, else the first directory of PluginDir that
 * holds it, else Slurm's own plugin directory) and must be root's alone and
 * the same file as this slurm-pin's plugin. The only code loaded is Slurm's
 * library and that plugin, by absolute paths in directories only root can
 * write; never what a line names, never the current directory.
 *
 * One line per finding on stdout, tab-separated for the doctor to print:
 *   error|note <TAB> FILE:LINE <TAB> WHAT <TAB> MESSAGE
 *   plugin <TAB> FILE:LINE <TAB> PATH <TAB> SLURM_VERSION_IT_WAS_BUILT_FOR
 * Exit status 0 when there is no error, 1 otherwise, 2 on a bad command line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin_doctor.h"
#include "plugstack_conf.h"
#include "self_dir.h"
#include "trusted_dir.h"

#define MSG 1200

struct checker {
  const char *plugin_dirs; /* PluginDir, colon-separated; "" for Slurm's own */
  char own[PATH_MAX];      /* this slurm-pin's plugin, resolved; "" if not trusted */
  char own_problem[MSG];
  struct stat own_st;
  void *plugin; /* own, loaded at the first line that names it */
  const char *file;
  int line, errors, lines_found;
};

static void finding(void *ctx, int error, const char *what, const char *message) {
  struct checker *c = ctx;
  printf("%s\t%s:%d\t%s\t%s\n", error ? "error" : "note", c->file, c->line, what, message);
  c->errors += error;
}

/* This slurm-pin's plugin: beside this program's build tree, else where the
 * packages install it relative to this program. Must be root's alone. */
static void find_own_plugin(struct checker *c) {
  char self[PATH_MAX], path[2 * PATH_MAX], err[MSG];
  c->own[0] = '\0';
  if (self_dir(self, sizeof self) != 0) {
    snprintf(c->own_problem, sizeof c->own_problem, "cannot tell where this program is: %s", strerror(errno));
    return;
  }
  if (strcmp(self, PIN_BUILD_BIN_DIR) == 0) snprintf(path, sizeof path, "%s", PIN_BUILD_PLUGIN);
  else snprintf(path, sizeof path, "%s/%s/slurm_pin.so", self, PIN_HELPERS_TO_PLUGIN);
  if (trusted_file_path(path, c->own, err, sizeof err) != 0 || stat(c->own, &c->own_st) != 0) {
    c->own[0] = '\0';
    snprintf(c->own_problem, sizeof c->own_problem,
             "this slurm-pin's plugin cannot be checked (%.900s): install slurm-pin-spank", err);
  }
}

/* Slurm's own library, which srun and slurmstepd bring to the plugin (whose
 * calls into Slurm are bound when it loads): where the build found it, in
 * Slurm's plugin directory; loaded only if root's alone. Without it the
 * plugin's own load fails, naming the symbol it lacks. */
static void load_slurm(void) {
  char path[PATH_MAX], err[MSG];
  if (trusted_file_path(PIN_SLURMFULL, path, err, sizeof err) == 0) dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

/* The file Slurm would load for a line's `name`: absolute as given, else
 * in the first absolute directory of PluginDir that holds it. 0 with `out`
 * set, or -1 with `err` saying where it was looked for. */
static int resolve_like_slurm(const struct checker *c, const char *name, char *out, size_t len, char *err,
                              size_t elen) {
  if (name[0] == '/') {
    snprintf(out, len, "%s", name);
    return 0;
  }
  const char *dirs = c->plugin_dirs[0] ? c->plugin_dirs : PIN_SLURM_PLUGIN_DIR;
  for (const char *d = dirs; *d;) {
    size_t n = strcspn(d, ":");
    if (n > 0 && d[0] == '/') { /* a relative PluginDir is relative to wherever slurmd started */
      snprintf(out, len, "%.*s/%s", (int)n, d, name);
      if (access(out, F_OK) == 0) return 0;
    }
    d += n + (d[n] == ':');
  }
  snprintf(err, elen, "%.200s is not in %s (%.600s): install slurm-pin-spank, or give the plugin's absolute path", name,
           c->plugin_dirs[0] ? "slurm.conf's PluginDir" : "Slurm's plugin directory", dirs);
  return -1;
}

/* The line's plugin is this slurm-pin's, by a path only root can change:
 * 0, or -1 with one line in `err`. */
static int same_as_own(const struct checker *c, const char *path, char *err, size_t len) {
  char resolved[PATH_MAX], why[MSG];
  struct stat st;
  if (trusted_file_path(path, resolved, why, sizeof why) != 0) {
    if (errno == ENOENT) snprintf(err, len, "%.1000s: install slurm-pin-spank, or fix the path", why);
    else snprintf(err, len, "%.700s: slurmstepd would load whatever its owner puts there: use %.300s", why, c->own);
    return -1;
  }
  if (stat(resolved, &st) != 0 || st.st_dev != c->own_st.st_dev || st.st_ino != c->own_st.st_ino) {
    snprintf(err, len, "%.300s is not the plugin this doctor was installed with (%.300s), and the doctor runs no "
             "other code: point the line at %.300s, or run the doctor of that plugin's slurm-pin", path, c->own, c->own);
    return -1;
  }
  return 0;
}

static pin_doctor_fn own_doctor(struct checker *c, char *err, size_t len) {
  if (!c->plugin) {
    load_slurm();
    /* Lazy where the plugin allows it: Slurm's functions are never called by the doctor. */
    c->plugin = dlopen(c->own, RTLD_LAZY | RTLD_LOCAL);
    if (!c->plugin) {
      snprintf(err, len, "cannot load %.200s (%.900s): install slurm-pin-spank", c->own, dlerror());
      return NULL;
    }
  }
  pin_doctor_fn doctor = (pin_doctor_fn)dlsym(c->plugin, PIN_DOCTOR_SYMBOL);
  if (!doctor) snprintf(err, len, "%.1000s predates slurm-pin doctor: install slurm-pin-spank of this doctor's version", c->own);
  return doctor;
}

static void check_plugin_line(struct checker *c, const char *name, int ac, char **av) {
  char path[PATH_MAX + NAME_MAX], err[MSG];
  ++c->lines_found;
  if (resolve_like_slurm(c, name, path, sizeof path, err, sizeof err) != 0) return finding(c, 1, name, err);
  if (!c->own[0]) return finding(c, 1, path, c->own_problem);
  if (same_as_own(c, path, err, sizeof err) != 0) return finding(c, 1, path, err);
  pin_doctor_fn doctor = own_doctor(c, err, sizeof err);
  if (!doctor) return finding(c, 1, path, err);
  const unsigned *version = dlsym(c->plugin, "plugin_version");
  printf("plugin\t%s:%d\t%s\t%u.%02u.%u\n", c->file, c->line, path, version ? *version >> 16 : 0,
         version ? (*version >> 8) & 0xff : 0, version ? *version & 0xff : 0);
  doctor(ac, av, finding, c);
}

static int visit(void *ctx, const struct plugstack_line *l, const char *problem) {
  struct checker *c = ctx;
  c->file = l->file;
  c->line = l->number;
  if (problem) {
    finding(c, 1, "plugstack.conf", problem);
    return 0;
  }
  if (plugstack_line_loads_slurm_pin(l)) check_plugin_line(c, l->argv[1], l->argc - 2, l->argv + 2);
  return 0;
}

int main(int argc, char **argv) {
  struct checker c = {.plugin_dirs = ""};
  int i = 1;
  if (i + 1 < argc && strcmp(argv[i], "--plugin-dir") == 0) c.plugin_dirs = argv[i + 1], i += 2;
  if (i >= argc) {
    fprintf(stderr, "usage: slurm-pin-plugstack-check [--plugin-dir DIR[:DIR...]] PLUGSTACK.CONF...\n");
    return 2;
  }
  find_own_plugin(&c);
  for (; i < argc; ++i) plugstack_conf_read(argv[i], visit, &c);
  if (c.lines_found == 0) printf("none\t-\t-\tno line loads slurm_pin.so\n");
  return c.errors ? 1 : 0;
}
