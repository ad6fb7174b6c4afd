/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "plugstack_conf.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_BYTES (16 << 20) /* no plugstack.conf is near this */

struct reader {
  plugstack_visit_fn visit;
  void *ctx;
  int stopped, files, lines;
  struct {
    dev_t dev;
    ino_t ino;
  } seen[PLUGSTACK_MAX_FILES];
};

/* A problem at `file`:`number`: one phrase to the visitor. */
static void problem(struct reader *r, const char *file, int number, const char *fmt, ...) {
  char phrase[PATH_MAX + 256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(phrase, sizeof phrase, fmt, ap);
  va_end(ap);
  struct plugstack_line at = {file, number, 0, NULL};
  if (!r->stopped && r->visit(r->ctx, &at, phrase)) r->stopped = 1;
}

/* `path` opened once, non-blocking, and checked on its descriptor: a
 * regular file of at most MAX_BYTES. The stream, or NULL with `why` set. */
static FILE *open_conf(const char *path, struct stat *st, char *why, size_t len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    snprintf(why, len, "cannot read it: %s", strerror(errno));
    return NULL;
  }
  const char *wrong = NULL;
  if (fstat(fd, st) != 0) wrong = strerror(errno);
  else if (!S_ISREG(st->st_mode)) wrong = "not a regular file";
  else if (st->st_size > MAX_BYTES) wrong = "larger than 16 MiB, no plugstack.conf";
  FILE *f = wrong ? NULL : fdopen(fd, "re");
  if (!f) {
    snprintf(why, len, "cannot read it: %s", wrong ? wrong : strerror(errno));
    close(fd);
  }
  return f;
}

/* Was this file read already? Records it if not. */
static int seen_before(struct reader *r, const struct stat *st) {
  for (int i = 0; i < r->files; ++i)
    if (r->seen[i].dev == st->st_dev && r->seen[i].ino == st->st_ino) return 1;
  r->seen[r->files].dev = st->st_dev;
  r->seen[r->files].ino = st->st_ino;
  ++r->files;
  return 0;
}

static int read_file(struct reader *r, const char *path, int depth, const char *from, int from_line);

/* `include PATTERN` at `file`:`number`: every file it matches, in glob's
 * (sorted) order, relative to the including file. */
static void include(struct reader *r, const char *file, int number, const char *pattern, int depth) {
  char full[PATH_MAX];
  if (pattern[0] != '/') {
    const char *slash = strrchr(file, '/');
    snprintf(full, sizeof full, "%.*s/%s", slash ? (int)(slash - file) : 1, slash ? file : ".", pattern);
    pattern = full;
  }
  if (depth >= PLUGSTACK_MAX_DEPTH) {
    problem(r, file, number, "includes nest more than %d deep: not read further", PLUGSTACK_MAX_DEPTH);
    return;
  }
  glob_t g;
  if (glob(pattern, 0, NULL, &g) != 0) return; /* nothing matches: Slurm includes nothing either */
  for (size_t i = 0; i < g.gl_pathc && !r->stopped; ++i) read_file(r, g.gl_pathv[i], depth + 1, file, number);
  globfree(&g);
}

/* One line's words into av (at most PLUGSTACK_MAX_ARGS + 2); -1 if more. */
static int words(char *text, char **av) {
  char *save = NULL;
  int n = 0;
  for (char *t = strtok_r(text, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
    if (n == PLUGSTACK_MAX_ARGS + 2) return -1;
    av[n++] = t;
  }
  return n;
}

static void read_lines(struct reader *r, FILE *f, const char *path, int depth) {
  char *text = malloc(PLUGSTACK_MAX_LINE), *av[PLUGSTACK_MAX_ARGS + 2];
  for (int number = 1; text && !r->stopped && fgets(text, PLUGSTACK_MAX_LINE, f); ++number) {
    if (++r->lines > PLUGSTACK_MAX_LINES) {
      problem(r, path, number, "more than %d lines in all: not read further", PLUGSTACK_MAX_LINES);
      r->stopped = 1;
      break;
    }
    if (!strchr(text, '\n') && !feof(f)) { /* longer than any Slurm line: skipped whole */
      int c;
      while ((c = getc(f)) != EOF && c != '\n') {}
      problem(r, path, number, "longer than 64 KiB: not a plugstack line");
      continue;
    }
    char *hash = strchr(text, '#');
    if (hash) *hash = '\0';
    int n = words(text, av);
    if (n < 0) {
      problem(r, path, number, "more than %d arguments on one line: no plugstack line needs that many",
              PLUGSTACK_MAX_ARGS);
      continue;
    }
    if (n >= 2 && strcmp(av[0], "include") == 0) {
      include(r, path, number, av[1], depth);
      continue;
    }
    struct plugstack_line line = {path, number, n, av};
    if (n > 0 && r->visit(r->ctx, &line, NULL)) r->stopped = 1;
  }
  free(text);
}

/* `path`, named at `from`:`from_line` (the first file: itself, line 0). */
static int read_file(struct reader *r, const char *path, int depth, const char *from, int from_line) {
  char why[512];
  struct stat st;
  if (r->files == PLUGSTACK_MAX_FILES) {
    problem(r, from, from_line, "more than %d files included: %s and the rest not read", PLUGSTACK_MAX_FILES, path);
    return 0;
  }
  FILE *f = open_conf(path, &st, why, sizeof why);
  if (!f) {
    problem(r, from, from_line, "%s: %s", path, why);
    return -1;
  }
  if (seen_before(r, &st)) {
    problem(r, from, from_line, "%s is included a second time (an include loop?): include each file once", path);
  } else {
    read_lines(r, f, path, depth);
  }
  fclose(f);
  return 0;
}

int plugstack_line_loads_slurm_pin(const struct plugstack_line *line) {
  if (line->argc < 2 || (strcmp(line->argv[0], "required") != 0 && strcmp(line->argv[0], "optional") != 0)) return 0;
  const char *base = strrchr(line->argv[1], '/');
  return strcmp(base ? base + 1 : line->argv[1], "slurm_pin.so") == 0;
}

int plugstack_conf_read(const char *path, plugstack_visit_fn visit, void *ctx) {
  struct reader *r = calloc(1, sizeof *r);
  if (!r) return -1;
  r->visit = visit;
  r->ctx = ctx;
  int rc = read_file(r, path, 0, path, 0);
  if (rc == 0 && r->stopped) rc = 1;
  free(r);
  return rc;
}
