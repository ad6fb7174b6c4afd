// SPDX-License-Identifier: GPL-2.0-or-later
// Grouping from the cores up (bottom_up.hh), checked against every
// grouping of small sets (8 ranks: 105 pairings, 35 halves), and the
// default placement by traffic (task_traffic.hh) that takes it as the
// floor every level must keep.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "strategies/bottom_up.hh"
#include "strategies/profile_guided.hh"
#include "strategies/score.hh"
#include "strategies/task_traffic.hh"
#include "test_support.hh"

namespace {

using slurmpin::SharingMatrix;
using slurmpin::Tree;
using slurmpin::test::kept_in;

SharingMatrix random_traffic(int n, int partners, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<slurmpin::Edge> e;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < partners; ++k)
      e.push_back({i, static_cast<int>(rng() % n), static_cast<double>(1 + rng() % 100)});
  return SharingMatrix::from_edges(n, e);
}

std::vector<slurmpin::LevelScore> levels(const Tree& t, const std::vector<int>& slot, const SharingMatrix& w) {
  return slurmpin::score_levels(t, {slot}, &w);
}

// Every thread on its own slot of t.
void expect_placement(const Tree& t, const std::vector<int>& slot, int n) {
  ASSERT_EQ(static_cast<int>(slot.size()), n);
  std::vector<int> slots = t.slots();
  std::set<int> used;
  for (int s : slot) {
    EXPECT_NE(std::find(slots.begin(), slots.end(), s), slots.end());
    EXPECT_TRUE(used.insert(s).second) << "slot " << s << " twice";
  }
}

// The most any pairing of 8 items keeps (every one of the 105).
double best_pairing(const SharingMatrix& w, std::vector<int> left = {0, 1, 2, 3, 4, 5, 6, 7}) {
  if (left.empty()) return 0;
  double best = 0;
  for (size_t k = 1; k < left.size(); ++k) {
    std::vector<int> rest;
    for (size_t r = 1; r < left.size(); ++r)
      if (r != k) rest.push_back(left[r]);
    best = std::max(best, w(left[0], left[k]) + best_pairing(w, rest));
  }
  return best;
}

// The most any split of 8 items into halves keeps inside them (the 35 of them).
double best_halves(const SharingMatrix& w) {
  double best = 0;
  for (unsigned mask = 0; mask < 256; ++mask) {
    if (__builtin_popcount(mask) != 4 || !(mask & 1)) continue;
    double kept = 0;
    for (int i = 0; i < 8; ++i)
      for (int j = i + 1; j < 8; ++j)
        if (((mask >> i) & 1) == ((mask >> j) & 1)) kept += w(i, j);
    best = std::max(best, kept);
  }
  return best;
}

}  // namespace

TEST(BottomUp, TheCoresPairsAreTheBestPairing) {
  Tree t = slurmpin::test::tree_of("pack:2 l2:2 core:2 pu:1");
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SharingMatrix w = random_traffic(8, 2, seed);
    for (bool greedy : {false, true}) {
      std::vector<int> slot = slurmpin::place_bottom_up(t, w, 1, greedy);
      expect_placement(t, slot, 8);
      EXPECT_DOUBLE_EQ(kept_in(t, slot, w, "L2"), best_pairing(w)) << seed;
    }
  }
}

TEST(BottomUp, TheLowestDomainsKeepTheBestGroups) {
  Tree t = slurmpin::test::tree_of("pack:2 core:4 pu:1");
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SharingMatrix w = random_traffic(8, 2, seed);
    std::vector<int> slot = slurmpin::place_bottom_up(t, w, 1, false);
    expect_placement(t, slot, 8);
    EXPECT_DOUBLE_EQ(kept_in(t, slot, w, "Package"), best_halves(w)) << seed;
  }
}

