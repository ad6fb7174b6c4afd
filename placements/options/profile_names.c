/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "option_text.h"
#include "slurm_pin_options.h"
#include "trusted_dir.h"

const char *sp_profile_name_chars(void) { return SP_PROFILE_NAME_CHARS; }
int sp_profile_name_max(void) { return SP_PROFILE_NAME_MAX; }
int sp_profile_version_digits(void) { return SP_PROFILE_VERSION_DIGITS; }

int sp_profile_app_valid(const char *app, size_t n) {
  if (n == 0 || n > SP_PROFILE_NAME_MAX || app[0] == '.') return 0;
  for (size_t i = 0; i < n; ++i)
    if (!app[i] || !strchr(SP_PROFILE_NAME_CHARS, app[i])) return 0;
  return 1;
}

/* A name's text in a message (option_text.h): up to 160 bytes, so that a
 * name just too long (valid ones have at most 128) shows whole. */
static const char *shown(const char *text, size_t n, char *buf, size_t len) {
  return option_text_shown(text, n, 160, buf, len);
}

int sp_profile_spec_of(const char *text, struct sp_profile_spec *out, char *err, size_t len) {
  char a[1024], b[1024];
  memset(out, 0, sizeof *out);
  text = text ? text : "";
  if (!*text) return option_text_fail(err, len, "empty profile name (give NAME, NAME@VERSION or a file path)");
  if (strchr(text, '/')) return out->is_path = 1, 0;
  const char *at = strchr(text, '@');
  size_t n = at ? (size_t)(at - text) : strlen(text);
  if (at) {
    const char *v = at + 1;
    size_t digits = strspn(v, "0123456789");
    int version = 0;
    for (size_t i = 0; i < digits && i < SP_PROFILE_VERSION_DIGITS; ++i) version = version * 10 + (v[i] - '0');
    if (!*v || v[digits] || digits > SP_PROFILE_VERSION_DIGITS || version == 0)
      return option_text_fail(err, len, "profile version '%s' in '%s' is not a positive number (write NAME@3)",
                              shown(v, strlen(v), a, sizeof a), shown(text, strlen(text), b, sizeof b));
    out->version = version;
  }
  if (!sp_profile_app_valid(text, n))
    return option_text_fail(err, len,
                            "profile name '%s' is not valid (letters, digits, . _ + - only; use ./FILE for a file)",
                            shown(text, n, a, sizeof a));
  memcpy(out->app, text, n);
  out->app[n] = '\0';
  return 0;
}

int sp_is_profile_name(const char *spec) {
  struct sp_profile_spec s;
  return spec && sp_profile_spec_of(spec, &s, NULL, 0) == 0 && !s.is_path;
}

int sp_store_entry_of(const char *name, int *threads, int *version) {
  unsigned t = 0, v = 0;
  int end = 0;
  if (sscanf(name, "t%u.v%u.profile%n", &t, &v, &end) != 2 || name[end] || t == 0 || v == 0 || t > 1u << 20 ||
      v > 999999)
    return -1;
  char canonical[64]; /* no leading zeros or signs: one name per entry */
  snprintf(canonical, sizeof canonical, "t%u.v%u.profile", t, v);
  if (strcmp(name, canonical) != 0) return -1;
  *threads = (int)t;
  *version = (int)v;
  return 0;
}

int sp_store_trust(const char *what, const char *path, const struct stat *st, mode_t kind, uid_t owner, char *err,
                   size_t len) {
  const char *why = trusted_stat_problem(st, kind, owner);
  if (!why) return 0;
  int owner_ok = st->st_uid == 0 || st->st_uid == owner;
  char uid[32] = "";
  if (!owner_ok) snprintf(uid, sizeof uid, " (uid %u)", (unsigned)st->st_uid);
  return option_text_fail(err, len, "%s %s %s%s: refusing it (%s)", what, path, why, uid,
              owner_ok && (st->st_mode & S_IFMT) == kind ? "chmod go-w" : "ask the admin to fix it");
}

/* Whether the application's directory `app_fd` holds an entry of `version`
 * (0: any): 1, 0, or -1 with err set when any of its entries is not
 * trusted (the engine refuses the application's profiles then too). */
static int has_entry(int app_fd, const char *app_path, int version, uid_t owner, char *err, size_t len) {
  int fd = fcntl(app_fd, F_DUPFD_CLOEXEC, 0);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return option_text_fail(err, len, "profile store entry %s: %s", app_path, strerror(errno));
  }
  int found = 0;
  for (struct dirent *e; (e = readdir(d));) {
    int t, v;
    struct stat st;
    if (sp_store_entry_of(e->d_name, &t, &v) != 0) continue;
    if (fstatat(app_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    char path[PATH_MAX + SP_PROFILE_NAME_MAX + 300]; /* app_path, /, a directory entry */
    snprintf(path, sizeof path, "%s/%s", app_path, e->d_name);
    if (sp_store_trust("profile", path, &st, S_IFREG, owner, err, len) != 0) return closedir(d), -1;
    found |= !version || v == version;
  }
  closedir(d);
  return found;
}

int sp_store_open(const char *store, uid_t *owner, char *err, size_t len) {
  struct stat st;
  int dir = open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || fstat(dir, &st) != 0) {
    if (dir >= 0) close(dir);
    return option_text_fail(err, len, "profile store %s does not exist (create it, or configure another store)",
                            store);
  }
  *owner = st.st_uid;
  if (sp_store_trust("profile store", store, &st, S_IFDIR, st.st_uid, err, len) != 0) return close(dir), -1;
  return dir;
}

int sp_store_open_app(int store_fd, const char *store, const char *app, uid_t owner, char *err, size_t len) {
  if (err && len) err[0] = '\0';
  int fd = openat(store_fd, app, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  char path[PATH_MAX + SP_PROFILE_NAME_MAX + 2];
  snprintf(path, sizeof path, "%s/%s", store, app);
  struct stat st;
  int rc = fstat(fd, &st) != 0 ? option_text_fail(err, len, "profile store entry %s: %s", path, strerror(errno))
                                : sp_store_trust("profile store entry", path, &st, S_IFDIR, owner, err, len);
  if (rc != 0) return close(fd), -2;
  return fd;
}

int sp_check_store_profile(const char *spec, const char *store, char *err, size_t len) {
  struct sp_profile_spec s;
  if (sp_profile_spec_of(spec, &s, err, len) != 0) return -1;
  if (s.is_path) return option_text_fail(err, len, "profile '%.200s' is a file path, not a store name", spec);
  if (!store || !*store)
    return option_text_fail(err, len, "profile '%s' names a store profile but no store is configured (configure "
                            "a profile store, or give a file path)", s.app);
  uid_t owner;
  int dir = sp_store_open(store, &owner, err, len);
  if (dir < 0) return -1;
  int app = sp_store_open_app(dir, store, s.app, owner, err, len);
  close(dir);
  if (app == -2) return -1;
  int found = 0;
  if (app >= 0) {
    char app_path[PATH_MAX + SP_PROFILE_NAME_MAX + 2];
    snprintf(app_path, sizeof app_path, "%s/%s", store, s.app);
    found = has_entry(app, app_path, s.version, owner, err, len);
    close(app);
    if (found < 0) return -1;
  }
  if (found) return 0;
  return option_text_fail(err, len, "no profile '%s' in the store %s (list them with `slurm-pin profiles list`; a "
                          "file is named by a path with a '/': ./%s)", spec, store, spec);
}
