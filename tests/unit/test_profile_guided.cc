// SPDX-License-Identifier: GPL-2.0-or-later
// Profile-guided strategies recover designed sharing structures, and the
// partitioner is balanced and close to the exhaustive optimum.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <random>

#include "engine.hh"
#include "parallel.hh"
#include "error.hh"
#include "strategies/partition.hh"
#include "strategies/profile_guided.hh"
#include "strategies/score.hh"
#include "test_support.hh"

using namespace slurmpin;
using namespace slurmpin::test;

namespace {

// Regions given as matrices, as a profile's regions are (use_profile).
void set_regions(Request& r, std::vector<std::pair<std::string, SharingMatrix>> regions) {
  auto held = std::make_shared<const std::vector<std::pair<std::string, SharingMatrix>>>(std::move(regions));
  r.region_names.clear();
  for (const auto& region : *held) r.region_names.push_back(region.first);
  r.region_matrix = [held](size_t i) { return (*held)[i].second; };
}

// 16 threads: pairs (2k, 2k+1) share most, groups of four (4g..4g+3) next,
// then a little everywhere. Thread ids are then shuffled so that no strategy
// can succeed by keeping index order.
SharingMatrix designed(std::vector<int>& perm) {
  perm.resize(16);
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937_64 rng(5);
  std::shuffle(perm.begin(), perm.end(), rng);
  DenseMatrix w(16);
  for (int i = 0; i < 16; ++i)
    for (int j = i + 1; j < 16; ++j) {
      double v = i / 2 == j / 2 ? 1000 : i / 4 == j / 4 ? 100 : 1;
      w.set(perm[i], perm[j], v);
    }
  return w.affinity();
}

// n threads in blocks of 8 sharing 1000, noise 1-100 on every other pair
// (a real profile's shape); block b is threads perm[8b..8b+7], ids shuffled.
SharingMatrix shuffled_dense_blocks(int n, uint64_t seed, std::vector<int>& perm) {
  std::mt19937_64 rng(seed);
  perm.resize(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  DenseMatrix d(n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      double v = static_cast<double>(1 + rng() % 100) + (i / 8 == j / 8 ? 1000 : 0);
      d.set(perm[i], perm[j], v), d.set(perm[j], perm[i], v);
    }
  return d.affinity();
}

Result run(const std::string& topology, Strategy s, const SharingMatrix& w) {
  Request r = request(topology, s, w.size());
  r.matrix = w;
  r.has_matrix = true;
  return compute_placement(r);
}

double fraction(const Result& r, const std::string& kind) {
  for (const auto& l : r.levels())
    if (l.kind == kind) return l.fraction();
  return -1;
}

}  // namespace

TEST(ProfileGuided, HierarchicalStrategiesRecoverDesignedPairsAndGroups) {
  std::vector<int> perm;
  SharingMatrix w = designed(perm);
  double pairs = 8 * 1000, groups = pairs + 4 * 4 * 100, total = w.total();
  // Four packages of two L2s shared by two cores: one group per package,
  // one pair per L2.
  for (Strategy s : {Strategy::kLpgp, Strategy::kGplp}) {
    Result r = run("pack:4 l2:2 core:2 pu:1", s, w);
    EXPECT_DOUBLE_EQ(fraction(r, "L2"), pairs / total) << strategy_info(s).name;
    EXPECT_DOUBLE_EQ(fraction(r, "Package"), groups / total) << strategy_info(s).name;
  }
  // GP cuts once, at the L2s: it finds the pairs but not the groups.
  EXPECT_DOUBLE_EQ(fraction(run("pack:4 l2:2 core:2 pu:1", Strategy::kGp, w), "L2"), pairs / total);
  // Nehalem-like: groups of four per L3; GP and the hierarchical ones agree.
  for (Strategy s : {Strategy::kGp, Strategy::kLpgp, Strategy::kGplp})
    EXPECT_DOUBLE_EQ(fraction(run("pack:4 l3:1 core:4 pu:1", s, w), "L3"), groups / total);
}

TEST(ProfileGuided, LpCompactPutsEveryPairOnOneL2) {
  std::vector<int> perm;
  SharingMatrix w = designed(perm);
  Result r = run(topo("core2.xml"), Strategy::kLpCompact, w.subset({0, 1, 2, 3, 4, 5, 6, 7}));
  Result c = run(topo("core2.xml"), Strategy::kCompact, w.subset({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_GE(fraction(r, "L2"), fraction(c, "L2"));
}

TEST(ProfileGuided, LpScatterPutsOnePairPerPackageFirst) {
  // Pairs (0,1), (2,3): one pair per package on Core2.
  SharingMatrix w = SharingMatrix::from_edges(4, {{0, 1, 10}, {2, 3, 10}});
  std::vector<int> p = pus_of(run(topo("core2.xml"), Strategy::kLpScatter, w));
  EXPECT_EQ(p, (std::vector<int>{0, 1, 4, 5}));
}

TEST(ProfileGuided, OddThreadCountsAndFewerThreadsThanCores) {
  std::mt19937_64 rng(8);
  for (int n : {1, 3, 5, 7, 11, 13}) {
    SharingMatrix w = random_affinity(n, rng);
    for (Strategy s : {Strategy::kLpCompact, Strategy::kLpScatter, Strategy::kGp, Strategy::kLpgp, Strategy::kGplp}) {
      std::vector<int> p = pus_of(run(topo("ccnuma.xml"), s, w));
      std::sort(p.begin(), p.end());
      EXPECT_TRUE(std::adjacent_find(p.begin(), p.end()) == p.end()) << "two threads on one core";
      EXPECT_EQ(p.size(), static_cast<size_t>(n));
    }
  }
}

TEST(ProfileGuided, ZeroMatrixIsPlacedAndNoted) {
  Result r = run(topo("core2.xml"), Strategy::kLpgp, SharingMatrix(8));
  EXPECT_EQ(r.tasks[0].threads.size(), 8u);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("all zeros"), std::string::npos);
}

TEST(ProfileGuided, MatrixSizeMustMatchThreads) {
  Request r = request(topo("core2.xml"), Strategy::kLpgp, 6);
  r.matrix = SharingMatrix(8);
  r.has_matrix = true;
  r.matrix_source = "matrix m.txt";
  try {
    compute_placement(r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "matrix m.txt describes 8 threads but 6 threads were asked for: profile with 6 threads or run 8");
  }
  r.has_matrix = false;
  EXPECT_THROW(compute_placement(r), Error);  // lpgp needs a matrix
}

TEST(Partition, PartsHaveExactlyTheTargetSizes) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 30; ++trial) {
    int k = 2 + trial % 7, n = k + static_cast<int>(rng() % 60);
    SharingMatrix w = random_affinity(n, rng, 100, 0.5);
    std::vector<int> cap(k);
    for (int& c : cap) c = 1 + static_cast<int>(rng() % 16);
    int room = std::accumulate(cap.begin(), cap.end(), 0);
    if (room < n) cap[0] += n - room;
    std::vector<int> target = proportional_targets(n, cap, 1);
    ASSERT_EQ(std::accumulate(target.begin(), target.end(), 0), n);
    std::vector<int> part = partition_items(w, std::vector<int>(n, 1), target, 1);
    std::vector<int> size(k, 0);
    for (int p : part) size[p]++;
    EXPECT_EQ(size, target);
    for (int p = 0; p < k; ++p) EXPECT_LE(target[p], cap[p]);
  }
}

TEST(Partition, WithinOnePercentOfTheExhaustiveOptimum) {
  // 12 items into three parts of four: all 5775 partitions enumerated.
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 40; ++trial) {
    SharingMatrix w = random_affinity(12, rng, 100, trial % 2 ? 0.7 : 0);
    double best = 0;
    std::vector<int> part(12);
    for (int a = 0; a < (1 << 12); ++a) {
      if (__builtin_popcount(a) != 4 || !(a & 1)) continue;  // part 0 holds item 0
      int rest = 0xfff & ~a, low = rest & -rest;
      for (int b = rest; b; b = (b - 1) & rest) {
        if (__builtin_popcount(b) != 4 || !(b & low)) continue;  // part 1 holds the next item
        for (int i = 0; i < 12; ++i) part[i] = (a >> i & 1) ? 0 : (b >> i & 1) ? 1 : 2;
        best = std::max(best, kept_weight(w, part));
      }
    }
    std::vector<int> got = partition_items(w, std::vector<int>(12, 1), {4, 4, 4}, 1);
    EXPECT_GE(kept_weight(w, got), 0.99 * best) << "trial " << trial;
  }
}

