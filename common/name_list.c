/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "name_list.h"

#include <string.h>

const char *name_in_list(const char *list, const char *path) {
  if (!list || !path || !*path || strcmp(list, "none") == 0) return NULL;
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  size_t n = strlen(base);
  if (n == 0) return NULL;
  for (const char *p = list; *p;) {
    size_t k = strcspn(p, ",");
    if (k == n && strncmp(p, base, n) == 0) return base;
    p += k + (p[k] == ',');
  }
  return NULL;
}
