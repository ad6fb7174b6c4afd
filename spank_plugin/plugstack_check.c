/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm-pin-plugstack-check [--plugin-dir DIR] FILE...: the part of
 * `slurm-pin doctor` that reads plugstack.conf. Every line that loads
 * slurm_pin.so (in FILE and the files its `include` lines name) is handed to
 * that very plugin, loaded with dlopen, whose slurm_pin_doctor() checks it
 * as the plugin's hooks would (plugin_doctor.h). One line per finding on
 * stdout, tab-separated for the doctor to print:
 *   error|note <TAB> FILE:LINE <TAB> WHAT <TAB> MESSAGE
 *   plugin <TAB> FILE:LINE <TAB> PATH <TAB> SLURM_VERSION_IT_WAS_BUILT_FOR
 * Exit status 0 when there is no error, 1 otherwise, 2 on a bad command line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_doctor.h"

#define MAX_DEPTH 8       /* include inside include ... */
#define MAX_ARGS 128      /* arguments on one plugstack line */
#define MAX_LINE 65536    /* longer lines are reported, not parsed */

struct where {
  const char *file;
  int line;
  int errors, lines_found;
};

static const char *plugin_dir = "";

#ifndef PIN_SLURMFULL
#define PIN_SLURMFULL "libslurmfull.so"
#endif

/* Slurm's own library, which srun and slurmstepd bring to the plugin: the
 * plugin's calls into Slurm are bound when it loads (Debian builds it with
 * -z now), so they must be there first, for every plugin loaded after. Beside
 * the plugin (Debian and RPM put libslurmfull.so in the plugin directory),
 * in PluginDir, or where the build found it. */
static void load_slurm(const char *plugin) {
  static int loaded;
  if (loaded) return;
  char path[PATH_MAX];
  const char *slash = strrchr(plugin, '/');
  const char *dirs[] = {NULL, plugin_dir};
  char here[PATH_MAX];
  snprintf(here, sizeof here, "%.*s", slash ? (int)(slash - plugin) : 1, slash ? plugin : ".");
  dirs[0] = here;
  for (size_t i = 0; i < 2 && !loaded; ++i) {
    if (!dirs[i][0]) continue;
    snprintf(path, sizeof path, "%s/libslurmfull.so", dirs[i]);
    loaded = dlopen(path, RTLD_NOW | RTLD_GLOBAL) != NULL;
  }
  if (!loaded) loaded = dlopen(PIN_SLURMFULL, RTLD_NOW | RTLD_GLOBAL) != NULL;
}

static void finding(void *ctx, int error, const char *what, const char *message) {
  struct where *w = ctx;
  printf("%s\t%s:%d\t%s\t%s\n", error ? "error" : "note", w->file, w->line, what, message);
  w->errors += error;
}

/* Loads the plugin the line names and lets it check the line. */
static void check_plugin_line(struct where *w, const char *path, int ac, char **av) {
  char full[PATH_MAX];
  if (path[0] != '/' && plugin_dir[0]) {
    snprintf(full, sizeof full, "%s/%s", plugin_dir, path);
    path = full;
  }
  ++w->lines_found;
  load_slurm(path);
  /* Lazy where the plugin allows it: Slurm's functions are never called by
   * the doctor. */
  void *plugin = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  if (!plugin) {
    char m[1200];
    snprintf(m, sizeof m, "cannot load it (%.900s): install slurm-pin-spank, or fix the path", dlerror());
    finding(w, 1, path, m);
    return;
  }
  const unsigned *version = dlsym(plugin, "plugin_version");
  printf("plugin\t%s:%d\t%s\t%u.%02u.%u\n", w->file, w->line, path, version ? *version >> 16 : 0,
         version ? (*version >> 8) & 0xff : 0, version ? *version & 0xff : 0);
  pin_doctor_fn doctor = (pin_doctor_fn)dlsym(plugin, PIN_DOCTOR_SYMBOL);
  if (!doctor) {
    finding(w, 1, path, "this slurm_pin.so predates slurm-pin doctor: install the slurm-pin-spank package "
                        "of this doctor's version");
    return;
  }
  doctor(ac, av, finding, w);
}

static void check_file(const char *file, int depth, struct where *total);

/* `include PATTERN`: every file it matches, relative to the including one. */
static void include(struct where *w, const char *pattern, int depth, struct where *total) {
  char full[PATH_MAX];
  if (pattern[0] != '/') {
    const char *slash = strrchr(w->file, '/');
    snprintf(full, sizeof full, "%.*s/%s", slash ? (int)(slash - w->file) : 1, slash ? w->file : ".", pattern);
    pattern = full;
  }
  glob_t g;
  if (glob(pattern, 0, NULL, &g) != 0) return;  /* nothing matches: Slurm includes nothing either */
  for (size_t i = 0; i < g.gl_pathc; ++i) check_file(g.gl_pathv[i], depth + 1, total);
  globfree(&g);
}

static int is_slurm_pin(const char *path) {
  const char *base = strrchr(path, '/');
  return strcmp(base ? base + 1 : path, "slurm_pin.so") == 0;
}

static void check_line(struct where *w, char *text, int depth, struct where *total) {
  char *hash = strchr(text, '#');
  if (hash) *hash = '\0';
  char *av[MAX_ARGS + 2], *save = NULL;
  int n = 0;
  for (char *t = strtok_r(text, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
    if (n == MAX_ARGS + 2) {
      finding(w, 1, "slurm_pin.so", "more than 128 arguments on one line: no plugstack line needs that many");
      return;
    }
    av[n++] = t;
  }
  if (n == 0) return;
  if (strcmp(av[0], "include") == 0 && n == 2) return include(w, av[1], depth, total);
  if ((strcmp(av[0], "required") == 0 || strcmp(av[0], "optional") == 0) && n >= 2 && is_slurm_pin(av[1]))
    check_plugin_line(w, av[1], n - 2, av + 2);
}

static void check_file(const char *file, int depth, struct where *total) {
  struct where w = {file, 0, 0, 0};
  if (depth > MAX_DEPTH) {
    finding(&w, 1, "include", "includes nest more than 8 deep (an include loop?)");
    total->errors += w.errors;
    return;
  }
  FILE *f = fopen(file, "re");
  if (!f) {
    char m[PATH_MAX + 64];
    snprintf(m, sizeof m, "cannot read it: %m");
    finding(&w, 1, file, m);
    total->errors += w.errors;
    return;
  }
  char *text = NULL;
  size_t cap = 0;
  ssize_t got;
  while ((got = getline(&text, &cap, f)) >= 0) {
    ++w.line;
    if (got > MAX_LINE) {
      finding(&w, 1, "line", "longer than 64 KiB: not a plugstack line");
      continue;
    }
    check_line(&w, text, depth, total);
  }
  free(text);
  fclose(f);
  total->errors += w.errors;
  total->lines_found += w.lines_found;
}

int main(int argc, char **argv) {
  int i = 1;
  if (i + 1 < argc && strcmp(argv[i], "--plugin-dir") == 0) plugin_dir = argv[i + 1], i += 2;
  if (i >= argc) {
    fprintf(stderr, "usage: slurm-pin-plugstack-check [--plugin-dir DIR] PLUGSTACK.CONF...\n");
    return 2;
  }
  struct where total = {"", 0, 0, 0};
  for (; i < argc; ++i) check_file(argv[i], 0, &total);
  if (total.lines_found == 0) printf("none\t-\t-\tno line loads slurm_pin.so\n");
  return total.errors ? 1 : 0;
}
