// SPDX-License-Identifier: GPL-2.0-or-later
// The backends' per-thread line table (profiler/common/line_counts.h) against
// a std::map counting the same accesses: strided walks wider than its page
// cache, random lines, several regions, accesses that straddle lines.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <tuple>

#define LC_CALLOC std::calloc
#define LC_FREE std::free
#include "line_counts.h"

namespace {

using Key = std::tuple<uint64_t, uint32_t>;  // line, region
using Reference = std::map<Key, std::pair<uint64_t, uint64_t>>;

void count_both(LineCounts* t, Reference& ref, uint64_t addr, uint64_t size, uint32_t region, bool write) {
  lc_count(t, addr, size, 6, region, write);
  for (uint64_t line = addr >> 6; size && line <= (addr + size - 1) >> 6; ++line) {
    auto& c = ref[{line, region}];
    (write ? c.second : c.first)++;
  }
}

Reference contents(const LineCounts& t) {
  Reference out;
  lc_for_each(
      &t,
      [](void* ctx, uint64_t line, uint32_t region, uint64_t reads, uint64_t writes) {
        auto& seen = *static_cast<Reference*>(ctx);
        EXPECT_TRUE(seen.emplace(Key{line, region}, std::make_pair(reads, writes)).second) << "line listed twice";
      },
      &out);
  return out;
}

void release(LineCounts& t) { lc_release(&t); }

TEST(LineCounts, ZeroedTableIsEmpty) {
  LineCounts t{};
  EXPECT_TRUE(contents(t).empty());
  lc_count(&t, 4096, 0, 6, 0, 1);  // a zero-sized access touches nothing
  EXPECT_TRUE(contents(t).empty());
  release(t);
}

TEST(LineCounts, MatchesAMapOnStridedRandomAndStraddlingAccesses) {
  LineCounts t{};
  Reference ref;
  std::mt19937_64 rng(7);
  const uint64_t base = 0x7f0000000000ULL;
  // Column walks: one line per access, across far more pages than the cache
  // holds, and pages LC_CACHE apart (same cache slot) in two regions.
  for (int pass = 0; pass < 3; ++pass)
    for (uint64_t row = 0; row < 2000; ++row) {
      count_both(&t, ref, base + row * 96 * 64, 8, pass % 2, false);
      count_both(&t, ref, base + row * LC_CACHE * LC_PAGE_LINES * 64ULL, 8, 1, row % 3 == 0);
    }
  // Regions LC_CACHE apart share a cache slot for the same page.
  for (uint32_t region : {0u, 256u, 0u, 512u}) count_both(&t, ref, base + 64, 8, region, true);
  // Random lines and sizes, some straddling two or more lines.
  for (int i = 0; i < 100000; ++i) {
    uint64_t addr = base + (rng() % (1ULL << 26));  // 1024 pages
    uint64_t size = 1 + rng() % 200;
    count_both(&t, ref, addr, size, static_cast<uint32_t>(rng() % 3), rng() % 2);
  }
  EXPECT_EQ(contents(t), ref);
  release(t);
}

TEST(LineCounts, HotLinesPassTheSixteenBitCountersExactly) {
  // 16-bit counters: a line counted past 65535 spills into its page's
  // 64-bit counts, through the cached fast path and the table alike, and
  // added totals (the analyzer's) of any size land exactly too.
  LineCounts t{};
  Reference ref;
  const uint64_t base = 0x7f0000000000ULL;
  for (int i = 0; i < 200000; ++i) count_both(&t, ref, base, 8, 0, i % 3 == 0);
  for (int i = 0; i < 70000; ++i) count_both(&t, ref, base + 64, 8, 2, true);
  // Another page in between, then the hot line again: it was evicted from
  // the cache meanwhile, so its spill is found through the map.
  for (uint64_t p = 1; p <= 2 * LC_CACHE; ++p) count_both(&t, ref, base + p * LC_PAGE_LINES * 64, 8, 0, false);
  for (int i = 0; i < 70000; ++i) count_both(&t, ref, base, 8, 0, false);
  lc_add(&t, base >> 6, 0, 1ULL << 40, 5);
  ref[{base >> 6, 0}].first += 1ULL << 40, ref[{base >> 6, 0}].second += 5;
  lc_add(&t, (base >> 6) + 5000, 1, 7, 65536);
  ref[{(base >> 6) + 5000, 1}].first += 7, ref[{(base >> 6) + 5000, 1}].second += 65536;
  EXPECT_EQ(contents(t), ref);
  release(t);
}

TEST(LineCounts, FewLinesOfAPageCostWhatTheyTouchAWalkMakesItDense) {
  // A halo exchange: the first and last line of every 32-line row of 64
  // pages, read. Each page keeps its 64 lines sparse, reads only.
  LineCounts t{};
  Reference ref;
  const uint64_t base = 0x7f0000000000ULL;
  for (int pass = 0; pass < 3; ++pass)
    for (uint64_t row = 0; row < 64 * LC_PAGE_LINES / 32; ++row) {
      count_both(&t, ref, base + row * 32 * 64, 8, 3, false);
      count_both(&t, ref, base + (row * 32 + 31) * 64, 8, 3, false);
    }
  EXPECT_EQ(t.bytes, 64 * sizeof(LcSparse));
  EXPECT_EQ(contents(t), ref);
  // Its 65th line, or a walk of LC_SPARSE_RUN lines, makes a kind dense:
  // the fast path then finds it in the cache.
  count_both(&t, ref, base + 5 * 64, 8, 3, false);
  EXPECT_EQ(t.bytes, 63 * sizeof(LcSparse) + LC_PAGE_LINES * sizeof(uint16_t));
  EXPECT_NE(lc_cached(&t, base >> 6, 3, LC_READS), nullptr);
  EXPECT_EQ(lc_cached(&t, base >> 6, 3, LC_WRITES), nullptr);  // never written
  const uint64_t walk = base + 100 * LC_PAGE_LINES * 64;
  for (uint64_t line = 0; line < LC_SPARSE_RUN; ++line) count_both(&t, ref, walk + line * 64, 8, 3, true);
  EXPECT_NE(lc_cached(&t, walk >> 6, 3, LC_WRITES), nullptr);
  EXPECT_EQ(contents(t), ref);
  release(t);
  EXPECT_EQ(t.bytes, 0u);
}

}  // namespace