// Restarts end at a try that keeps the bound (no part can beat it), and
// otherwise all are tried, the first of equals kept.
TEST(Partition, StartsEndAtTheBound) {
  std::vector<double> keeps = {5, 9, 10, 12, 10};
  std::vector<int> tried;
  auto start = [&](int s) {
    tried.push_back(s);
    return std::vector<int>{s};
  };
  auto kept = [&](const std::vector<int>& part) { return keeps[static_cast<size_t>(part[0])]; };
  EXPECT_EQ(best_of_starts(5, 10, start, kept), std::vector<int>{2});
  EXPECT_EQ(tried, (std::vector<int>{0, 1, 2}));
  tried.clear();
  EXPECT_EQ(best_of_starts(5, 100, start, kept), std::vector<int>{3});
  EXPECT_EQ(tried, (std::vector<int>{0, 1, 2, 3, 4}));
  keeps = {7, 7, 7};
  EXPECT_EQ(best_of_starts(3, 100, start, kept), std::vector<int>{0});
}

// 16 items in two blocks of 8 sharing 1000, noise 1-100 between every
// pair, cut in two (a NUMA node onto its two L3s): the blocks whole, which
// keeps exactly the bound, so the first start that finds them decides.
TEST(Partition, SmallBlockedSetsKeepTheBound) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<int> label(16);
    std::iota(label.begin(), label.end(), 0);
    std::shuffle(label.begin(), label.end(), rng);
    DenseMatrix d(16);
    for (int i = 0; i < 16; ++i)
      for (int j = i + 1; j < 16; ++j)
        d.set(i, j, static_cast<double>(1 + rng() % 100) + (label[i] / 8 == label[j] / 8 ? 1000 : 0));
    SharingMatrix w = d.affinity();
    std::vector<int> part = partition_items(w, std::vector<int>(16, 1), {8, 8}, 1);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j)
        EXPECT_EQ(part[i] == part[j], label[i] / 8 == label[j] / 8) << "trial " << trial << " items " << i << " " << j;
  }
}

