/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pin_components.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kv_text.h"

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
    if (kv_put(out, len, &at, words[i].name, value)) return -1;
  }
  return kv_put(out, len, &at, "flags", flags);
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
    if (*seen & (1 << i) || kv_decode(dst, words[i].size, v, n) != 0) return -1;
    *seen |= 1 << i;
    if (dst == r->strategy) r->strategy_set = 1;
    return 0;
  }
  if (key_len != 5 || strncmp(key, "flags", 5) != 0 || *seen & (1 << N_WORDS)) return -1;
  *seen |= 1 << N_WORDS;
  char flags[64];
  return kv_decode(flags, sizeof flags, v, n) == 0 ? parse_flags(flags, r) : -1;
}

struct parse_state {
  struct pin_request *r;
  int seen;
};

static int field(const char *key, size_t key_len, const char *v, size_t n, void *ctx) {
  struct parse_state *st = ctx;
  return parse_field(key, key_len, v, n, st->r, &st->seen) ? -1 : 0;
}

int pin_request_parse(const char *text, struct pin_request *r) {
  memset(r, 0, sizeof *r);
  struct parse_state st = {r, 0};
  if (kv_each(text, field, &st) != 0) return memset(r, 0, sizeof *r), -1;
  return 0;
}