TEST(BottomUp, FreeSlotsGoToNobodyAndUnevenTreesAreDeclined) {
  Tree t = slurmpin::test::tree_of("pack:2 l3:2 core:4 pu:1");
  SharingMatrix w = random_traffic(11, 3, 7);
  expect_placement(t, slurmpin::place_bottom_up(t, w, 1, false), 11);
  expect_placement(t, slurmpin::place_bottom_up(t, w, 1, true), 11);
  // Five cores of one package and one of the other: no group size fits both.
  Tree uneven = slurmpin::test::tree_of("pack:2 core:8 pu:1", {0, 1, 2, 3, 4, 8});
  EXPECT_TRUE(slurmpin::place_bottom_up(uneven, random_traffic(6, 2, 1), 1, false).empty());
  // The default places there all the same (the cuts alone).
  expect_placement(uneven, slurmpin::place_by_traffic(uneven, random_traffic(6, 2, 1), 1), 6);
}

TEST(TaskTraffic, TheDefaultKeepsAtLeastTheGroupsAtEveryLevel) {
  using slurmpin::Strategy;
  // Where gplp or lpgp keep at least as much as the groups at every level,
  // the one keeping more in sum; else the groups. Both rules are met on
  // trees with and without L2 pairs, and each rule decides some seeds.
  int cuts_taken = 0, groups_taken = 0;
  for (const char* tree : {"pack:2 l3:2 l2:2 core:2 pu:1", "pack:2 l3:2 core:4 pu:1", "pack:2 l3:2 l2:4 core:2 pu:1"}) {
    Tree t = slurmpin::test::tree_of(tree);
    int n = t.nodes[t.root].slots;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      SharingMatrix w = random_traffic(n, 3, seed);
      std::vector<int> groups = slurmpin::place_bottom_up(t, w, 1, false);
      std::vector<int> chosen = slurmpin::place_by_traffic(t, w, 1);
      expect_placement(t, chosen, n);
      auto floor = levels(t, groups, w), got = levels(t, chosen, w);
      for (size_t l = 0; l < floor.size(); ++l) EXPECT_GE(got[l].kept, floor[l].kept) << tree << " " << seed;
      std::vector<std::vector<int>> cuts{slurmpin::place_profile_guided(t, w, Strategy::kGplp, 1)};
      if (slurmpin::has_pair_level(t)) cuts.push_back(slurmpin::place_profile_guided(t, w, Strategy::kLpgp, 1));
      double best = -1;
      for (const auto& c : cuts) {
        auto l = levels(t, c, w);
        bool keeps = true;
        for (size_t k = 0; k < l.size(); ++k) keeps &= l[k].kept >= floor[k].kept;
        if (keeps) best = std::max(best, slurmpin::quality(l));
      }
      if (best >= 0) {
        EXPECT_DOUBLE_EQ(slurmpin::quality(got), best) << tree << " " << seed;
        ++cuts_taken;
      } else {
        EXPECT_EQ(chosen, groups) << tree << " " << seed;
        ++groups_taken;
      }
    }
  }
  EXPECT_GT(cuts_taken, 0);
  EXPECT_GT(groups_taken, 0);
}

TEST(TaskTraffic, ManyRanksWithoutPairsAreGroupedGreedily) {
  // 256 ranks on cores that pair under no cache: the greedy groups, every
  // rank on its own core, each L3 keeping more than block order does.
  Tree t = slurmpin::test::tree_of("pack:4 l3:8 core:8 pu:1");
  SharingMatrix w = random_traffic(256, 4, 3);
  std::vector<int> chosen = slurmpin::place_by_traffic(t, w, 1);
  expect_placement(t, chosen, 256);
  EXPECT_EQ(chosen, slurmpin::place_bottom_up(t, w, 1, true));
  std::vector<int> order = t.slots(), block(order.begin(), order.begin() + 256);
  EXPECT_GT(kept_in(t, chosen, w, "L3"), 2 * kept_in(t, block, w, "L3"));
}
