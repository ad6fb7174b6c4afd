/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * From the per-thread line tables (line_counts.h) to the sums a profile is
 * made of, inside the backend that counted them: no trace on disk to write
 * and read back. One pass over the lines touched; per line, every pair of
 * threads that touched it adds (seed 001)
 *   eq. 5.1: min(A_i, A_j)                                    (A = reads + writes)
 *   eq. 6.1: min(RD_i, WR_j) + min(WR_i, RD_j) + min(WR_i, WR_j)
 * to the matrix of each region it was touched in (counts of that region),
 * of the whole run ("run", counts merged over regions) and of the parallel
 * part ("par", merged over every region but the serial one); the run scope
 * also keeps, per pair, the lines both touched and their accesses (DRR's
 * Lines(p) and Access(p)), per thread its lines and accesses (working sets),
 * and the distinct lines.
 *
 * Memory: 72 bytes per page of every table (its entry, and room for its
 * counts of a line, its view and its place in thread order), a few arrays
 * of `threads`, and threads x threads pair sums per scope that has
 * sharing: never lines x threads x regions.
 *
 * The includer defines LC_CALLOC and LC_FREE (line_counts.h),
 * SS_SORT(base, count, size, compare) (qsort, or Valgrind's ssort) and
 * SS_SNPRINTF (snprintf, or Valgrind's).
 */
#ifndef SLURM_PIN_SHARING_SUMS_H
#define SLURM_PIN_SHARING_SUMS_H

#include "line_counts.h"

typedef struct {
  uint64_t simple, rw;
} SsPair;

typedef struct {
  uint64_t lines, accesses;
} SsShared;

typedef struct {
  unsigned threads, regions;
  SsPair *run, *par; /* threads x threads, entry [i * threads + j] for i < j */
  SsPair **region;   /* per region, allocated when it first has a shared line */
  SsShared *shared;  /* run scope, like run */
  uint64_t *thread_lines, *thread_accesses, *region_accesses;
  uint64_t lines;
} SharingSums;

typedef struct {
  uint64_t key;
  uint32_t region, thread;
  const LcPage *page;
} SsEntry;

typedef struct {
  uint32_t thread;
  uint64_t reads, writes;
} SsUse;

static inline int ss_entry_order(const void *a, const void *b) {
  const SsEntry *x = (const SsEntry *)a, *y = (const SsEntry *)b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  if (x->region != y->region) return x->region < y->region ? -1 : 1;
  return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static inline uint64_t ss_min(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Every pair among `users` (ascending threads) adds its sharing to m; with
 * `shared`, also the line and the pair's accesses to it. */
static inline void ss_add_pairs(const SsUse *users, unsigned n, unsigned threads, SsPair *m, SsShared *shared) {
  for (unsigned a = 0; a < n; ++a)
    for (unsigned b = a + 1; b < n; ++b) {
      const SsUse *x = &users[a], *y = &users[b];
      SsPair *p = &m[(size_t)x->thread * threads + y->thread];
      p->simple += ss_min(x->reads + x->writes, y->reads + y->writes);
      p->rw += ss_min(x->reads, y->writes) + ss_min(x->writes, y->reads) + ss_min(x->writes, y->writes);
      if (shared) {
        SsShared *s = &shared[(size_t)x->thread * threads + y->thread];
        s->lines++;
        s->accesses += x->reads + x->writes + y->reads + y->writes;
      }
    }
}

static inline SsPair *ss_region_matrix(SharingSums *s, uint32_t region) {
  if (!s->region[region]) s->region[region] = (SsPair *)LC_CALLOC((size_t)s->threads * s->threads, sizeof(SsPair));
  return s->region[region];
}

/* One entry's counts of the line being summed: read once per line, for
 * every sum made of it. */
typedef struct {
  uint64_t reads, writes;
} SsCounts;

/* The users of one line in one region (entries [from, to) share key and
 * region; c[k - from] holds entry k's counts). */
static inline void ss_region_line(SharingSums *s, const SsEntry *e, const SsCounts *c, size_t from, size_t to,
                                  SsUse *users) {
  unsigned n = 0;
  for (size_t k = from; k < to; ++k) {
    uint64_t reads = c[k - from].reads, writes = c[k - from].writes;
    if (!reads && !writes) continue;
    s->region_accesses[e[k].region] += reads + writes;
    users[n].thread = e[k].thread, users[n].reads = reads, users[n].writes = writes, n++;
  }
  if (n > 1) ss_add_pairs(users, n, s->threads, ss_region_matrix(s, e[from].region), NULL);
}

/* Per-thread counts of one line merged over regions (all, or all but the
 * serial one), as a list of users in thread order: `by_thread` lists the
 * page's entries (offsets from `from`) by thread, so that a thread's
 * entries come one after the other (c as ss_region_line's). */
static inline unsigned ss_merged_line(const SsEntry *e, const SsCounts *c, size_t from, size_t to,
                                      const uint64_t *by_thread, int parallel_only, SsUse *users) {
  unsigned n = 0;
  for (size_t i = 0; i < to - from; ++i) {
    uint32_t k = (uint32_t)by_thread[i];
    uint64_t reads = c[k].reads, writes = c[k].writes;
    if ((!reads && !writes) || (parallel_only && e[from + k].region == 0)) continue;
    uint32_t t = e[from + k].thread;
    if (n && users[n - 1].thread == t) {
      users[n - 1].reads += reads, users[n - 1].writes += writes;
    } else {
      users[n].thread = t, users[n].reads = reads, users[n].writes = writes, n++;
    }
  }
  return n;
}

static inline int ss_u64_order(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* A page's entries [from, to) (region order, threads ascending within
 * each) listed by thread, as offsets from `from`, each thread's in their
 * order: sorted as thread << 32 | offset, by insertion while they are few
 * (most pages: a few threads in a few regions). */
static inline void ss_by_thread(const SsEntry *e, size_t from, size_t to, uint64_t *by_thread) {
  size_t m = to - from;
  for (size_t k = 0; k < m; ++k) by_thread[k] = (uint64_t)e[from + k].thread << 32 | k;
  if (m > 32) {
    SS_SORT(by_thread, m, sizeof(uint64_t), ss_u64_order);
    return;
  }
  for (size_t a = 1; a < m; ++a) {
    uint64_t x = by_thread[a];
    size_t b = a;
    for (; b > 0 && by_thread[b - 1] > x; --b) by_thread[b] = by_thread[b - 1];
    by_thread[b] = x;
  }
}

/* Where an entry's counts of its page are, found once per page rather
 * than once per line: per kind, its dense counters, ss_no_counts when it
 * has none of that kind, or NULL while they are sparse (lc_count_of finds
 * them). */
typedef struct {
  const uint16_t *dense[2];
  const LcPage *page;
} SsView;

static const uint16_t ss_no_counts[LC_PAGE_LINES] = {0};

static inline void ss_view(SsView *v, const LcPage *p) {
  v->page = p;
  for (int k = 0; k < 2; ++k)
    v->dense[k] = !p->counts[k] ? ss_no_counts : (p->sparse & (1u << k)) ? NULL : (const uint16_t *)p->counts[k];
}

/* Line j's counts of one kind in a view (lc_get's, without the spill). */
static inline uint64_t ss_view_count(const SsView *v, int write, uint32_t j) {
  return v->dense[write] ? v->dense[write][j] : lc_count_of(v->page, write, j);
}

/* A line one thread touched alone (in any regions): its accesses, and no
 * pair to add anywhere (c as ss_region_line's). */
static inline void ss_private_line(SharingSums *s, const SsEntry *e, const SsCounts *c, size_t from, size_t to,
                                   uint32_t thread) {
  uint64_t accesses = 0;
  for (size_t k = from; k < to; ++k) {
    uint64_t n = c[k - from].reads + c[k - from].writes;
    s->region_accesses[e[k].region] += n;
    accesses += n;
  }
  s->lines++;
  s->thread_lines[thread]++;
  s->thread_accesses[thread] += accesses;
}

/* Whether one thread alone has entries [from, to) of a page. */
static inline int ss_one_thread(const SsEntry *e, size_t from, size_t to) {
  for (size_t k = from + 1; k < to; ++k)
    if (e[k].thread != e[from].thread) return 0;
  return 1;
}

/* One entry's accesses to the page (spill included), summed, and the lines
 * it touched marked in `touched`. */
static inline uint64_t ss_entry_sum(const SsView *v, uint8_t *touched) {
  uint64_t sum = 0;
  if (v->dense[LC_READS] && v->dense[LC_WRITES]) { /* the usual case: a plain loop the compiler vectorizes */
    const uint16_t *r = v->dense[LC_READS], *w = v->dense[LC_WRITES];
    for (uint32_t j = 0; j < LC_PAGE_LINES; ++j) {
      sum += (uint64_t)r[j] + w[j];
      touched[j] |= (r[j] | w[j]) != 0;
    }
  } else {
    for (uint32_t j = 0; j < LC_PAGE_LINES; ++j) {
      uint64_t n = ss_view_count(v, LC_READS, j) + ss_view_count(v, LC_WRITES, j);
      sum += n;
      touched[j] |= n != 0;
    }
  }
  if (v->page->spill)
    for (uint32_t j = 0; j < LC_PAGE_LINES; ++j) {
      uint64_t n = v->page->spill[j].reads + v->page->spill[j].writes;
      sum += n;
      touched[j] |= n != 0;
    }
  return sum;
}

/* A page one thread touched alone (in any regions), most pages of a
 * program whose threads work on their own data: ss_private_line's sums
 * for all its lines at once, an entry at a time. */
static inline void ss_private_page(SharingSums *s, const SsEntry *e, size_t from, size_t to, SsView *v) {
  uint8_t touched[LC_PAGE_LINES] = {0};
  uint64_t accesses = 0, lines = 0;
  for (size_t k = from; k < to; ++k) {
    ss_view(&v[k - from], e[k].page);
    uint64_t n = ss_entry_sum(&v[k - from], touched);
    s->region_accesses[e[k].region] += n;
    accesses += n;
  }
  for (uint32_t j = 0; j < LC_PAGE_LINES; ++j) lines += touched[j];
  s->lines += lines;
  s->thread_lines[e[from].thread] += lines;
  s->thread_accesses[e[from].thread] += accesses;
}

/* The lines of one page, entries [from, to) (every thread and region that
 * has it); c: room for their counts of one line, v for their views,
 * by_thread for their order by thread. */
static inline void ss_page(SharingSums *s, const SsEntry *e, size_t from, size_t to, SsCounts *c, SsView *v,
                           uint64_t *by_thread, SsUse *users) {
  if (ss_one_thread(e, from, to)) {
    ss_private_page(s, e, from, to, v);
    return;
  }
  for (size_t k = from; k < to; ++k) ss_view(&v[k - from], e[k].page);
  ss_by_thread(e, from, to, by_thread);
  for (uint32_t j = 0; j < LC_PAGE_LINES; ++j) {
    uint32_t thread = UINT32_MAX; /* the first thread that touched the line, UINT32_MAX: none */
    int shared = 0;
    for (size_t k = from; k < to; ++k) {
      const LcPage *p = e[k].page;
      uint64_t reads = ss_view_count(&v[k - from], LC_READS, j), writes = ss_view_count(&v[k - from], LC_WRITES, j);
      if (p->spill) reads += p->spill[j].reads, writes += p->spill[j].writes;
      c[k - from].reads = reads, c[k - from].writes = writes;
      if (!(reads | writes)) continue;
      if (thread == UINT32_MAX) thread = e[k].thread;
      else if (thread != e[k].thread) shared = 1;
    }
    if (thread == UINT32_MAX) continue; /* nobody touched it */
    if (!shared) { /* most lines: a thread's own data */
      ss_private_line(s, e, c, from, to, thread);
      continue;
    }
    for (size_t k = from; k < to;) {
      size_t end = k;
      while (end < to && e[end].region == e[k].region) ++end;
      ss_region_line(s, e, c + (k - from), k, end, users);
      k = end;
    }
    unsigned n = ss_merged_line(e, c, from, to, by_thread, 0, users);
    s->lines++;
    for (unsigned a = 0; a < n; ++a) {
      s->thread_lines[users[a].thread]++;
      s->thread_accesses[users[a].thread] += users[a].reads + users[a].writes;
    }
    ss_add_pairs(users, n, s->threads, s->run, s->shared);
    n = ss_merged_line(e, c, from, to, by_thread, 1, users);
    ss_add_pairs(users, n, s->threads, s->par, NULL);
  }
}

/* Fills s from tables[0..threads) (NULL: a thread that touched nothing),
 * whose region ids are below `regions`. */
static inline void ss_compute(SharingSums *s, LineCounts *const *tables, unsigned threads, unsigned regions) {
  size_t n = 0, k = 0;
  s->threads = threads, s->regions = regions;
  size_t pairs = (size_t)threads * threads;
  s->run = (SsPair *)LC_CALLOC(pairs, sizeof(SsPair));
  s->par = (SsPair *)LC_CALLOC(pairs, sizeof(SsPair));
  s->shared = (SsShared *)LC_CALLOC(pairs, sizeof(SsShared));
  s->region = (SsPair **)LC_CALLOC(regions ? regions : 1, sizeof(SsPair *));
  s->thread_lines = (uint64_t *)LC_CALLOC(threads ? threads : 1, sizeof(uint64_t));
  s->thread_accesses = (uint64_t *)LC_CALLOC(threads ? threads : 1, sizeof(uint64_t));
  s->region_accesses = (uint64_t *)LC_CALLOC(regions ? regions : 1, sizeof(uint64_t));
  for (unsigned t = 0; t < threads; ++t) n += tables[t] ? tables[t]->used : 0;
  SsEntry *e = (SsEntry *)LC_CALLOC(n ? n : 1, sizeof(SsEntry));
  for (unsigned t = 0; t < threads; ++t)
    for (size_t i = 0; tables[t] && i < tables[t]->cap; ++i) {
      const LcPage *p = &tables[t]->map[i];
      if (!p->key || p->region >= regions) continue;
      e[k].key = p->key, e[k].region = p->region, e[k].thread = t, e[k].page = p, k++;
    }
  SS_SORT(e, k, sizeof(SsEntry), ss_entry_order);
  SsUse *users = (SsUse *)LC_CALLOC(threads ? threads : 1, sizeof(SsUse));
  SsCounts *c = (SsCounts *)LC_CALLOC(k ? k : 1, sizeof(SsCounts));
  SsView *v = (SsView *)LC_CALLOC(k ? k : 1, sizeof(SsView));
  uint64_t *by_thread = (uint64_t *)LC_CALLOC(k ? k : 1, sizeof(uint64_t));
  for (size_t from = 0; from < k;) {
    size_t to = from;
    while (to < k && e[to].key == e[from].key) ++to;
    ss_page(s, e, from, to, c, v, by_thread, users);
    from = to;
  }
  LC_FREE(e), LC_FREE(users), LC_FREE(c), LC_FREE(v), LC_FREE(by_thread);
}

/* The sums as text (docs/profiler.md, after the header the backend writes):
 *   lines N | t THREAD LINES ACCESSES | r REGION ACCESSES
 *   p SCOPE I J SIMPLE RW  (SCOPE: run, par or a region id) | s I J LINES ACCESSES */
static inline void ss_write(const SharingSums *s, void (*put)(void *, const char *), void *ctx) {
  char line[160];
  unsigned T = s->threads;
  SS_SNPRINTF(line, sizeof line, "lines %llu\n", (unsigned long long)s->lines);
  put(ctx, line);
  for (unsigned t = 0; t < T; ++t) {
    SS_SNPRINTF(line, sizeof line, "t %u %llu %llu\n", t, (unsigned long long)s->thread_lines[t],
                (unsigned long long)s->thread_accesses[t]);
    put(ctx, line);
  }
  for (unsigned r = 0; r < s->regions; ++r) {
    SS_SNPRINTF(line, sizeof line, "r %u %llu\n", r, (unsigned long long)s->region_accesses[r]);
    put(ctx, line);
  }
  for (int scope = -2; scope < (int)s->regions; ++scope) {
    const SsPair *m = scope == -2 ? s->run : scope == -1 ? s->par : s->region[scope];
    char name[16];
    if (scope < 0) SS_SNPRINTF(name, sizeof name, "%s", scope == -2 ? "run" : "par");
    else SS_SNPRINTF(name, sizeof name, "%d", scope);
    for (unsigned i = 0; m && i < T; ++i)
      for (unsigned j = i + 1; j < T; ++j) {
        const SsPair *p = &m[(size_t)i * T + j];
        if (!p->simple && !p->rw) continue;
        SS_SNPRINTF(line, sizeof line, "p %s %u %u %llu %llu\n", name, i, j, (unsigned long long)p->simple,
                    (unsigned long long)p->rw);
        put(ctx, line);
      }
  }
  for (unsigned i = 0; i < T; ++i)
    for (unsigned j = i + 1; j < T; ++j) {
      const SsShared *p = &s->shared[(size_t)i * T + j];
      if (!p->lines) continue;
      SS_SNPRINTF(line, sizeof line, "s %u %u %llu %llu\n", i, j, (unsigned long long)p->lines,
                  (unsigned long long)p->accesses);
      put(ctx, line);
    }
}

static inline void ss_free(SharingSums *s) {
  for (unsigned r = 0; s->region && r < s->regions; ++r)
    if (s->region[r]) LC_FREE(s->region[r]);
  LC_FREE(s->region), LC_FREE(s->run), LC_FREE(s->par), LC_FREE(s->shared);
  LC_FREE(s->thread_lines), LC_FREE(s->thread_accesses), LC_FREE(s->region_accesses);
}

#endif
