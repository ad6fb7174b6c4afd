/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file system that hangs, for the tests: preloaded, it makes every open of
 * a path with a component "hung" (a directory ".../hung" or anything in it)
 * wait HUNG_OPEN_SECONDS (default 3) first, as an open on an unresponsive
 * NFS server would.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void maybe_hang(const char *path) {
  const char *at = path ? strstr(path, "/hung") : NULL;
  if (at && (at[5] == '/' || at[5] == '\0')) {
    const char *s = getenv("HUNG_OPEN_SECONDS");
    sleep(s ? (unsigned)atoi(s) : 3);
  }
}

int openat(int dirfd, const char *path, int flags, ...) {
  static int (*real)(int, const char *, int, ...);
  if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
  va_list ap;
  va_start(ap, flags);
  mode_t mode = (flags & O_CREAT) ? va_arg(ap, mode_t) : 0;
  va_end(ap);
  maybe_hang(path);
  return real(dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...) {
  static int (*real)(const char *, int, ...);
  if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
  va_list ap;
  va_start(ap, flags);
  mode_t mode = (flags & O_CREAT) ? va_arg(ap, mode_t) : 0;
  va_end(ap);
  maybe_hang(path);
  return real(path, flags, mode);
}