// 32 items in blocks of 8 sharing 1000, noise 1-100 between every pair: a
// dense set, cut greedily (no METIS): every block whole.
TEST(Partition, DenseBlocksStayWhole) {
  std::mt19937_64 rng(7);
  DenseMatrix d(32);
  for (int i = 0; i < 32; ++i)
    for (int j = i + 1; j < 32; ++j) d.set(i, j, static_cast<double>(1 + rng() % 100) + (i / 8 == j / 8 ? 1000 : 0));
  SharingMatrix w = d.affinity();
  std::vector<int> part = partition_items(w, std::vector<int>(32, 1), {8, 8, 8, 8}, 1);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(part[i], part[i / 8 * 8]) << "item " << i;
}

// An 8 x 4 grid (each item shares 1 with its four neighbours) into four
// parts of 8: the best cuts (2 x 4 slabs, 4 x 2 quadrants) keep 40 of the 52
// edges, 77% of every item's neighbours: below the greedy cut's bar, so
// METIS cuts this set, and the optimum is kept.
TEST(Partition, GridKeepsTheOptimum) {
  DenseMatrix d(32);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x) {
      if (x + 1 < 8) d.set(y * 8 + x, y * 8 + x + 1, 1);
      if (y + 1 < 4) d.set(y * 8 + x, (y + 1) * 8 + x, 1);
    }
  SharingMatrix w = d.affinity();
  std::vector<int> part = partition_items(w, std::vector<int>(32, 1), {8, 8, 8, 8}, 1);
  EXPECT_EQ(kept_weight(w, part), 40);
}

// Dense sets of more than 64 items go through the greedy groups' graph
// (coarse_cut): pairs and single threads mixed, parts of uneven sizes, and
// still every part gets exactly its target.
TEST(Partition, DenseSetsOfManyItemsMeetTheTargets) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 12; ++trial) {
    int k = 2 + trial % 6, n = 65 + static_cast<int>(rng() % 200);
    SharingMatrix w = random_affinity(n, rng, 100, 0.2);
    std::vector<int> weight(n, 1);
    for (int i = 0; i < n; ++i) weight[i] = rng() % 3 ? 2 : 1;  // mostly pairs
    int total = std::accumulate(weight.begin(), weight.end(), 0);
    std::vector<int> cap(k);
    for (int& c : cap) c = 2 * (1 + static_cast<int>(rng() % 40));
    int room = std::accumulate(cap.begin(), cap.end(), 0);
    if (room < total) cap[0] += total - room + (total - room) % 2;
    std::vector<int> target = proportional_targets(total, cap, 2);
    std::vector<int> part = partition_items(w, weight, target, 1);
    std::vector<int> load(k, 0);
    for (int i = 0; i < n; ++i) load[part[i]] += weight[i];
    EXPECT_EQ(load, target) << "trial " << trial;
  }
}

// 128 items in shuffled blocks of 8 sharing 1000 over noise 1-100 on every
// pair, into four parts of 32: the greedy groups' graph keeps every block
// whole, as METIS did.
TEST(Partition, DenseBlocksStayWholeThroughTheGroupsGraph) {
  const int n = 128;
  std::vector<int> perm;
  SharingMatrix w = shuffled_dense_blocks(n, 5, perm);
  std::vector<int> part = partition_items(w, std::vector<int>(n, 1), {32, 32, 32, 32}, 1);
  for (int b = 0; b < n / 8; ++b)
    for (int k = 1; k < 8; ++k) EXPECT_EQ(part[perm[8 * b + k]], part[perm[8 * b]]) << "block " << b;
}

