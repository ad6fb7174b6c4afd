/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "site_store.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_LINES 100000 /* lines read of one configuration file */
#define MAX_INCLUDE_DEPTH 2

/* Reads `path` line by line (at most MAX_LINES, each up to a 64 KiB
 * buffer) and hands each to `line`; stops when it returns nonzero. -1 if
 * the file cannot be opened. */
static int each_line(const char *path, int (*line)(char *text, void *ctx), void *ctx) {
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  enum { LINE_MAX_BYTES = 65536 };
  char *text = malloc(LINE_MAX_BYTES);
  int stop = 0;
  for (int n = 0; text && !stop && n < MAX_LINES && fgets(text, LINE_MAX_BYTES, f); ++n) {
    if (!strchr(text, '\n') && !feof(f)) { /* longer than any Slurm line: skipped whole */
      int c;
      while ((c = getc(f)) != EOF && c != '\n') {}
      continue;
    }
    char *hash = strchr(text, '#');
    if (hash) *hash = '\0';
    stop = line(text, ctx);
  }
  free(text);
  fclose(f);
  return stop;
}

struct conf_key {
  const char *key;
  char *buf;
  size_t len;
};

/* KEY=VALUE, the key compared without case (as Slurm does). */
static int conf_line(char *text, void *ctx) {
  struct conf_key *k = ctx;
  char *eq = strchr(text, '=');
  if (!eq) return 0;
  char *key = text + strspn(text, " \t");
  size_t n = strcspn(key, " \t=");
  if (n != strlen(k->key) || strncasecmp(key, k->key, n) != 0) return 0;
  char *v = eq + 1 + strspn(eq + 1, " \t");
  v[strcspn(v, " \t\r\n")] = '\0';
  snprintf(k->buf, k->len, "%s", v);
  return 0; /* the last one given counts */
}

void site_plugstack_path(const char *slurm_conf, char *buf, size_t len) {
  if (!slurm_conf) slurm_conf = getenv("SLURM_CONF");
  if (!slurm_conf || !*slurm_conf) slurm_conf = "/etc/slurm/slurm.conf";
  buf[0] = '\0';
  struct conf_key k = {"PlugStackConfig", buf, len};
  each_line(slurm_conf, conf_line, &k);
  if (buf[0]) return;
  const char *slash = strrchr(slurm_conf, '/');
  snprintf(buf, len, "%.*s/plugstack.conf", slash ? (int)(slash - slurm_conf) : 1, slash ? slurm_conf : ".");
}

struct plugstack {
  const char *file;
  char *buf;
  size_t len;
  int depth, found;
};

static int plugstack_file(const char *path, struct plugstack *p);

static int plugstack_line(char *text, void *ctx) {
  struct plugstack *p = ctx;
  char *save = NULL, *word = strtok_r(text, " \t\r\n", &save);
  if (!word) return 0;
  if (strcmp(word, "include") == 0) {
    char *pattern = strtok_r(NULL, " \t\r\n", &save), full[4096];
    if (!pattern || p->depth >= MAX_INCLUDE_DEPTH) return 0;
    if (pattern[0] != '/') {
      const char *slash = strrchr(p->file, '/');
      snprintf(full, sizeof full, "%.*s/%s", slash ? (int)(slash - p->file) : 1, slash ? p->file : ".", pattern);
      pattern = full;
    }
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0) return 0;
    struct plugstack inner = *p;
    ++inner.depth;
    for (size_t i = 0; i < g.gl_pathc && !inner.found; ++i) plugstack_file(g.gl_pathv[i], &inner);
    globfree(&g);
    p->found = inner.found;
    return p->found;
  }
  if (strcmp(word, "required") != 0 && strcmp(word, "optional") != 0) return 0;
  char *plugin = strtok_r(NULL, " \t\r\n", &save);
  const char *base = plugin ? strrchr(plugin, '/') : NULL;
  if (!plugin || strcmp(base ? base + 1 : plugin, "slurm_pin.so") != 0) return 0;
  p->found = 1; /* the first slurm_pin.so line counts, as for Slurm */
  for (char *arg; (arg = strtok_r(NULL, " \t\r\n", &save));)
    if (strncmp(arg, "store=", 6) == 0) snprintf(p->buf, p->len, "%s", arg + 6);
  return 1;
}

static int plugstack_file(const char *path, struct plugstack *p) {
  struct plugstack here = *p;
  here.file = path;
  int r = each_line(path, plugstack_line, &here);
  p->found = here.found;
  return r;
}

int site_store_from_plugstack(const char *plugstack, char *buf, size_t len) {
  buf[0] = '\0';
  struct plugstack p = {plugstack, buf, len, 0, 0};
  if (plugstack_file(plugstack, &p) < 0) return -1;
  return buf[0] ? 1 : 0;
}

const char *site_store_dir(char *buf, size_t len) {
  const char *env = getenv("SLURM_PIN_STORE");
  if (env && *env) {
    snprintf(buf, len, "%s", env);
    return "SLURM_PIN_STORE";
  }
  char plugstack[4096];
  site_plugstack_path(NULL, plugstack, sizeof plugstack);
  if (site_store_from_plugstack(plugstack, buf, len) == 1) return "plugstack.conf";
  snprintf(buf, len, "%s", SITE_STORE_DEFAULT);
  return "the default";
}
