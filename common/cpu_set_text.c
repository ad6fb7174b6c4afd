/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cpu_set_text.h"

#include <stdlib.h>

/* A number of at most 5 digits at *p (advanced); -1 when none. */
static long number(const char **p, const char *end) {
  long v = 0;
  int digits = 0;
  while (*p < end && **p >= '0' && **p <= '9' && digits < 6) v = v * 10 + (*(*p)++ - '0'), ++digits;
  return digits && digits < 6 ? v : -1;
}

int cpu_place_parse(const char *text, size_t len, struct cpu_place *out) {
  const char *p = text, *end = text + len;
  long highest = -1;
  /* First pass: validate and find the highest id, to size the set. */
  while (p < end) {
    long lo = number(&p, end), hi = lo;
    if (p < end && *p == '-') ++p, hi = number(&p, end);
    if (lo < 0 || hi < lo || hi > RT_MAX_CPU) return -1;
    if (hi > highest) highest = hi;
    if (p < end && *p == ',' && p + 1 < end) ++p;
    else if (p < end) return -1;
  }
  if (highest < 0) return -1;
  out->set = CPU_ALLOC((size_t)highest + 1);
  if (!out->set) return -1;
  out->size = CPU_ALLOC_SIZE((size_t)highest + 1);
  CPU_ZERO_S(out->size, out->set);
  for (p = text; p < end;) {
    long lo = number(&p, end), hi = lo;
    if (p < end && *p == '-') ++p, hi = number(&p, end);
    for (long c = lo; c <= hi; ++c) CPU_SET_S((size_t)c, out->size, out->set);
    if (p < end) ++p;
  }
  return 0;
}

void cpu_place_free(struct cpu_place *p) {
  if (p->set) CPU_FREE(p->set);
  p->set = NULL;
  p->size = 0;
}
