/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "user_data.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int user_data_dir(uid_t uid, const char *sub, char *buf, size_t len) {
  struct passwd pw, *found = NULL;
  char text[4096];
  if (getpwuid_r(uid, &pw, text, sizeof text, &found) != 0 || !found || !pw.pw_dir || pw.pw_dir[0] != '/') {
    errno = ENOENT;
    return -1;
  }
  int n = snprintf(buf, len, "%s/%s", strcmp(pw.pw_dir, "/") == 0 ? "" : pw.pw_dir, sub);
  if (n < 0 || (size_t)n >= len) {
    errno = ENAMETOOLONG;
    return -1;
  }
  return 0;
}

/* One directory of the path: made, or found as a directory of the caller's
 * own (lstat: a link is refused, not followed). */
static int own_dir(const char *path) {
  struct stat st;
  if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
  if (lstat(path, &st) != 0) return -1;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  if (st.st_uid != geteuid()) {
    errno = EPERM;
    return -1;
  }
  return 0;
}

int user_data_mkdirs(const char *home, const char *path) {
  size_t h = strlen(home);
  if (strncmp(path, home, h) != 0 || path[h] != '/') {
    errno = EINVAL;
    return -1;
  }
  char *p = strdup(path);
  if (!p) return -1;
  int rc = 0;
  /* Each part below the home, in order; the home itself is the user's. */
  for (char *slash = strchr(p + h + 1, '/'); rc == 0; slash = strchr(slash + 1, '/')) {
    if (slash) *slash = '\0';
    rc = own_dir(p);
    if (!slash) break;
    *slash = '/';
  }
  free(p);
  return rc;
}
