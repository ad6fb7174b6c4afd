/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "placement_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trusted_dir.h"

#define ENTRY_PREFIX "placement-"

int placement_cache_dir(const char *run_dir, char *buf, size_t len) {
  return snprintf(buf, len, "%s/placements", run_dir) < (int)len ? 0 : -1;
}

/* What the directory may hold in all, whatever `keep` says: it lives in
 * run_dir, on most nodes a tmpfs in RAM (an entry is at most 4 MiB). */
#define MAX_TOTAL_BYTES (64LL << 20)

struct entry {
  char name[64];
  struct timespec written;
  long long bytes;
};

static int older_first(const void *a, const void *b) {
  const struct timespec *x = &((const struct entry *)a)->written, *y = &((const struct entry *)b)->written;
  return x->tv_sec != y->tv_sec ? (x->tv_sec < y->tv_sec ? -1 : 1)
                                : (x->tv_nsec < y->tv_nsec ? -1 : x->tv_nsec > y->tv_nsec);
}

/* Removes the oldest entries beyond `keep` or beyond MAX_TOTAL_BYTES. Each
 * step adds at most one, so the directory holds at most `keep` plus the
 * steps writing at this moment; reading it costs one stat per entry. */
static void trim(int dir, int keep) {
  int fd = dup(dir);
  DIR *d = fd < 0 ? NULL : fdopendir(fd);
  if (!d) {
    if (fd >= 0) close(fd);
    return;
  }
  size_t n = 0, cap = 0;
  struct entry *all = NULL;
  for (struct dirent *e; (e = readdir(d));) {
    struct stat st;
    if (strncmp(e->d_name, ENTRY_PREFIX, strlen(ENTRY_PREFIX)) != 0 || strlen(e->d_name) >= sizeof all->name ||
        fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (n == cap) {
      struct entry *more = realloc(all, (cap = cap ? cap * 2 : 64) * sizeof *all);
      if (!more) break;
      all = more;
    }
    snprintf(all[n].name, sizeof all[n].name, "%s", e->d_name);
    all[n].bytes = (long long)st.st_size;
    all[n++].written = st.st_mtim;
  }
  closedir(d);
  long long total = 0;
  for (size_t i = 0; i < n; ++i) total += all[i].bytes;
  qsort(all, n, sizeof *all, older_first);
  for (size_t i = 0; i < n && (n - i > (size_t)keep || total > MAX_TOTAL_BYTES); ++i) {
    unlinkat(dir, all[i].name, 0);
    total -= all[i].bytes;
  }
  free(all);
}

int placement_cache_store(const char *dir, const char *name, const char *data, size_t size, int keep, char *err,
                          size_t len) {
  if (keep <= 0 || !name || !name[0]) return 0;
  char why[512];
  int fd = trusted_dir_open(dir, 1, why, sizeof why);
  if (fd < 0) return snprintf(err, len, "cannot keep the placement for the next steps: %s", why), -1;
  int rc = trusted_name_ok(name) ? trusted_file_write(fd, name, data, size, 0644, why, sizeof why)
                                 : (snprintf(why, sizeof why, "bad entry name"), -1);
  if (rc == 0) trim(fd, keep);
  close(fd);
  if (rc != 0) snprintf(err, len, "cannot keep the placement for the next steps: %s", why);
  return rc;
}
