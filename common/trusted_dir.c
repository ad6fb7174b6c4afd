/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "trusted_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *trusted_stat_problem(const struct stat *st, mode_t kind, uid_t owner) {
  if ((st->st_mode & S_IFMT) != kind) return kind == S_IFDIR ? "is not a directory" : "is not a regular file";
  if (st->st_uid != 0 && st->st_uid != owner)
    return owner == 0 ? "is not owned by root" : "is owned by neither root nor its directory's owner";
  /* Even when sticky: there others may add entries, and so take a name
   * root would make later. */
  if (st->st_mode & (S_IWGRP | S_IWOTH)) return "is writable by group or others";
  return NULL;
}

/* Root's alone: what root writes on the node, and the programs it runs. */
static const char *untrusted_dir(const struct stat *st) { return trusted_stat_problem(st, S_IFDIR, 0); }
static const char *untrusted_file(const struct stat *st) { return trusted_stat_problem(st, S_IFREG, 0); }

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
  else why = untrusted_file(&st);
  if (!why && (unsigned long long)st.st_size > max_bytes) why = "is larger than expected";
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

/* The next component of `*p` (slashes skipped) into `out`: its length, 0
 * at the end, -1 when longer than `len`. */
static int next_component(const char **p, char *out, size_t len) {
  while (**p == '/') ++*p;
  size_t n = strcspn(*p, "/");
  if (n >= len) return -1;
  memcpy(out, *p, n);
  out[n] = '\0';
  *p += n;
  return (int)n;
}

/* fail() for what is there but cannot be trusted: errno EPERM, never a
 * stale ENOENT that callers would read as "nothing is there". */
static int refuse(char *err, size_t len, const char *fmt, const char *a, const char *b) {
  fail(err, len, fmt, a, b);
  errno = EPERM;
  return -1;
}

enum trusted_kind { TRUSTED_PROGRAM, TRUSTED_DIR, TRUSTED_FILE };

/* A sticky directory others can write, as /tmp: only an entry's owner can
 * rename or remove the entry there. */
static int sticky_shared(const struct stat *st) {
  return S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) && (st->st_mode & (S_IWGRP | S_IWOTH));
}

/* trusted_program, trusted_path_dir and trusted_file_path: `resolved` (if
 * not NULL, PATH_MAX bytes) gets the file's path with every link followed. */
static int resolve_trusted(const char *path, enum trusted_kind kind, char *resolved, char *err, size_t len) {
  int want_dir = kind == TRUSTED_DIR;
  char todo[2 * PATH_MAX], done[PATH_MAX] = "", part[NAME_MAX + 1], at[PATH_MAX + NAME_MAX + 2], target[PATH_MAX];
  struct stat st;
  if (!path || path[0] != '/') return refuse(err, len, "%s%s: not an absolute path", path ? path : "", "");
  if (snprintf(todo, sizeof todo, "%s", path) >= (int)sizeof todo)
    return refuse(err, len, "%.200s%s...: path too long", path, "");
  if (lstat("/", &st) != 0 || untrusted_dir(&st)) return refuse(err, len, "/ %s%s", "is not root's alone", "");
  const char *p = todo;
  /* An existing file (TRUSTED_FILE) may sit below a sticky_shared()
   * directory when every entry met there is root's: nobody else can change
   * it. (No name is taken later, which is what the strict rule guards.) */
  for (int links = 0;;) {
    int n = next_component(&p, part, sizeof part);
    if (n < 0) return refuse(err, len, "%.200s%s: a component is too long", path, "");
    if (n == 0 && want_dir) return 0; /* "/" itself, or a path ending in '/' */
    if (n == 0) return refuse(err, len, "%s%s: names a directory", path, "");
    int last = strspn(p, "/") == strlen(p);
    if (strcmp(part, ".") == 0) continue;
    if (strcmp(part, "..") == 0) { /* `done` holds real directories only */
      char *slash = strrchr(done, '/');
      if (slash) *slash = '\0';
      continue;
    }
    if (snprintf(at, sizeof at, "%s/%s", done, part) >= (int)sizeof done)
      return refuse(err, len, "%.200s%s...: path too long", path, "");
    if (lstat(at, &st) != 0) { /* ENOENT, or EACCES: `done` is root's, closed to this user */
      int e = errno;
      fail(err, len, "%s: %s", at, strerror(e));
      errno = e;
      return -1;
    }
    /* Another's entry (a link above all) in the directory `done`: only a
     * sticky one lets through entries that are not checked below. */
    struct stat in;
    if (kind == TRUSTED_FILE && st.st_uid != 0 && (lstat(done[0] ? done : "/", &in) != 0 || sticky_shared(&in)))
      return refuse(err, len, "%s %s", at, "is not owned by root (in a sticky directory others can write)");
    if (S_ISLNK(st.st_mode)) { /* met in a directory only root can change: follow it */
      ssize_t k = readlink(at, target, sizeof target - 1);
      if (k < 0 || ++links > 16) return refuse(err, len, "%s: %s", at, k < 0 ? strerror(errno) : "too many links");
      target[k] = '\0';
      char rest[2 * PATH_MAX];
      if (snprintf(rest, sizeof rest, "%s/%s", target, p) >= (int)sizeof rest)
        return refuse(err, len, "%s%s: path too long", path, "");
      memcpy(todo, rest, strlen(rest) + 1);
      p = todo;
      if (target[0] == '/') done[0] = '\0';
      continue;
    }
    if (!last || want_dir) {
      const char *why = untrusted_dir(&st);
      if (why && kind == TRUSTED_FILE && !last && st.st_uid == 0 && sticky_shared(&st)) why = NULL;
      if (why) return refuse(err, len, "%s %s", at, why);
      memcpy(done, at, strlen(at) + 1);
      if (last) return 0;
      continue;
    }
    const char *why = untrusted_file(&st);
    if (why) return refuse(err, len, "%s %s", at, why);
    if (kind == TRUSTED_PROGRAM && !(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
      return refuse(err, len, "%s %s", at, "is not executable");
    if (resolved) memcpy(resolved, at, strlen(at) + 1); /* shorter than PATH_MAX: checked above */
    return 0;
  }
}

int trusted_program(const char *path, char *err, size_t len) {
  return resolve_trusted(path, TRUSTED_PROGRAM, NULL, err, len);
}

int trusted_path_dir(const char *path, char *err, size_t len) { return resolve_trusted(path, TRUSTED_DIR, NULL, err, len); }

int trusted_file_path(const char *path, char *resolved, char *err, size_t len) {
  return resolve_trusted(path, TRUSTED_FILE, resolved, err, len);
}