// After a dense set's cut, no item gains by a swap with an item of one of
// the two parts it shares most with (the groups' graph path ends with that
// search): checked by recomputing what the cut keeps for every such swap.
TEST(Partition, DenseCutsEndWithNoImprovingSwapTowardTheStrongestParts) {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 4; ++trial) {
    const int n = 80, k = 4;
    SharingMatrix w = random_affinity(n, rng, 100, 0.3);
    std::vector<int> part = partition_items(w, std::vector<int>(n, 1), {20, 20, 20, 20}, 1);
    double kept = kept_weight(w, part);
    for (int i = 0; i < n; ++i) {
      std::vector<std::pair<double, int>> pull;
      for (int p = 0; p < k; ++p) {
        if (p == part[i]) continue;
        double sum = 0;
        for (int j = 0; j < n; ++j)
          if (part[j] == p) sum += w.remainder(i, j);
        pull.emplace_back(-sum, p);
      }
      std::sort(pull.begin(), pull.end());
      for (int t = 0; t < 2; ++t)
        for (int j = 0; j < n; ++j) {
          if (part[j] != pull[t].second) continue;
          std::vector<int> swapped = part;
          std::swap(swapped[i], swapped[j]);
          EXPECT_LE(kept_weight(w, swapped), kept + 1e-6 * kept) << "trial " << trial << " items " << i << " " << j;
        }
    }
  }
}

TEST(Partition, ProportionalTargets) {
  EXPECT_EQ(proportional_targets(8, {8, 8}, 1), (std::vector<int>{4, 4}));
  EXPECT_EQ(proportional_targets(6, {4, 4, 4}, 2), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(proportional_targets(7, {4, 4}, 2), (std::vector<int>{4, 3}));
  EXPECT_EQ(proportional_targets(5, {1, 6}, 1), (std::vector<int>{1, 4}));
  EXPECT_EQ(proportional_targets(6, {3, 3}, 2), (std::vector<int>{3, 3}));  // pairs do not fit: singles
}

TEST(Phases, EveryRegionGetsItsOwnPlacementAndSimilarOnesMerge) {
  // Region a pairs (0,2)(1,3); region b pairs (0,1)(2,3); region c is b again
  // with a little noise; whole-run matrix: a + b.
  auto pairs = [](std::vector<std::pair<int, int>> ps, double noise) {
    DenseMatrix w(4);
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) w.set(i, j, noise);
    for (auto p : ps) w.set(p.first, p.second, 100);
    return w.affinity();
  };
  Request r = request(topo("core2.xml"), Strategy::kLpCompact, 4);
  r.matrix = pairs({{0, 2}, {1, 3}, {0, 1}, {2, 3}}, 0);
  r.has_matrix = true;
  r.phases = true;
  set_regions(r, {{"a", pairs({{0, 2}, {1, 3}}, 0)}, {"b", pairs({{0, 1}, {2, 3}}, 0)},
                  {"c", pairs({{0, 1}, {2, 3}}, 3)}});
  Result res = compute_placement(r);
  ASSERT_EQ(res.regions.size(), 3u);
  auto l2 = [&](const RegionPlace& rp, int t) { return rp.tasks[0].threads[t].cpus.first() / 2; };
  EXPECT_EQ(l2(res.regions[0], 0), l2(res.regions[0], 2));
  EXPECT_EQ(l2(res.regions[1], 0), l2(res.regions[1], 1));
  EXPECT_NE(l2(res.regions[1], 0), l2(res.regions[1], 2));
  EXPECT_TRUE(res.regions[2].merged);  // same placement as b: nothing moves
  r.phase_merge = 1.0;                   // everything merges into the first region
  res = compute_placement(r);
  EXPECT_TRUE(res.regions[1].merged && res.regions[2].merged);
  EXPECT_EQ(l2(res.regions[2], 0), l2(res.regions[2], 2));
  r.strategy = Strategy::kCompact;
  EXPECT_THROW(compute_placement(r), Error);  // phases need a profile-guided strategy
}

