/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One thread's counts of reads and writes to every cache line, per region:
 * the table both native backends fill (the Valgrind tool and the compiler
 * runtime), so they count alike.
 *
 * Lines are counted in pages of LC_PAGE_LINES consecutive lines: one page of
 * counters per (page, region) touched, found through a hash map, with a
 * direct-mapped cache of recent pages in front. A strided walk (a matrix
 * column: a new line on every access) then costs one compare and one
 * increment per access; a hash map of single lines cost a probe into a
 * table far bigger than the CPU caches on every one of them.
 *
 * Memory: 4 bytes per line of every page touched (a page covers 64 KiB of
 * the program's memory with 64-byte lines): 16-bit counters, since a page
 * is kept per thread and region and a program's arrays are paged once per
 * region that walks them. A counter holds up to LC_COUNT_MAX (32767); one
 * that would pass it moves what it holds into the page's spill (64-bit
 * counts per line, made for the few pages with a line that hot): every
 * count stays exact. The top bit is a guard: the Valgrind tool's inline
 * count adds first and checks the guard after (no carry reaches the other
 * counter), and its helper then moves that count to the spill at once
 * (lc_settle), so outside that moment no counter holds LC_GUARD.
 *
 * The includer defines LC_CALLOC(count, size), zeroed memory that is never
 * NULL (it aborts instead), and LC_FREE(p): libc's in the compiler runtime,
 * Valgrind's in the tool. A zeroed LineCounts is an empty table.
 */
#ifndef SLURM_PIN_LINE_COUNTS_H
#define SLURM_PIN_LINE_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#define LC_PAGE_BITS 10
#define LC_PAGE_LINES (1u << LC_PAGE_BITS)
#define LC_CACHE_BITS 8
#define LC_CACHE (1u << LC_CACHE_BITS) /* pages, 16 MiB: a column walk through a 1400 x 1400 matrix of doubles */
#define LC_SLOT_MUL 0x9E3779B97F4A7C15ULL /* 2^64 / the golden ratio */

#define LC_COUNT_MAX 0x7FFFu
#define LC_GUARD 0x8000u /* LC_COUNT_MAX + 1 */

typedef struct {
  uint16_t reads, writes;
} LcCounts;

typedef struct {
  uint64_t reads, writes;
} LcSpill;

/* key = page number + 1, so that a zeroed entry matches no page; tag = key
 * and region in one word, so that the cache check is one compare (pages
 * stay below 2^40 for any address a 64-bit process has, regions below
 * 2^24). */
typedef struct {
  uint64_t key;
  uint32_t region;
  LcCounts *counts; /* LC_PAGE_LINES of them */
  uint64_t tag;
  /* LC_PAGE_LINES of them once a counter of the page overflowed, else NULL
   * (the map's entry only: the cache holds no spill). */
  LcSpill *spill;
} LcPage;

static inline uint64_t lc_tag(uint64_t key, uint32_t region) { return key | ((uint64_t)region << 40); }

/* A cache slot: only what the fast paths read, 16 bytes, so that the
 * Valgrind tool finds a slot with a shift and the cache fits in L1. */
typedef struct {
  uint64_t tag;      /* lc_tag of the page held, 0: none */
  LcCounts *counts;  /* its counters (NULL or any page's while tag is 0) */
} LcCached;

typedef struct {
  LcPage *map; /* open addressing, at most half full */
  size_t cap, used;
  LcCached cache[LC_CACHE];
} LineCounts;

static inline size_t lc_hash(uint64_t key, uint32_t region) {
  return (size_t)(((key ^ ((uint64_t)region << 44)) * 0x9E3779B97F4A7C15ULL) >> 20);
}

static inline LcPage *lc_slot(LcPage *map, size_t cap, uint64_t key, uint32_t region) {
  size_t mask = cap - 1, i = lc_hash(key, region) & mask;
  while (map[i].key && (map[i].key != key || map[i].region != region)) i = (i + 1) & mask;
  return &map[i];
}

