#include "pin_env.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS_PER_THREAD 4096

int pin_expand_cpulist(const char *list, int *cpus, int max) {
  int n = 0;
  const char *p = list;
  while (*p) {
    if (!isdigit((unsigned char)*p)) return -1;
    char *end;
    long lo = strtol(p, &end, 10), hi = lo;
    p = end;
    if (*p == '-') {
      if (!isdigit((unsigned char)p[1])) return -1;
      hi = strtol(p + 1, &end, 10);
      p = end;
    }
    if (hi < lo || hi > 1 << 20) return -1;
    for (long c = lo; c <= hi; ++c) {
      if (n == max) return -1;
      cpus[n++] = (int)c;
    }
    if (*p == ',') ++p;
    else if (*p) return -1;
  }
  return n;
}

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
  enum { kMax = 65536 };
  static int ca[kMax], cb[kMax];
  static unsigned char in_b[kMax];
  int na = pin_expand_cpulist(a, ca, kMax), nb = pin_expand_cpulist(b, cb, kMax);
  if (na < 0 || nb < 0) return -1;
  memset(in_b, 0, sizeof in_b);
  for (int i = 0; i < nb; ++i) in_b[cb[i]] = 1;
  size_t pos = 0;
  buf[0] = '\0';
  for (int i = 0; i < na; ++i)
    if (in_b[ca[i]] && append(buf, len, &pos, pos ? ",%d" : "%d", ca[i])) return -1;
  return 0;
}
