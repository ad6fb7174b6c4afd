/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pin_env.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS_PER_THREAD 4096

/* Calls f(lo, hi, arg) for each range of a strict list whose ids are all at
 * most PIN_MAX_CPU_ID; -1 on the first bad item, before any id is used. */
static int each_range(const char *list, int (*f)(long lo, long hi, void *arg), void *arg) {
  const char *p = list;
  while (*p) {
    if (!isdigit((unsigned char)*p)) return -1;
    char *end;
    errno = 0;
    long lo = strtol(p, &end, 10), hi = lo;
    p = end;
    if (*p == '-') {
      if (!isdigit((unsigned char)p[1])) return -1;
      hi = strtol(p + 1, &end, 10);
      p = end;
    }
    if (errno || hi < lo || hi > PIN_MAX_CPU_ID) return -1;
    if (f && f(lo, hi, arg) != 0) return -1;
    if (*p == ',' && p[1]) ++p;
    else if (*p) return -1;
  }
  return 0;
}

struct expansion {
  int *cpus, n, max;
};

static int expand_range(long lo, long hi, void *arg) {
  struct expansion *e = arg;
  for (long c = lo; c <= hi; ++c) {
    if (e->n == e->max) return -1;
    e->cpus[e->n++] = (int)c;
  }
  return 0;
}

int pin_expand_cpulist(const char *list, int *cpus, int max) {
  struct expansion e = {cpus, 0, max};
  return each_range(list, expand_range, &e) == 0 ? e.n : -1;
}

int pin_check_cpulist(const char *list) { return *list ? each_range(list, NULL, NULL) : -1; }

/* Appends to buf at *pos; -1 when it does not fit. */
static int append(char *buf, size_t len, size_t *pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(buf + *pos, len - *pos, fmt, ap);
  va_end(ap);
  if (w < 0 || (size_t)w >= len - *pos) return -1;
  *pos += (size_t)w;
  return 0;
}

/* One thread's CPUs as "a,b,c" (open/close around sets of several CPUs). */
static int append_set(char *buf, size_t len, size_t *pos, const char *list, const char *open,
                      const char *close, int always_wrap) {
  static int cpus[MAX_CPUS_PER_THREAD];
  int n = pin_expand_cpulist(list, cpus, MAX_CPUS_PER_THREAD);
  if (n <= 0) return -1;
  int wrap = always_wrap || n > 1;
  if (wrap && append(buf, len, pos, "%s", open)) return -1;
  for (int i = 0; i < n; ++i)
    if (append(buf, len, pos, i ? ",%d" : "%d", cpus[i])) return -1;
  return wrap ? append(buf, len, pos, "%s", close) : 0;
}

int pin_omp_places(const char *const *threads, int n, char *buf, size_t len) {
  size_t pos = 0;
  buf[0] = '\0';
  for (int i = 0; i < n; ++i) {
    if (i && append(buf, len, &pos, ",")) return -1;
    if (append_set(buf, len, &pos, threads[i], "{", "}", 1)) return -1;
  }
  return 0;
}

int pin_gomp_affinity(const char *const *threads, int n, char *buf, size_t len) {
  static int cpus[MAX_CPUS_PER_THREAD];
  size_t pos = 0;
  buf[0] = '\0';
  for (int i = 0; i < n; ++i) {
    if (pin_expand_cpulist(threads[i], cpus, MAX_CPUS_PER_THREAD) <= 0) return -1;
    if (append(buf, len, &pos, i ? " %d" : "%d", cpus[0])) return -1;
  }
  return 0;
}

int pin_kmp_affinity(const char *const *threads, int n, char *buf, size_t len) {
  size_t pos = 0;
  buf[0] = '\0';
  if (append(buf, len, &pos, "explicit,proclist=[")) return -1;
  for (int i = 0; i < n; ++i) {
    if (i && append(buf, len, &pos, ",")) return -1;
    if (append_set(buf, len, &pos, threads[i], "{", "}", 0)) return -1;
  }
  return append(buf, len, &pos, "]");
}

int pin_cpus_list(const char *const *threads, int n, char *buf, size_t len) {
  size_t pos = 0;
  buf[0] = '\0';
  for (int i = 0; i < n; ++i)
    if (append(buf, len, &pos, i ? " %s" : "%s", threads[i])) return -1;
  return 0;
}

int pin_intersect_cpulists(const char *a, const char *b, char *buf, size_t len) {
  /* Checked first: hwloc sizes a bitmap by the largest id it reads. */
  if ((*a && pin_check_cpulist(a) != 0) || (*b && pin_check_cpulist(b) != 0)) return -1;
  hwloc_bitmap_t x = hwloc_bitmap_alloc(), y = hwloc_bitmap_alloc();
  int rc = -1;
  if (x && y && hwloc_bitmap_list_sscanf(x, a) == 0 && hwloc_bitmap_list_sscanf(y, b) == 0) {
    hwloc_bitmap_and(x, x, y);
    int n = hwloc_bitmap_list_snprintf(buf, len, x);
    rc = n >= 0 && (size_t)n < len ? 0 : -1;
  }
  hwloc_bitmap_free(x);
  hwloc_bitmap_free(y);
  return rc;
}