static inline void lc_grow(LineCounts *t) {
  size_t cap = t->cap ? t->cap * 2 : 64;
  LcPage *map = (LcPage *)LC_CALLOC(cap, sizeof(LcPage));
  for (size_t i = 0; i < t->cap; ++i)
    if (t->map[i].key) *lc_slot(map, cap, t->map[i].key, t->map[i].region) = t->map[i];
  if (t->map) LC_FREE(t->map);
  t->map = map;
  t->cap = cap;
}

/* The page for (key, region), created zeroed on first touch. Out of line:
 * the callers' fast path (a page cache hit) stays a few instructions. */
__attribute__((noinline)) static LcPage *lc_page(LineCounts *t, uint64_t key, uint32_t region) {
  if (2 * (t->used + 1) > t->cap) lc_grow(t);
  LcPage *p = lc_slot(t->map, t->cap, key, region);
  if (!p->key) {
    p->key = key;
    p->region = region;
    p->tag = lc_tag(key, region);
    p->counts = (LcCounts *)LC_CALLOC(LC_PAGE_LINES, sizeof(LcCounts));
    t->used++;
  }
  return p;
}

/* A page's slot in the cache: the top bits of its tag times 2^64 / phi
 * (Fibonacci hashing). Consecutive pages spread over the slots, and arrays
 * a power of two of pages apart (two grids of 128 MiB), which the low bits
 * would put in one slot to evict each other on every access, do not
 * collide; the region is in the tag, so one region's pages and the next's
 * differ too. The Valgrind tool computes the same in IR (count_inline). */
static inline size_t lc_cache_slot(uint64_t key, uint32_t region) {
  return (size_t)((lc_tag(key, region) * LC_SLOT_MUL) >> (64 - LC_CACHE_BITS));
}

/* The line's counters when its page is in the cache, else NULL: the fast
 * path (the compiler runtime inlines it into every hook). */
__attribute__((always_inline)) static inline LcCounts *lc_cached(const LineCounts *t, uint64_t line,
                                                                uint32_t region) {
  uint64_t key = (line >> LC_PAGE_BITS) + 1;
  const LcCached *c = &t->cache[lc_cache_slot(key, region)];
  return c->tag == lc_tag(key, region) ? &c->counts[line & (LC_PAGE_LINES - 1)] : NULL;
}

__attribute__((always_inline)) static inline LcCounts *lc_line(LineCounts *t, uint64_t line, uint32_t region) {
  LcCounts *n = lc_cached(t, line, region);
  if (n) return n;
  uint64_t key = (line >> LC_PAGE_BITS) + 1;
  LcCached *c = &t->cache[lc_cache_slot(key, region)];
  const LcPage *p = lc_page(t, key, region);
  c->tag = p->tag;
  c->counts = p->counts;
  return &c->counts[line & (LC_PAGE_LINES - 1)];
}

/* Moves a line's counter plus `more` into its page's spill. */
static inline void lc_spill(LineCounts *t, uint64_t line, uint32_t region, int write, uint64_t more) {
  LcPage *p = lc_page(t, (line >> LC_PAGE_BITS) + 1, region);
  uint32_t j = (uint32_t)(line & (LC_PAGE_LINES - 1));
  if (!p->spill) p->spill = (LcSpill *)LC_CALLOC(LC_PAGE_LINES, sizeof(LcSpill));
  uint16_t *c = write ? &p->counts[j].writes : &p->counts[j].reads;
  uint64_t *s = write ? &p->spill[j].writes : &p->spill[j].reads;
  *s += (uint64_t)*c + more;
  *c = 0;
}

/* A counter at LC_COUNT_MAX about to count one more: it and that access go
 * to the spill. Out of line: once per 32768 accesses to a line at most. */
__attribute__((noinline)) static void lc_overflow(LineCounts *t, uint64_t line, uint32_t region, int write) {
  lc_spill(t, line, region, write, 1);
}

/* The Valgrind tool's helper, before it counts an access of `addr`: when
 * the access's counter holds LC_GUARD, the inline count already counted it
 * and the count goes to the spill; 1 then (the access is counted), else 0. */
