/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srun's, sbatch's and salloc's own command line (/proc/self/cmdline), read
 * for what SPANK has no item for: `--pin-strategy=help` before sbatch reads
 * its script, and the user's --cpu-bind (srun_cmdline.h).
 */
#include "srun_cmdline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The program's own arguments (srun's, sbatch's), NUL-separated after its
 * name, in a buffer of its own; their size, 0 if unreadable. */
static size_t own_cmdline(struct pin_step *s, const char **args) {
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (!f) return 0;
  size_t n = fread(s->cmdline, 1, sizeof s->cmdline - 1, f);
  fclose(f);
  s->cmdline[n] = '\0';
  *args = s->cmdline;
  return n;
}

/* On that command line: the value of option `name` (also spelt `alt`, or
 * NULL) when `a` is "NAME=V" or follows "NAME"; NULL otherwise. */
static const char *option_value(const char *a, const char *prev, const char *name, const char *alt) {
  for (const char *o = name; o; o = o == name ? alt : NULL) {
    size_t n = strlen(o);
    if (strncmp(a, o, n) == 0 && a[n] == '=') return a + n + 1;
    if (strcmp(prev, o) == 0) return a;
  }
  return NULL;
}

/* `a` is where the command's own options end: the program (srun) or the
 * script (sbatch), being neither an option nor the value of the one before. */
static int is_program(const char *a, const char *prev) {
  return a[0] != '-' && !(prev[0] == '-' && !strchr(prev, '='));
}

const char *cpu_bind_type(const char *v) {
  for (;;) {
    if (strncmp(v, "verbose,", 8) == 0) v += 8;
    else if (strncmp(v, "quiet,", 6) == 0) v += 6;
    else return v;
  }
}

/* sbatch reads its script before it hands options to plugins, so
 * `sbatch --pin-strategy=help` alone would wait for a script on stdin (or
 * say "Batch script is empty!"): sbatch and salloc ask for the help on
 * their command line, before the script's name, when the plugin starts. */
int srun_cmdline_asks_strategy_help(struct pin_step *s) {
  const char *cmdline;
  size_t n = own_cmdline(s, &cmdline);
  if (!n) return 0;
  const char *prev = "";
  for (const char *a = cmdline + strlen(cmdline) + 1; a < cmdline + n; prev = a, a += strlen(a) + 1) {
    if (strcmp(a, "--") == 0) break;
    const char *v = option_value(a, prev, "--pin-strategy", NULL);
    if (v && strcmp(cpu_bind_type(v), "help") == 0) return 1;
    if (!v && is_program(a, prev)) break;
  }
  return 0;
}

/* The user's own --cpu-bind for component `component` (srun A : B), as srun
 * was given it (its command line, or SLURM_CPU_BIND in its environment,
 * which srun reads as the option); "" when none. Scanning stops at "--" or
 * at what looks like the program. Read from srun's own command line because
 * SPANK has no item for it (spank.h's S_* items carry no CPU binding) and
 * srun exports SLURM_CPU_BIND only to the tasks, after this runs. It is
 * srun's own memory, in the user's process, and only a warning depends on
 * it: never a binding, never anything in slurmstepd. */
void srun_cmdline_cpu_bind(struct pin_step *s, int component, char *buf, size_t len) {
  buf[0] = '\0';
  const char *env = getenv("SLURM_CPU_BIND");
  if (env) snprintf(buf, len, "%s", env);
  const char *cmdline;
  size_t n = own_cmdline(s, &cmdline);
  if (!n) return;
  const char *prev = "", *a = cmdline + strlen(cmdline) + 1;
  for (int k = 0; k < component && a < cmdline + n; a += strlen(a) + 1)
    if (strcmp(a, ":") == 0) ++k; /* srun splits its components there */
  for (; a < cmdline + n; prev = a, a += strlen(a) + 1) {
    if (strcmp(a, "--") == 0 || strcmp(a, ":") == 0) break;
    const char *v = option_value(a, prev, "--cpu-bind", "--cpu_bind");
    if (v) snprintf(buf, len, "%s", v);
    else if (is_program(a, prev)) break;
  }
}
