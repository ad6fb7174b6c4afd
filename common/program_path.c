/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "program_path.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int runnable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int program_path_find(const char *word, const char *path_env, char *buf, size_t len) {
  if (!word || !*word) return -1;
  if (strchr(word, '/')) return (size_t)snprintf(buf, len, "%s", word) < len && runnable(buf) ? 0 : -1;
  const char *p = path_env ? path_env : "/usr/bin:/bin";
  for (;;) {
    size_t n = strcspn(p, ":");
    /* An empty entry is the current directory, as for execvp. */
    int w = n ? snprintf(buf, len, "%.*s/%s", (int)n, p, word) : snprintf(buf, len, "./%s", word);
    if (w > 0 && (size_t)w < len && runnable(buf)) return 0;
    if (!p[n]) return -1;
    p += n + 1;
  }
}
