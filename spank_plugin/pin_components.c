/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pin_components.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The request's fields, in the order they are written: words, then flags
 * (one "flags=" field of comma-separated names). */
#define WORD(f) {#f, offsetof(struct pin_request, f), sizeof(((struct pin_request *)0)->f)}
static const struct {
  const char *name;
  size_t offset, size;
} words[] = {WORD(strategy), WORD(profile), WORD(mem), WORD(granularity), WORD(threads), WORD(smt), WORD(gpu)};
#define N_WORDS (sizeof words / sizeof words[0])
#define FLAG(f) {#f, offsetof(struct pin_request, f)}
static const struct {
  const char *name;
  size_t offset;
} flags_of[] = {FLAG(verbose), FLAG(dryrun), FLAG(phases), FLAG(oversubscribe)};
#define N_FLAGS (sizeof flags_of / sizeof flags_of[0])

static const char kept[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:@,+-";

/* Appends " key=value" with value %-encoded; -1 when out is full. */
static int put(char *out, size_t len, size_t *at, const char *key, const char *value) {
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

int pin_request_format(const struct pin_request *r, char *out, size_t len) {
  char flags[64] = "";
  for (size_t i = 0; i < N_FLAGS; ++i)
    if (*(const int *)((const char *)r + flags_of[i].offset))
      snprintf(flags + strlen(flags), sizeof flags - strlen(flags), "%s%s", flags[0] ? "," : "", flags_of[i].name);
  size_t at = 0;
  if (len == 0) return -1;
  out[0] = '\0';
  for (size_t i = 0; i < N_WORDS; ++i) {
    const char *value = (const char *)r + words[i].offset;
    if (value == r->strategy && !r->strategy_set) continue;
    if (put(out, len, &at, words[i].name, value)) return -1;
  }
  return put(out, len, &at, "flags", flags);
}

static int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes src[0..n) into dst of size `size`; -1 when malformed or too long. */
static int decode(char *dst, size_t size, const char *src, size_t n) {
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

static int parse_flags(const char *v, struct pin_request *r) {
  char buf[64];
  if (strlen(v) >= sizeof buf) return -1;
  strcpy(buf, v);
  for (char *save = NULL, *f = strtok_r(buf, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
    size_t i = 0;
    while (i < N_FLAGS && strcmp(f, flags_of[i].name) != 0) ++i;
    if (i == N_FLAGS) return -1;
    *(int *)((char *)r + flags_of[i].offset) = 1;
  }
  return 0;
}

/* One "key=value" field; `seen` has a bit per word, then one for flags. */
static int parse_field(const char *key, size_t key_len, const char *v, size_t n, struct pin_request *r, int *seen) {
  for (size_t i = 0; i < N_WORDS; ++i) {
    if (strlen(words[i].name) != key_len || strncmp(key, words[i].name, key_len) != 0) continue;
    char *dst = (char *)r + words[i].offset;
    if (*seen & (1 << i) || decode(dst, words[i].size, v, n) != 0) return -1;
    *seen |= 1 << i;
    if (dst == r->strategy) r->strategy_set = 1;
    return 0;
  }
  if (key_len != 5 || strncmp(key, "flags", 5) != 0 || *seen & (1 << N_WORDS)) return -1;
  *seen |= 1 << N_WORDS;
  char flags[64];
  return decode(flags, sizeof flags, v, n) == 0 ? parse_flags(flags, r) : -1;
}

int pin_request_parse(const char *text, struct pin_request *r) {
  memset(r, 0, sizeof *r);
  int seen = 0;
  for (const char *p = text; *p;) {
    const char *end = strchr(p, ' '), *eq = strchr(p, '=');
    if (!end) end = p + strlen(p);
    if (!eq || eq > end || eq == p ||
        parse_field(p, (size_t)(eq - p), eq + 1, (size_t)(end - eq - 1), r, &seen) != 0)
      return memset(r, 0, sizeof *r), -1;
    p = *end ? end + 1 : end;
  }
  return 0;
}
