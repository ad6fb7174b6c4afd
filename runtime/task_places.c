/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "task_places.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "task_env.h"

/* A task file is written by the binder for this task; this bounds what a
 * mistaken path (a device, a huge file) can cost the program. */
#define MAX_TASK_FILE (512u << 20)

/* Space-separated CPU lists from [p, end) appended to *places. */
static int parse_places(const char *p, const char *end, struct cpu_place **places, size_t *count) {
  size_t cap = 0;
  for (const char *q = p; q < end; ++q) cap += *q == ' ';
  *places = calloc(cap + 1, sizeof **places);
  if (!*places) return -1;
  *count = 0;
  while (p < end) {
    const char *word = p;
    while (p < end && *p != ' ') ++p;
    if (p == word || cpu_place_parse(word, (size_t)(p - word), &(*places)[(*count)++]) != 0) return -1;
    if (p < end) ++p;
  }
  return 0;
}

static void free_places(struct cpu_place *places, size_t count) {
  for (size_t i = 0; places && i < count; ++i) cpu_place_free(&places[i]);
  free(places);
}

void task_places_free(struct task_places *t) {
  free_places(t->places, t->count);
  for (size_t r = 0; t->regions && r < t->nregions; ++r) {
    free(t->regions[r].name);
    free_places(t->regions[r].places, t->regions[r].count);
  }
  free(t->regions);
  memset(t, 0, sizeof *t);
}

int task_places_parse(const char *text, size_t size, struct task_places *t, char *err, size_t len) {
  memset(t, 0, sizeof *t);
  const char *p = text, *end = text + size;
  size_t header = strlen(SP_TASK_FILE_HEADER), lines = 0, line_no = 1;
  if (size < header || memcmp(text, SP_TASK_FILE_HEADER, header) != 0 || (size > header && text[header] != '\n')) {
    snprintf(err, len, "not a slurm-pin task file (no '%s' header)", SP_TASK_FILE_HEADER);
    return -1;
  }
  for (const char *q = text; q < end; ++q) lines += *q == '\n';
  t->regions = calloc(lines + 1, sizeof *t->regions);
  if (!t->regions) return snprintf(err, len, "out of memory"), -1;
  p += header + (size > header);
  while (p < end) {
    ++line_no;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    int ok = 0;
    if (eol - p > 7 && memcmp(p, "places ", 7) == 0 && !t->places) {
      ok = parse_places(p + 7, eol, &t->places, &t->count) == 0;
    } else if (eol - p > 7 && memcmp(p, "region ", 7) == 0) {
      const char *name = p + 7, *space = memchr(name, ' ', (size_t)(eol - name));
      struct region_places *r = &t->regions[t->nregions];
      if (space && space > name && (r->name = strndup(name, (size_t)(space - name)))) {
        ++t->nregions;
        ok = parse_places(space + 1, eol, &r->places, &r->count) == 0;
      }
    } else if (eol == p) {
      ok = 1;
    }
    if (!ok) {
      snprintf(err, len, "line %zu is malformed", line_no);
      task_places_free(t);
      return -1;
    }
    p = eol + 1;
  }
  return 0;
}

/* The task file, read whole from its one open descriptor. */
static char *read_task_file(const char *path, size_t *size, char *err, size_t len) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  char *text = NULL;
  const char *why = NULL;
  if (fd < 0 || fstat(fd, &st) != 0) why = strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "not a regular file";
  else if ((unsigned long long)st.st_size > MAX_TASK_FILE) why = "too large to be a task file";
  else if (!(text = malloc((size_t)st.st_size + 1))) why = "out of memory";
  size_t got = 0;
  while (!why && got < (size_t)st.st_size) {
    ssize_t n = pread(fd, text + got, (size_t)st.st_size - got, (off_t)got); /* a memfd's offset is shared */
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) why = n < 0 ? strerror(errno) : "shorter than its size";
    else got += (size_t)n;
  }
  if (fd >= 0) close(fd);
  if (why) {
    free(text);
    snprintf(err, len, "%s: %s", path, why);
    return NULL;
  }
  text[got] = '\0';
  *size = got;
  return text;
}

int task_places_load(struct task_places *t, char *err, size_t len) {
  memset(t, 0, sizeof *t);
  const char *path = getenv(SP_ENV_TASK_FILE);
  if (path && *path) {
    size_t size = 0;
    char why[256];
    char *text = read_task_file(path, &size, err, len);
    if (!text) return -1;
    int rc = task_places_parse(text, size, t, why, sizeof why);
    free(text);
    if (rc != 0) snprintf(err, len, "%s: %s", path, why);
    return rc;
  }
  const char *cpus = getenv(SP_ENV_CPUS);
  if (!cpus || !*cpus) return 0;
  if (parse_places(cpus, cpus + strlen(cpus), &t->places, &t->count) != 0) {
    snprintf(err, len, "%s is not a list of CPU lists", SP_ENV_CPUS);
    task_places_free(t);
    return -1;
  }
  return 0;
}