static inline int lc_settle(LineCounts *t, uint64_t addr, unsigned line_shift, uint32_t region, int write) {
  uint64_t line = addr >> line_shift;
  LcCounts *n = lc_cached(t, line, region);
  if (!n || (write ? n->writes : n->reads) != LC_GUARD) return 0;
  lc_spill(t, line, region, write, 0);
  return 1;
}

/* One access to `line`, whose counters are n. */
__attribute__((always_inline)) static inline void lc_bump(LineCounts *t, LcCounts *n, uint64_t line, uint32_t region,
                                                         int write) {
  uint16_t *c = write ? &n->writes : &n->reads;
  if (*c == LC_COUNT_MAX) lc_overflow(t, line, region, write);
  else ++*c;
}

/* Counts an access of `size` bytes at `addr` (every line it touches). */
__attribute__((always_inline)) static inline void lc_count(LineCounts *t, uint64_t addr, uint64_t size, unsigned line_shift, uint32_t region,
                            int write) {
  uint64_t line = addr >> line_shift, last = (addr + size - 1) >> line_shift;
  if (size && line == last) { /* nearly every access: one line */
    lc_bump(t, lc_line(t, line, region), line, region, write);
    return;
  }
  if (!size) return;
  for (; line <= last; ++line) lc_bump(t, lc_line(t, line, region), line, region, write);
}

/* Adds any counts to a line (the analyzer, summing a trace). */
static inline void lc_add(LineCounts *t, uint64_t line, uint32_t region, uint64_t reads, uint64_t writes) {
  LcPage *p = lc_page(t, (line >> LC_PAGE_BITS) + 1, region);
  uint32_t j = (uint32_t)(line & (LC_PAGE_LINES - 1));
  uint64_t r = p->counts[j].reads + reads, w = p->counts[j].writes + writes;
  if ((r > LC_COUNT_MAX || w > LC_COUNT_MAX) && !p->spill) p->spill = (LcSpill *)LC_CALLOC(LC_PAGE_LINES, sizeof(LcSpill));
  if (r > LC_COUNT_MAX) p->spill[j].reads += r, r = 0;
  if (w > LC_COUNT_MAX) p->spill[j].writes += w, w = 0;
  p->counts[j].reads = (uint16_t)r, p->counts[j].writes = (uint16_t)w;
}

/* Line j of page p: its reads and writes, spill included. */
static inline void lc_get(const LcPage *p, uint32_t j, uint64_t *reads, uint64_t *writes) {
  *reads = p->counts[j].reads + (p->spill ? p->spill[j].reads : 0);
  *writes = p->counts[j].writes + (p->spill ? p->spill[j].writes : 0);
}

/* Frees what the table holds (for the callers that outlive it), leaving it
 * empty: its cache forgets the pages too. */
static inline void lc_release(LineCounts *t) {
  for (size_t i = 0; i < t->cap; ++i)
    if (t->map[i].key) {
      LC_FREE(t->map[i].counts);
      if (t->map[i].spill) LC_FREE(t->map[i].spill);
    }
  if (t->map) LC_FREE(t->map);
  t->map = NULL, t->cap = t->used = 0;
  for (size_t i = 0; i < LC_CACHE; ++i) t->cache[i].tag = 0, t->cache[i].counts = NULL;
}

/* Calls visit(ctx, line, region, reads, writes) for every line touched. */
static inline void lc_for_each(const LineCounts *t, void (*visit)(void *, uint64_t, uint32_t, uint64_t, uint64_t),
                        void *ctx) {
  for (size_t i = 0; i < t->cap; ++i) {
    const LcPage *p = &t->map[i];
    if (!p->key) continue;
    uint64_t first = (p->key - 1) << LC_PAGE_BITS;
    for (uint32_t j = 0; j < LC_PAGE_LINES; ++j) {
      uint64_t reads, writes;
      lc_get(p, j, &reads, &writes);
      if (reads || writes) visit(ctx, first + j, p->region, reads, writes);
    }
  }
}

#endif
