/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kv_text.h"

#include <stdio.h>
#include <string.h>

static const char kept[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:@,+-";

int kv_put(char *out, size_t len, size_t *at, const char *key, const char *value) {
  if (!value[0]) return 0;
  int n = snprintf(out + *at, len - *at, "%s%s=", *at ? " " : "", key);
  if (n < 0 || (size_t)n >= len - *at) return -1;
  *at += (size_t)n;
  for (const unsigned char *c = (const unsigned char *)value; *c; ++c) {
    n = strchr(kept, *c) ? snprintf(out + *at, len - *at, "%c", *c) : snprintf(out + *at, len - *at, "%%%02X", *c);
    if (n < 0 || (size_t)n >= len - *at) return -1;
    *at += (size_t)n;
  }
  return 0;
}

static int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int kv_decode(char *dst, size_t size, const char *src, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = src[i];
    if (c == '%') {
      if (i + 2 >= n) return -1;
      int hi = hex(src[i + 1]), lo = hex(src[i + 2]);
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return -1;
      c = (char)(hi * 16 + lo);
      i += 2;
    } else if (!strchr(kept, c)) {
      return -1;
    }
    if (k + 1 >= size) return -1;
    dst[k++] = c;
  }
  dst[k] = '\0';
  return k ? 0 : -1;
}

int kv_each(const char *text, int (*field)(const char *, size_t, const char *, size_t, void *), void *ctx) {
  for (const char *p = text; *p;) {
    const char *end = strchr(p, ' '), *eq = strchr(p, '=');
    if (!end) end = p + strlen(p);
    if (!eq || eq > end || eq == p) return -1;
    int rc = field(p, (size_t)(eq - p), eq + 1, (size_t)(end - eq - 1), ctx);
    if (rc) return rc;
    p = *end ? end + 1 : end;
  }
  return 0;
}