// A profile's regions through use_profile_file: each region's matrix is
// built where it is placed, and the placement is the one that matrix given
// whole gives; a region without the asked model (the whole run has it) is
// named at load, before anything is placed.
TEST(Phases, AProfilesRegionsArePlacedFromTheirOwnMatrices) {
  TempDir dir("phases_profile");
  std::string path = (dir.path / "p.profile").string();
  {
    std::ofstream f(path);
    f << "slurm-pin-profile 1\nthreads 4\nmatrix simple\n0 9 1 1\n9 0 1 1\n1 1 0 9\n1 1 9 0\n"
      << "matrix rw\n0 9 1 1\n9 0 1 1\n1 1 0 9\n1 1 9 0\n"
      << "region a\nmatrix simple\n0 1 9 1\n1 0 1 9\n9 1 0 1\n1 9 1 0\n"
      << "region b\nmatrix simple\n0 1 1 9\n1 0 9 1\n1 9 0 1\n9 1 1 0\n";
  }
  Request r = request(topo("core2.xml"), Strategy::kLpCompact, 4);
  r.phases = true;
  use_profile_file(r, path, "");
  ASSERT_EQ(r.region_names, (std::vector<std::string>{"a", "b"}));
  Result from_profile = compute_placement(r);
  Request whole = request(topo("core2.xml"), Strategy::kLpCompact, 4);
  whole.matrix = r.matrix;
  whole.has_matrix = true;
  whole.phases = true;
  set_regions(whole, {{"a", r.region_matrix(0)}, {"b", r.region_matrix(1)}});
  Result given = compute_placement(whole);
  ASSERT_EQ(from_profile.regions.size(), 2u);
  for (size_t i = 0; i < 2; ++i)
    for (int t = 0; t < 4; ++t)
      EXPECT_EQ(from_profile.regions[i].tasks[0].threads[t].cpus, given.regions[i].tasks[0].threads[t].cpus);
  // Region a's pairs are (0, 2) and (1, 3): they share an L2.
  auto l2 = [&](int t) { return from_profile.regions[0].tasks[0].threads[t].cpus.first() / 2; };
  EXPECT_EQ(l2(0), l2(2));
  EXPECT_EQ(l2(1), l2(3));
  Request rw = request(topo("core2.xml"), Strategy::kLpCompact, 4);
  rw.phases = true;
  rw.profile_model = "rw";
  try {
    use_profile_file(rw, path, "");
    ADD_FAILURE() << "a profile without rw matrices loaded for the rw model";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no 'rw' matrix in region a"), std::string::npos) << e.what();
  }
}

// Regions are placed in parallel on the CPUs the caller may use
// (engine.cc): the result is the one a single CPU computes, region by
// region, METIS's cuts (libc's rand()) included. Sparse 4 x 4 x 4 stencils,
// shuffled per region, so that METIS cuts them and every region differs; 2
// tasks of 64 threads, so that each region places 2 shares.
TEST(Phases, RegionsPlacedInParallelAsOneByOne) {
  const int n = 64;
  auto stencil = [&](uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<Edge> e;
    for (int i = 0; i < n; ++i)
      for (int d : {1, 4, 16})
        if (i % (4 * d) + d < 4 * d) e.push_back({perm[i], perm[i + d], static_cast<double>(1 + rng() % 100)});
    return SharingMatrix::from_edges(n, e);
  };
  for (Strategy s : {Strategy::kLpgp, Strategy::kGplp, Strategy::kGp}) {
    Request r = request("pack:2 numa:2 l3:2 core:16 pu:1", s, n);
    r.tasks = 2;
    r.matrix = stencil(99);
    r.has_matrix = true;
    r.phases = true;
    std::vector<std::pair<std::string, SharingMatrix>> regions;
    for (int k = 0; k < 12; ++k) regions.emplace_back("r" + std::to_string(k), stencil(100 + k));
    set_regions(r, std::move(regions));
    cpu_set_t all, one;
    ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &all)) {
        CPU_SET(c, &one);
        break;
      }
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    Result alone = compute_placement(r);
    ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
    Result together = compute_placement(r);
    ASSERT_EQ(alone.regions.size(), 12u);
    ASSERT_EQ(together.regions.size(), 12u);
    for (size_t g = 0; g < alone.regions.size(); ++g)
      for (size_t t = 0; t < 2; ++t)
        for (size_t i = 0; i < static_cast<size_t>(n); ++i)
          EXPECT_EQ(alone.regions[g].tasks[t].threads[i].cpus, together.regions[g].tasks[t].threads[i].cpus)
              << strategy_info(s).name << " region " << g << " task " << t << " thread " << i;
  }
}

// A request's regions are placed on no more threads than the CPUs it
// places on (a step's), than the caller may run on, than regions, than 32.
TEST(Phases, PlacingThreadsNeverExceedTheStepsCpus) {
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  int cpus = CPU_COUNT(&mine);
  EXPECT_EQ(placing_threads(100, 1), 1);
  EXPECT_EQ(placing_threads(1, 64), 1);
  EXPECT_EQ(placing_threads(0, 64), 1);
  EXPECT_EQ(placing_threads(100, 100), std::min({cpus, 100, kMaxPlacingThreads}));
  EXPECT_EQ(placing_threads(3, 100), std::min(cpus, 3));
}

