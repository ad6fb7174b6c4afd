/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "trusted_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Root's, and nobody else may change its entries: not writable by group or
 * others, unless sticky (others then only add entries of their own). */
static const char *untrusted_dir(const struct stat *st) {
  if (!S_ISDIR(st->st_mode)) return "is not a directory";
  if (st->st_uid != 0) return "is not owned by root";
  if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX)) return "is writable by others than root";
  return NULL;
}

static int fail(char *err, size_t len, const char *fmt, const char *a, const char *b) {
  if (err && len) snprintf(err, len, fmt, a, b);
  return -1;
}

/* Opens component `name` of `parent` (shown as `shown`) and checks it. */
static int open_component(int parent, const char *name, const char *shown, int create, char *err, size_t len) {
  int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && create) {
    if (mkdirat(parent, name, 0755) != 0 && errno != EEXIST)
      return fail(err, len, "%s: cannot create it: %s", shown, strerror(errno));
    fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) {
    int e = errno;
    struct stat st; /* for the message only: what is there */
    int link = e == ELOOP || (e == ENOTDIR && fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode));
    if (e == ELOOP || e == ENOTDIR)
      fail(err, len, "%s: %s (make it a directory owned by root)", shown,
           link ? "is a symbolic link" : "is not a directory");
    else
      fail(err, len, "%s: %s", shown, strerror(e));
    errno = e; /* ENOENT tells callers that nothing is there */
    return -1;
  }
  struct stat st;
  const char *why = fstat(fd, &st) != 0 ? strerror(errno) : untrusted_dir(&st);
  if (why) {
    close(fd);
    fail(err, len, "%s %s (make it root's, writable only by root)", shown, why);
    errno = EPERM;
    return -1;
  }
  return fd;
}

int trusted_dir_open(const char *path, int create, char *err, size_t len) {
  if (!path || path[0] != '/') return fail(err, len, "%s%s: not an absolute path", path ? path : "", "");
  size_t n = strlen(path);
  if (n >= 4096) return fail(err, len, "%.200s%s...: path too long", path, "");
  char shown[4096], component[4096];
  int fd = open_component(AT_FDCWD, "/", "/", 0, err, len);
  size_t at = 1;
  while (fd >= 0 && at < n) {
    size_t end = at;
    while (end < n && path[end] != '/') ++end;
    if (end > at) {
      memcpy(component, path + at, end - at);
      component[end - at] = '\0';
      memcpy(shown, path, end);
      shown[end] = '\0';
      if (strcmp(component, "..") == 0 || strcmp(component, ".") == 0) {
        close(fd);
        return fail(err, len, "%s: '.' and '..' are not accepted in %s", shown, "this path");
      }
      int next = open_component(fd, component, shown, create, err, len), e = errno;
      close(fd);
      fd = next;
      errno = e;
    }
    at = end + 1;
  }
  return fd;
}

int trusted_name_ok(const char *name) {
  if (!name || !*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strlen(name) > 200) return 0;
  return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(name);
}

char *trusted_file_read(int dirfd, const char *name, size_t max_bytes, size_t *size, char *err, size_t len) {
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    fail(err, len, "%s: %s", name, e == ELOOP ? "is a symbolic link" : strerror(e));
    errno = e;
    return NULL;
  }
  struct stat st;
  const char *why = NULL;
  if (fstat(fd, &st) != 0) why = strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "is not a regular file";
  else if (st.st_uid != 0) why = "is not owned by root";
  else if (st.st_mode & (S_IWGRP | S_IWOTH)) why = "is writable by others than root";
  else if ((unsigned long long)st.st_size > max_bytes) why = "is larger than expected";
  char *text = why ? NULL : malloc((size_t)st.st_size + 2);
  if (!why && !text) why = "out of memory";
  size_t got = 0;
  while (!why && got <= (size_t)st.st_size) {
    ssize_t r = read(fd, text + got, (size_t)st.st_size + 1 - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) why = strerror(errno);
    if (r <= 0) break;
    got += (size_t)r;
  }
  if (!why && got > (size_t)st.st_size) why = "changed while being read";
  close(fd);
  if (why) {
    free(text);
    fail(err, len, "%s %s", name, why);
    errno = EINVAL;
    return NULL;
  }
  text[got] = '\0';
  if (size) *size = got;
  return text;
}

int trusted_file_write(int dirfd, const char *name, const char *data, size_t size, mode_t mode, char *err,
                       size_t len) {
  char tmp[256];
  if (!trusted_name_ok(name) || snprintf(tmp, sizeof tmp, ".%s.%ld.new", name, (long)getpid()) >= (int)sizeof tmp)
    return fail(err, len, "%s: %s", name, "not a plain file name");
  int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return fail(err, len, "%s: %s", tmp, strerror(errno));
  const char *why = fchmod(fd, mode) != 0 ? strerror(errno) : NULL; /* whatever the umask */
  for (size_t done = 0; !why && done < size;) {
    ssize_t w = write(fd, data + done, size - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) why = strerror(errno);
    else done += (size_t)w;
  }
  if (close(fd) != 0 && !why) why = strerror(errno);
  if (!why && renameat(dirfd, tmp, dirfd, name) != 0) why = strerror(errno);
  if (why) {
    unlinkat(dirfd, tmp, 0);
    return fail(err, len, "%s: %s", name, why);
  }
  return 0;
}

int trusted_dir_remove(int dirfd, const char *name) {
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? 0 : -1;
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return -1;
  }
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) unlinkat(fd, e->d_name, 0);
  closedir(d);
  return unlinkat(dirfd, name, AT_REMOVEDIR);
}
