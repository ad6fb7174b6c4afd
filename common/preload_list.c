/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "preload_list.h"

#include <string.h>

int preload_without_runtime(const char *list, char *out, size_t len) {
  size_t at = 0;
  int removed = 0;
  if (!len) return -1;
  out[0] = '\0';
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, " :");
    if (n) {
      const char *base = p;
      for (const char *c = p; c < p + n; ++c)
        if (*c == '/') base = c + 1;
      if ((size_t)(p + n - base) == strlen(SP_RUNTIME_LIBRARY) && strncmp(base, SP_RUNTIME_LIBRARY, p + n - base) == 0) {
        removed = 1;
      } else {
        if (at + (at ? 1 : 0) + n + 1 > len) return -1;
        if (at) out[at++] = ' ';
        memcpy(out + at, p, n);
        at += n;
        out[at] = '\0';
      }
    }
    p += n;
    if (*p) ++p;
  }
  return removed;
}

static int bounds_word(char c) { return c == '\0' || c == ' ' || c == ':'; }

int preload_has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  if (!n) return 0;
  for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
    if ((p == list || bounds_word(p[-1])) && bounds_word(p[n])) return 1;
  return 0;
}