namespace {

SharingMatrix random_pairs(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return random_affinity(n, rng, 1000);
}

}  // namespace

TEST(ProfileGuided, FewerThreadsThanCoresKeepLpCompactsPairs) {
  // Each L2 holds two cores: lp-compact keeps the optimal pairing inside L2s.
  // lpgp pairs first, and gplp too when there is room to spare, so both
  // must keep the same at every count, odd or even.
  Tree t = tree_of("pack:2 l3:1 l2:4 core:2 pu:1");
  for (int n : {2, 3, 5, 6, 7, 9, 11, 13, 15})
    for (uint64_t seed = 0; seed < 5; ++seed) {
      SharingMatrix w = random_pairs(n, 100 * n + seed);
      double optimal = kept_in(t, place_profile_guided(t, w, Strategy::kLpCompact, 1), w, "L2");
      for (Strategy s : {Strategy::kLpgp, Strategy::kGplp})
        EXPECT_DOUBLE_EQ(kept_in(t, place_profile_guided(t, w, s, 1), w, "L2"), optimal)
            << strategy_info(s).name << ", " << n << " threads, seed " << seed;
    }
  // gplp cuts first; with an even count it must not tear pairs by odd shares
  // (6 threads used to go 3+3 and keep no pair).
  for (int n : {2, 4, 6}) {
    std::vector<int> first(n);
    std::iota(first.begin(), first.end(), 0);
    SharingMatrix w = SharingMatrix::from_edges(6, {{0, 1, 900}, {2, 3, 800}, {4, 5, 700}, {1, 2, 50}}).subset(first);
    double optimal = kept_in(t, place_profile_guided(t, w, Strategy::kLpCompact, 1), w, "L2");
    EXPECT_DOUBLE_EQ(kept_in(t, place_profile_guided(t, w, Strategy::kGplp, 1), w, "L2"), optimal) << n;
  }
}

TEST(ProfileGuided, RestrictedSetsKeepThePairsThatStillShareACache) {
  // Cores 0-5 of 'pack:2 l3:1 l2:4 core:2': three whole L2s in package 0.
  Tree t = tree_of("pack:2 l3:1 l2:4 core:2 pu:1", {0, 1, 2, 3, 4, 5});
  for (uint64_t seed = 0; seed < 8; ++seed) {
    SharingMatrix w = random_pairs(5, seed);
    double optimal = kept_in(t, place_profile_guided(t, w, Strategy::kLpCompact, 1), w, "L2");
    for (Strategy s : {Strategy::kLpgp, Strategy::kGplp})
      EXPECT_DOUBLE_EQ(kept_in(t, place_profile_guided(t, w, s, 1), w, "L2"), optimal)
          << strategy_info(s).name << " seed " << seed;
  }
}

TEST(ProfileGuided, WithoutAPairLevelLpgpCutsAsWellAsGp) {
  // No cache holds exactly two cores: pairing first buys nothing, and lpgp
  // must reach the best balanced cut into packages, as gp does.
  Tree t = tree_of("pack:2 core:4 pu:1");
  for (uint64_t seed = 0; seed < 20; ++seed) {
    SharingMatrix w = random_pairs(8, 700 + seed);
    double best = 0;
    for (int a = 0; a < 256; ++a) {
      if (__builtin_popcount(a) != 4) continue;
      std::vector<int> part(8);
      for (int i = 0; i < 8; ++i) part[i] = a >> i & 1;
      best = std::max(best, kept_weight(w, part));
    }
    best += w.floor() * 12;  // two packages of four: 12 pairs share the floor
    for (Strategy s : {Strategy::kGp, Strategy::kLpgp, Strategy::kGplp})
      EXPECT_DOUBLE_EQ(kept_in(t, place_profile_guided(t, w, s, 1), w, "Package"), best)
          << strategy_info(s).name << " seed " << seed;
  }
}

TEST(ProfileGuided, TiesAreBrokenTheSameWayEveryTime) {
  // A uniform matrix and a stencil are all ties: the same seed, the same placement.
  Tree t = tree_of("pack:4 l3:1 l2:8 core:2 pu:1");
  std::vector<Edge> grid;
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) {
      if (c + 1 < 8) grid.push_back({r * 8 + c, r * 8 + c + 1, 1});
      if (r + 1 < 8) grid.push_back({r * 8 + c, r * 8 + c + 8, 1});
    }
  std::vector<double> flat(64 * 64, 3.0);
  for (const SharingMatrix& w : {SharingMatrix::from_edges(64, grid), SharingMatrix::from_dense(flat.data(), 64)})
    for (Strategy s : {Strategy::kLpCompact, Strategy::kGp, Strategy::kLpgp, Strategy::kGplp}) {
      std::vector<int> first = place_profile_guided(t, w, s, 42);
      for (int k = 0; k < 3; ++k) EXPECT_EQ(place_profile_guided(t, w, s, 42), first) << strategy_info(s).name;
    }
}

