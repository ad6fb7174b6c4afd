/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "site_store.h"

#include "plugstack_conf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_LINES 100000 /* lines read of one configuration file */

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

struct store_arg {
  char *buf;
  size_t len;
};

/* The first slurm_pin.so line counts, as for Slurm: its store=, if any. */
static int store_line(void *ctx, const struct plugstack_line *line, const char *problem) {
  struct store_arg *s = ctx;
  if (problem || !plugstack_line_loads_slurm_pin(line)) return 0;
  for (int i = 2; i < line->argc; ++i)
    if (strncmp(line->argv[i], "store=", 6) == 0) snprintf(s->buf, s->len, "%s", line->argv[i] + 6);
  return 1;
}

int site_store_from_plugstack(const char *plugstack, char *buf, size_t len) {
  buf[0] = '\0';
  struct store_arg s = {buf, len};
  if (plugstack_conf_read(plugstack, store_line, &s) < 0) return -1;
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
