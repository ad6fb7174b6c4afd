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

/* The user's home, from the password database: into text (len bytes),
 * a pointer to it, or NULL with errno. */
static const char *home_of(uid_t uid, char *text, size_t len) {
  struct passwd pw, *found = NULL;
  if (getpwuid_r(uid, &pw, text, len, &found) != 0 || !found || !pw.pw_dir || pw.pw_dir[0] != '/') {
    errno = ENOENT;
    return NULL;
  }
  return strcmp(pw.pw_dir, "/") == 0 ? "" : pw.pw_dir;
}

/* HOME/sub into buf: 0, or -1 (buf empty, ENAMETOOLONG). */
static int join(const char *home, const char *sub, char *buf, size_t len) {
  int n = snprintf(buf, len, "%s/%s", home, sub);
  if (n >= 0 && (size_t)n < len) return 0;
  if (len) buf[0] = '\0';
  errno = ENAMETOOLONG;
  return -1;
}

int user_data_dir(uid_t uid, const char *sub, char *buf, size_t len) {
  char text[4096];
  const char *home = home_of(uid, text, sizeof text);
  if (!home) {
    if (len) buf[0] = '\0';
    return -1;
  }
  return join(home, sub, buf, len);
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

int user_data_make(uid_t uid, const char *sub, char *buf, size_t len) {
  char text[4096];
  const char *home = home_of(uid, text, sizeof text);
  if (len) buf[0] = '\0';
  if (!home || join(home, sub, buf, len) != 0) return -1;
  /* Each part below the home, in order; the home itself is the user's. */
  int rc = 0;
  for (char *slash = strchr(buf + strlen(home) + 1, '/'); rc == 0; slash = strchr(slash + 1, '/')) {
    if (slash) *slash = '\0';
    rc = own_dir(buf);
    if (!slash) break;
    *slash = '/';
  }
  return rc;
}