TEST(SharingMatrix, UniformPartIsAFloorNotPairs) {
  // A dense matrix with a constant part keeps only what rises above it.
  std::vector<double> m(100 * 100, 2.0);
  m[3 * 100 + 7] = 12;
  SharingMatrix w = SharingMatrix::from_dense(m.data(), 100);
  EXPECT_EQ(w.pairs(), 1u);
  EXPECT_EQ(w.floor(), 4);   // symmetrised: a(i,j) + a(j,i)
  EXPECT_EQ(w(3, 7), 14);
  EXPECT_EQ(w(1, 2), 4);
  EXPECT_DOUBLE_EQ(w.total(), 4.0 * 100 * 99 / 2 + 10);
  // Scores add the floor back for every pair sharing a domain.
  Tree t = tree_of("pack:2 core:2 pu:1");
  SharingMatrix four = w.subset({0, 1, 2, 3});
  EXPECT_DOUBLE_EQ(kept_in(t, t.slots(), four, "Package"), 2 * 4.0);  // (0,1) and (2,3)
}

TEST(SharingMatrix, TiledDenseBuildEqualsTheDefinition) {
  // Sizes around the 64-row tiles: every pair symmetrised, the floor out,
  // rows in increasing column order.
  std::mt19937_64 rng(11);
  for (int n : {1, 2, 63, 64, 65, 130}) {
    std::vector<double> m(static_cast<size_t>(n) * n);
    for (double& x : m) x = 3 + static_cast<double>(rng() % 5);
    for (int i = 0; i < n; ++i) m[static_cast<size_t>(i) * n + i] = 1000;  // the diagonal never counts
    SharingMatrix w = SharingMatrix::from_dense(m.data(), n);
    double floor = n > 1 ? 1e300 : 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) floor = std::min(floor, m[i * n + j] + m[j * n + i]);
    EXPECT_EQ(w.floor(), floor) << n;
    // Exactly the pairs above the floor are stored (the rows' sizes come
    // from the pass that finds the floor, which moves as it goes).
    size_t above = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) above += m[i * n + j] + m[j * n + i] > floor;
    EXPECT_EQ(w.pairs(), above) << n;
    for (int i = 0; i < n; ++i) {
      SharingMatrix::Row r = w.row(i);
      EXPECT_TRUE(std::is_sorted(r.to, r.to + r.size)) << n;
      for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        EXPECT_EQ(w(i, j), m[i * n + j] + m[j * n + i]) << n << " " << i << " " << j;
      }
    }
  }
}

TEST(SharingMatrix, HeaviestEntriesFirstTiesByLowerColumn) {
  DenseMatrix d(6);
  double row0[] = {0, 5, 9, 5, 1, 9};
  for (int j = 1; j < 6; ++j) d.set(0, j, row0[j]), d.set(j, 0, 0);
  d.set(1, 2, 1);  // the floor stays 0
  SharingMatrix w = d.affinity();
  std::vector<size_t> top;
  w.heaviest(0, 3, top);
  SharingMatrix::Row r = w.row(0);
  std::vector<int> cols;
  for (size_t e : top) cols.push_back(r.to[e]);
  EXPECT_EQ(cols, (std::vector<int>{2, 5, 1}));
  w.heaviest(0, 10, top);
  EXPECT_EQ(top.size(), r.size);
  w.heaviest(0, 0, top);
  EXPECT_TRUE(top.empty());
}

TEST(SharingMatrix, HeaviestMatchesASortOfTheRow) {
  // Against a stable sort by weight: long dense rows with many ties (small
  // integer weights), where many are asked and rows are skipped by block.
  std::mt19937_64 rng(3);
  for (int n : {20, 100, 300}) {
    SharingMatrix w = random_affinity(n, rng, 12, 0);
    for (size_t k : {1u, 4u, 8u, 16u, 40u}) {
      for (int i = 0; i < n; i += 7) {
        SharingMatrix::Row r = w.row(i);
        std::vector<size_t> expect(r.size), top;
        std::iota(expect.begin(), expect.end(), 0);
        std::stable_sort(expect.begin(), expect.end(), [&](size_t a, size_t b) { return r.w[a] > r.w[b]; });
        expect.resize(std::min(k, r.size));
        w.heaviest(i, k, top);
        EXPECT_EQ(top, expect) << n << " " << k << " " << i;
      }
    }
  }
}

