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
 * Memory: a page keeps its reads and its writes apart, each kind made at
 * the first access of that kind, so a page a region only reads (a
 * stencil's input grid) or only writes (its output) costs half what both
 * would. A kind starts sparse: up to LC_SPARSE_LINES lines with their
 * counts, in line order (4 bytes a line), counted by the helper; its
 * LC_SPARSE_LINES + 1st line makes it dense, 2 bytes per line of the page
 * (a page covers 64 KiB of the program's memory with 64-byte lines), as
 * do LC_SPARSE_RUN consecutive lines (a walk through the page); only
 * dense pages enter the cache that the fast paths count in. So a region
 * that touches a few lines of every page (a halo exchange reading the
 * first and last line of every row) costs what it touches, not a page of
 * counters per page, and a walk through a page pays the helper for its
 * first few lines only. 16-bit counters, since a page is kept per thread
 * and region and a program's arrays are paged once per region that walks
 * them. A counter holds up to LC_COUNT_MAX (32767); one that would pass it
 * moves what it holds into the page's spill (64-bit counts per line, made
 * for the few pages with a line that hot): every count stays exact. The
 * top bit is a guard: the Valgrind tool's inline count adds first and
 * checks the guard after, and its helper then moves that count to the
 * spill at once (lc_settle), so outside that moment no counter holds
 * LC_GUARD.
 *
 * The compiler runtime counts every access here (lc_cached, lc_bump). The
 * Valgrind tool counts here inline an access whose address came from
 * memory (a gather), and counts the others in its own per-site lanes first,
 * moving a block of lines at a time here (lc_count_lines,
 * valgrind/sp_main.c).
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

#define LC_SPARSE_LINES 64 /* lines a kind of a page holds before it is made dense */
#define LC_SPARSE_RUN 4     /* consecutive lines that make it dense at once: a walk through the page */

#define LC_COUNT_MAX 0x7FFFu
#define LC_GUARD 0x8000u /* LC_COUNT_MAX + 1 */

typedef struct {
  uint64_t reads, writes;
} LcSpill;

enum { LC_READS = 0, LC_WRITES = 1 };

/* A kind's lines while few: line[i] (ascending) holds count[i]. */
typedef struct {
  uint16_t n;
  uint16_t line[LC_SPARSE_LINES];
  uint16_t count[LC_SPARSE_LINES];
} LcSparse;

/* key = page number + 1, so that a zeroed entry matches no page; tag = key
 * and region in one word, so that the cache check is one compare (pages
 * stay below 2^40 for any address a 64-bit process has, regions below
 * 2^24). */
typedef struct {
  uint64_t key;
  uint32_t region;
  uint8_t sparse; /* bit LC_READS, LC_WRITES: that kind's counts is an LcSparse */
  /* Per kind, [LC_READS] and [LC_WRITES]: LC_PAGE_LINES counters, or an
   * LcSparse while its bit in `sparse` is set; NULL until the page is
   * accessed that way in its region. */
  void *counts[2];
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
  uint16_t *counts;  /* its dense counters of the cache's kind (NULL or any page's while tag is 0) */
} LcCached;

typedef struct {
  LcPage *map; /* open addressing, at most half full */
  size_t cap, used;
  size_t bytes; /* of counters made, dense and sparse: the table's size */
  /* A cache per kind, the reads' first: the Valgrind tool finds the
   * writes' at a fixed distance from the reads'. */
  LcCached cache[2][LC_CACHE];
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

/* The page for (key, region), created on first touch with no counters. Out
 * of line: the callers' fast path (a page cache hit) stays a few
 * instructions. */
__attribute__((noinline)) static LcPage *lc_page(LineCounts *t, uint64_t key, uint32_t region) {
  if (2 * (t->used + 1) > t->cap) lc_grow(t);
  LcPage *p = lc_slot(t->map, t->cap, key, region);
  if (!p->key) {
    p->key = key;
    p->region = region;
    p->tag = lc_tag(key, region);
    t->used++;
  }
  return p;
}

/* Where line j is, or would go, among a kind's sparse lines. */
static inline unsigned lc_sparse_find(const LcSparse *sp, uint32_t j) {
  unsigned lo = 0, hi = sp->n;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    if (sp->line[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* How many consecutive lines j would end or join among the sparse lines
 * (j not among them yet, `at` where it would go). */
static inline unsigned lc_sparse_run(const LcSparse *sp, unsigned at, uint32_t j) {
  unsigned run = 1;
  for (unsigned i = at; i > 0 && sp->line[i - 1] == j - (at - i + 1); --i) ++run;
  for (unsigned i = at; i < sp->n && sp->line[i] == j + (i - at + 1); ++i) ++run;
  return run;
}

/* A kind made dense: its sparse lines' counts copied into a page of
 * counters. */
static inline uint16_t *lc_densify(LineCounts *t, LcPage *p, int write) {
  uint16_t *dense = (uint16_t *)LC_CALLOC(LC_PAGE_LINES, sizeof(uint16_t));
  const LcSparse *sp = (const LcSparse *)p->counts[write];
  if (sp) {
    for (unsigned i = 0; i < sp->n; ++i) dense[sp->line[i]] = sp->count[i];
    LC_FREE(p->counts[write]);
    t->bytes -= sizeof(LcSparse);
  }
  p->counts[write] = dense;
  p->sparse &= (uint8_t)~(1u << write);
  t->bytes += LC_PAGE_LINES * sizeof(uint16_t);
  return dense;
}

/* Line j's counter of a kind, made (zero) if the line is new: among the
 * sparse lines while they have room and hold no walk, else in the page,
 * made dense. */
static inline uint16_t *lc_counter(LineCounts *t, LcPage *p, int write, uint32_t j) {
  if (!p->counts[write]) {
    p->counts[write] = LC_CALLOC(1, sizeof(LcSparse));
    p->sparse |= (uint8_t)(1u << write);
    t->bytes += sizeof(LcSparse);
  }
  if (!(p->sparse & (1u << write))) return &((uint16_t *)p->counts[write])[j];
  LcSparse *sp = (LcSparse *)p->counts[write];
  unsigned lo = lc_sparse_find(sp, j);
  if (lo < sp->n && sp->line[lo] == j) return &sp->count[lo];
  if (sp->n == LC_SPARSE_LINES || lc_sparse_run(sp, lo, j) >= LC_SPARSE_RUN) return &lc_densify(t, p, write)[j];
  for (unsigned i = sp->n; i > lo; --i) sp->line[i] = sp->line[i - 1], sp->count[i] = sp->count[i - 1];
  sp->line[lo] = (uint16_t)j, sp->count[lo] = 0, sp->n++;
  return &sp->count[lo];
}

/* A page's slot in the cache: the top bits of its tag times 2^64 / phi
 * (Fibonacci hashing). Consecutive pages spread over the slots, and arrays
 * a power of two of pages apart (two grids of 128 MiB), which the low bits
 * would put in one slot to evict each other on every access, do not
 * collide; the region is in the tag, so one region's pages and the next's
 * differ too. The Valgrind tool computes the same in IR (count_in_table). */
static inline size_t lc_cache_slot(uint64_t key, uint32_t region) {
  return (size_t)((lc_tag(key, region) * LC_SLOT_MUL) >> (64 - LC_CACHE_BITS));
}

/* The line's counter of a kind when its page is in that kind's cache, else
 * NULL: the fast path (the compiler runtime inlines it into every hook). */
__attribute__((always_inline)) static inline uint16_t *lc_cached(const LineCounts *t, uint64_t line, uint32_t region,
                                                                 int write) {
  uint64_t key = (line >> LC_PAGE_BITS) + 1;
  const LcCached *c = &t->cache[write][lc_cache_slot(key, region)];
  return c->tag == lc_tag(key, region) ? &c->counts[line & (LC_PAGE_LINES - 1)] : NULL;
}

__attribute__((always_inline)) static inline uint16_t *lc_line(LineCounts *t, uint64_t line, uint32_t region,
                                                               int write) {
  uint16_t *n = lc_cached(t, line, region, write);
  if (n) return n;
  uint64_t key = (line >> LC_PAGE_BITS) + 1;
  LcPage *p = lc_page(t, key, region);
  n = lc_counter(t, p, write, (uint32_t)(line & (LC_PAGE_LINES - 1)));
  if (!(p->sparse & (1u << write))) { /* dense: into the cache */
    LcCached *c = &t->cache[write][lc_cache_slot(key, region)];
    c->counts = (uint16_t *)p->counts[write];
    c->tag = p->tag;
  }
  return n;
}

/* Moves a line's counter plus `more` into its page's spill. */
static inline void lc_page_spill(LineCounts *t, LcPage *p, uint32_t j, int write, uint64_t more) {
  if (!p->spill) p->spill = (LcSpill *)LC_CALLOC(LC_PAGE_LINES, sizeof(LcSpill));
  uint16_t *c = lc_counter(t, p, write, j);
  uint64_t *s = write ? &p->spill[j].writes : &p->spill[j].reads;
  *s += (uint64_t)*c + more;
  *c = 0;
}

static inline void lc_spill(LineCounts *t, uint64_t line, uint32_t region, int write, uint64_t more) {
  lc_page_spill(t, lc_page(t, (line >> LC_PAGE_BITS) + 1, region), (uint32_t)(line & (LC_PAGE_LINES - 1)), write,
                more);
}

/* A counter at LC_COUNT_MAX about to count one more: it and that access go
 * to the spill. Out of line: once per 32768 accesses to a line at most. */
__attribute__((noinline)) static void lc_overflow(LineCounts *t, uint64_t line, uint32_t region, int write) {
  lc_spill(t, line, region, write, 1);
}

/* The Valgrind tool's helper, before it counts an access of `size` bytes at
 * `addr`: when a counter of a line it touches holds LC_GUARD, the inline
 * count already counted the access (no counter holds LC_GUARD otherwise)
 * and that count goes to the spill; 1 then (the access is counted), else 0. */
static inline int lc_settle(LineCounts *t, uint64_t addr, uint64_t size, unsigned line_shift, uint32_t region,
                            int write) {
  int settled = 0;
  uint64_t last = (addr + size - 1) >> line_shift;
  for (uint64_t line = addr >> line_shift; size && line <= last; ++line) {
    const uint16_t *n = lc_cached(t, line, region, write);
    if (n && *n == LC_GUARD) {
      lc_spill(t, line, region, write, 0);
      settled = 1;
    }
  }
  return settled;
}

/* One access to `line`, whose counter of the access's kind is c. */
__attribute__((always_inline)) static inline void lc_bump(LineCounts *t, uint16_t *c, uint64_t line, uint32_t region,
                                                         int write) {
  if (*c == LC_COUNT_MAX) lc_overflow(t, line, region, write);
  else ++*c;
}

/* Counts an access of `size` bytes at `addr` (every line it touches). */
__attribute__((always_inline)) static inline void lc_count(LineCounts *t, uint64_t addr, uint64_t size, unsigned line_shift, uint32_t region,
                            int write) {
  uint64_t line = addr >> line_shift, last = (addr + size - 1) >> line_shift;
  if (size && line == last) { /* nearly every access: one line */
    lc_bump(t, lc_line(t, line, region, write), line, region, write);
    return;
  }
  if (!size) return;
  for (; line <= last; ++line) lc_bump(t, lc_line(t, line, region, write), line, region, write);
}

/* Counts n accesses of one kind to a line (the Valgrind tool, moving what
 * a site of the program counted into the table). */
static inline void lc_count_n(LineCounts *t, uint64_t line, uint32_t region, int write, uint64_t n) {
  uint16_t *c = lc_line(t, line, region, write);
  if (*c + n > LC_COUNT_MAX) lc_spill(t, line, region, write, n);
  else *c = (uint16_t)(*c + n);
}

/* Counts counts[i] accesses of one kind to line first + i, for i < n: lines
 * of one page (the Valgrind tool, moving what a site of the program counted
 * in a block of lines into the table). The page is found once when it is
 * in the cache. */
static inline void lc_count_lines(LineCounts *t, uint64_t first, uint32_t region, int write, const uint64_t *counts,
                                  unsigned n) {
  uint16_t *c = lc_cached(t, first, region, write);
  if (c) { /* no branch per line: a site's lines come in any pattern */
    uint64_t any = 0;
    for (unsigned i = 0; i < n; ++i) any |= c[i] + counts[i];
    if (any <= LC_COUNT_MAX) {
      for (unsigned i = 0; i < n; ++i) c[i] = (uint16_t)(c[i] + counts[i]);
      return;
    }
  }
  for (unsigned i = 0; i < n; ++i)
    if (counts[i]) lc_count_n(t, first + i, region, write, counts[i]);
}

/* Adds any counts of one kind to a line. */
static inline void lc_add_kind(LineCounts *t, LcPage *p, uint32_t j, int write, uint64_t more) {
  if (!more) return;
  uint16_t *c = lc_counter(t, p, write, j);
  if (*c + more > LC_COUNT_MAX) lc_page_spill(t, p, j, write, more);
  else *c = (uint16_t)(*c + more);
}

/* Adds any counts to a line (the analyzer, summing a trace). */
static inline void lc_add(LineCounts *t, uint64_t line, uint32_t region, uint64_t reads, uint64_t writes) {
  LcPage *p = lc_page(t, (line >> LC_PAGE_BITS) + 1, region);
  uint32_t j = (uint32_t)(line & (LC_PAGE_LINES - 1));
  lc_add_kind(t, p, j, LC_READS, reads);
  lc_add_kind(t, p, j, LC_WRITES, writes);
}

/* Line j's counter of one kind as it stands (0: never counted). */
static inline uint16_t lc_count_of(const LcPage *p, int write, uint32_t j) {
  if (!p->counts[write]) return 0;
  if (!(p->sparse & (1u << write))) return ((const uint16_t *)p->counts[write])[j];
  const LcSparse *sp = (const LcSparse *)p->counts[write];
  unsigned at = lc_sparse_find(sp, j);
  return at < sp->n && sp->line[at] == j ? sp->count[at] : 0;
}

/* Line j of page p: its reads and writes, spill included. */
static inline void lc_get(const LcPage *p, uint32_t j, uint64_t *reads, uint64_t *writes) {
  *reads = lc_count_of(p, LC_READS, j) + (p->spill ? p->spill[j].reads : 0);
  *writes = lc_count_of(p, LC_WRITES, j) + (p->spill ? p->spill[j].writes : 0);
}

/* Frees what the table holds (for the callers that outlive it), leaving it
 * empty: its cache forgets the pages too. */
static inline void lc_release(LineCounts *t) {
  for (size_t i = 0; i < t->cap; ++i)
    if (t->map[i].key) {
      for (int k = 0; k < 2; ++k)
        if (t->map[i].counts[k]) LC_FREE(t->map[i].counts[k]);
      if (t->map[i].spill) LC_FREE(t->map[i].spill);
    }
  if (t->map) LC_FREE(t->map);
  t->map = NULL, t->cap = t->used = t->bytes = 0;
  for (int k = 0; k < 2; ++k)
    for (size_t i = 0; i < LC_CACHE; ++i) t->cache[k][i].tag = 0, t->cache[k][i].counts = NULL;
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