TEST(SharingMatrix, StrongestKeepsEachRowsHeaviestFromBothEndsOnce) {
  // Against the definition: pair (i, j) stays when j is among i's k
  // heaviest or i among j's, with its remainder, stored in both rows once.
  std::mt19937_64 rng(5);
  for (int n : {2, 9, 40}) {
    SharingMatrix w = random_affinity(n, rng, 50, 0.3);
    for (size_t k : {1u, 3u, 8u}) {
      SharingMatrix s = w.strongest(k);
      std::vector<std::vector<int>> chose(n);
      std::vector<size_t> top;
      for (int i = 0; i < n; ++i) {
        w.heaviest(i, k, top);
        for (size_t e : top) chose[i].push_back(w.row(i).to[e]);
      }
      auto in = [&](int i, int j) { return std::count(chose[i].begin(), chose[i].end(), j) > 0; };
      size_t want = 0;
      for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
          bool kept = in(i, j) || in(j, i);
          want += kept;
          EXPECT_EQ(s.remainder(i, j), kept ? w.remainder(i, j) : 0) << n << " " << k << " " << i << " " << j;
        }
      EXPECT_EQ(s.pairs(), want) << n << " " << k;
      EXPECT_EQ(s.floor(), 0);
      for (int i = 0; i < n; ++i) EXPECT_TRUE(std::is_sorted(s.row(i).to, s.row(i).to + s.row(i).size));
    }
  }
}

TEST(SharingMatrix, BetweenGroupsSumsEveryCrossingPair) {
  // Dense and sparse matrices (the two ways between() sums), groups of one
  // and two, some items in no group: W'(A, B) is the sum of remainders.
  std::mt19937_64 rng(8);
  for (double zeros : {0.0, 0.9}) {
    SharingMatrix w = random_affinity(30, rng, 100, zeros);
    std::vector<int> items(30);
    std::iota(items.begin(), items.end(), 0);
    std::shuffle(items.begin(), items.end(), rng);
    std::vector<std::vector<int>> groups;
    for (size_t k = 0; k + 2 < items.size();) {  // one, two, one, two, ...: the last two items in none
      size_t size = groups.size() % 2 ? 2 : 1;
      groups.emplace_back(items.begin() + static_cast<std::ptrdiff_t>(k), items.begin() + static_cast<std::ptrdiff_t>(k + size));
      k += size;
    }
    SharingMatrix b = w.between(groups);
    ASSERT_EQ(b.size(), static_cast<int>(groups.size()));
    for (size_t g = 0; g < groups.size(); ++g)
      for (size_t h = g + 1; h < groups.size(); ++h) {
        double sum = 0;
        for (int x : groups[g])
          for (int y : groups[h]) sum += w.remainder(x, y);
        EXPECT_EQ(b.remainder(static_cast<int>(g), static_cast<int>(h)), sum) << zeros << " " << g << " " << h;
      }
  }
}

TEST(ProfileGuided, DenseMatricesKeepEveryPlantedBlockAt256Threads) {
  // Real matrices are dense: blocks of 8 share 1000, every pair 1-100 of
  // noise besides, ids shuffled. On 8 packages of 16 L2s with 2 cores each,
  // every block must end inside one package (4 L2s) and every L2 hold two
  // threads of one block, whatever the noise.
  const int n = 256;
  std::vector<int> perm;
  SharingMatrix w = shuffled_dense_blocks(n, 3, perm);
  Tree t = tree_of("pack:8 l3:1 l2:16 core:2 pu:1");
  for (Strategy s : {Strategy::kLpgp, Strategy::kGplp, Strategy::kGp}) {
    std::vector<int> slot = place_profile_guided(t, w, s, 42);
    for (int b = 0; b < n / 8; ++b) {
      int pack = t.ancestor_of_kind(slot[perm[8 * b]], "Package");
      for (int k = 1; k < 8; ++k)
        EXPECT_EQ(t.ancestor_of_kind(slot[perm[8 * b + k]], "Package"), pack) << strategy_info(s).name << " block " << b;
    }
    if (s == Strategy::kGp) continue;  // gp lays out a package's threads in order
    for (int b = 0; b < n / 8; ++b)
      for (int k = 0; k < 8; ++k) {
        int l2 = t.ancestor_of_kind(slot[perm[8 * b + k]], "L2"), mates = 0;
        for (int m = 0; m < 8; ++m) mates += t.ancestor_of_kind(slot[perm[8 * b + m]], "L2") == l2;
        EXPECT_EQ(mates, 2) << strategy_info(s).name << " block " << b;
      }
  }
}
