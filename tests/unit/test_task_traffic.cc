// SPDX-License-Identifier: GPL-2.0-or-later
// Tasks placed by their traffic (sp_set_task_matrix, task_traffic.hh): the
// node's shares handed to tasks so that heavy pairs share a package and an
// L3; checked against every assignment of the shares (8 tasks: 40320) and
// against block order, through the C API as slurm-pin place uses it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "api_text.hh"
#include "slurm_pin_frontend.h"
#include "strategies/profile_guided.hh"
#include "strategies/score.hh"
#include "strategies/task_traffic.hh"
#include "test_support.hh"

namespace {

// One core per task on pack:2 l3:2 core:2 (8 cores): levels apart by CPU id.
int distance(int a, int b) {
  if (a == b) return 0;
  if (a / 2 == b / 2) return 1;  // one L3
  if (a / 4 == b / 4) return 2;  // one package
  return 3;
}

using Matrix = std::vector<std::vector<double>>;

double hop_cost(const Matrix& t, const std::vector<int>& cpu_of) {
  double c = 0;
  for (size_t i = 0; i < t.size(); ++i)
    for (size_t j = i + 1; j < t.size(); ++j) c += (t[i][j] + t[j][i]) * distance(cpu_of[i], cpu_of[j]);
  return c;
}

// Each task's CPU as the engine places it by `t` (empty: block order).
std::vector<int> placed(const Matrix& t, const char* strategy = "scatter") {
  sp_placement_t* p = sp_init();
  EXPECT_EQ(sp_set_topology(p, "pack:2 l3:2 core:2 pu:1"), 0);
  EXPECT_EQ(sp_set_strategy(p, strategy), 0);
  EXPECT_EQ(sp_set_tasks(p, 8), 0);
  std::vector<double> rows;
  for (const auto& r : t) rows.insert(rows.end(), r.begin(), r.end());
  if (!t.empty()) {
    EXPECT_EQ(sp_set_task_matrix(p, rows.data(), static_cast<int>(t.size())), 0) << sp_error(p);
  }
  EXPECT_EQ(sp_compute(p), 0) << sp_error(p);
  std::vector<int> cpu_of;
  for (int task = 0; task < 8; ++task)
    cpu_of.push_back(std::stoi(cpu_list(sp_get_task_cpuset(p, task))));
  sp_finalize(p);
  return cpu_of;
}

double optimum(const Matrix& t) {
  std::vector<int> perm(8);
  std::iota(perm.begin(), perm.end(), 0);
  double best = 1e300;
  do best = std::min(best, hop_cost(t, perm));
  while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

// A ring of 8 ranks in a shuffled order (rank r talks to the next one),
// plus light traffic everywhere.
Matrix shuffled_ring(unsigned seed) {
  std::vector<int> order(8);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  Matrix t(8, std::vector<double>(8, 1));
  for (int i = 0; i < 8; ++i) {
    t[i][i] = 0;
    int a = order[i], b = order[(i + 1) % 8];
    t[a][b] = t[b][a] = 1000;
  }
  return t;
}

TEST(TaskTraffic, HeavyPairsShareTheirPackageAndL3) {
  // Ranks 0-2, 1-3, 4-6, 5-7 exchange most: block order splits every pair.
  Matrix t(8, std::vector<double>(8, 1));
  for (int i = 0; i < 8; ++i) t[i][i] = 0;
  for (auto [a, b] : {std::pair{0, 2}, {1, 3}, {4, 6}, {5, 7}}) t[a][b] = t[b][a] = 500;
  std::vector<int> cpu = placed(t);
  for (auto [a, b] : {std::pair{0, 2}, {1, 3}, {4, 6}, {5, 7}}) EXPECT_EQ(cpu[a] / 2, cpu[b] / 2) << a << "-" << b;
  EXPECT_EQ(hop_cost(t, cpu), optimum(t));
  EXPECT_LT(hop_cost(t, cpu), hop_cost(t, placed({})));
  // Every CPU once: a permutation of the block shares.
  std::sort(cpu.begin(), cpu.end());
  EXPECT_EQ(cpu, std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(TaskTraffic, ShuffledRingsPlacedAtTheOptimumAndNeverWorseThanBlock) {
  for (unsigned seed = 1; seed <= 10; ++seed) {
    Matrix t = shuffled_ring(seed);
    double best = optimum(t), block = hop_cost(t, placed({}));
    // The threads' strategy is not profile-guided: tasks are placed by lpgp.
    for (const char* s : {"compact", "scatter"}) {
      double got = hop_cost(t, placed(t, s));
      EXPECT_LE(got, block) << "seed " << seed << " " << s;
      EXPECT_LE(got, best * 1.05) << "seed " << seed << " " << s << ": optimum " << best;
    }
  }
}

TEST(TaskTraffic, AMatrixOfAnotherSizeIsOneLine) {
  sp_placement_t* p = sp_init();
  ASSERT_EQ(sp_set_topology(p, "pack:2 l3:2 core:2 pu:1"), 0);
  ASSERT_EQ(sp_set_tasks(p, 4), 0);
  double rows[9] = {0, 1, 1, 1, 0, 1, 1, 1, 0};
  ASSERT_EQ(sp_set_task_matrix(p, rows, 3), 0);
  EXPECT_EQ(sp_compute(p), -1);
  std::string err = sp_error(p);
  EXPECT_NE(err.find("3 tasks"), std::string::npos) << err;
  EXPECT_NE(err.find("4 tasks"), std::string::npos) << err;
  double bad[4] = {0, -1, -1, 0};
  EXPECT_EQ(sp_set_task_matrix(p, bad, 2), -1);
  sp_finalize(p);
}

}  // namespace

namespace {

// A w x h halo exchange (each rank with its 4 neighbours), ranks shuffled.
std::vector<double> shuffled_halo(int w, int h, unsigned seed) {
  int n = w * h;
  std::vector<int> rank(static_cast<size_t>(n));
  std::iota(rank.begin(), rank.end(), 0);
  std::shuffle(rank.begin(), rank.end(), std::mt19937(seed));
  std::vector<double> t(static_cast<size_t>(n) * n, 0);
  for (int x = 0; x < w; ++x)
    for (int y = 0; y < h; ++y)
      for (auto [dx, dy] : {std::pair{1, 0}, {0, 1}})
        if (x + dx < w && y + dy < h) {
          int a = rank[x * h + y], b = rank[(x + dx) * h + y + dy];
          t[static_cast<size_t>(a) * n + b] = t[static_cast<size_t>(b) * n + a] = 100;
        }
  return t;
}

std::string matrix_file(const std::vector<double>& t, int n) {
  std::string path = ::testing::TempDir() + "ranks" + std::to_string(n) + ".txt";
  FILE* f = std::fopen(path.c_str(), "w");
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) std::fprintf(f, "%g%c", t[static_cast<size_t>(i) * n + j], j + 1 < n ? ' ' : '\n');
  std::fclose(f);
  return path;
}

TEST(RanksAcrossNodes, AShuffledHaloKeepsItsBlocksTogetherAndSlurmsSizes) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    std::string path = matrix_file(shuffled_halo(8, 8, seed), 64);
    std::vector<int> node_of(64);
    sp_rank_traffic t{};
    char err[512];
    ASSERT_EQ(sp_split_ranks(path.c_str(), 4, 1, node_of.data(), node_of.size(), &t, err, sizeof err), 64) << err;
    // Each node as many ranks as Slurm's block gives it.
    for (int n = 0; n < 4; ++n) EXPECT_EQ(std::count(node_of.begin(), node_of.end(), n), 16);
    // 112 edges of 100 each way (a pair weighs both: 200); four 4x4
    // quadrants cut 16 of them, no split into four equal parts fewer.
    EXPECT_DOUBLE_EQ(t.total, 22400);
    EXPECT_LE(t.crossing, 3200 * 1.25) << "seed " << seed;
    EXPECT_LT(t.crossing, t.block);
    EXPECT_LT(t.crossing, t.cyclic);
  }
}

TEST(RanksAcrossNodes, UnevenCountsAndBadInputAreOneLine) {
  std::string path = matrix_file(shuffled_halo(5, 2, 1), 10);
  std::vector<int> node_of(10);
  sp_rank_traffic t{};
  char err[512];
  ASSERT_EQ(sp_split_ranks(path.c_str(), 3, 1, node_of.data(), node_of.size(), &t, err, sizeof err), 10) << err;
  // Block sizes 4, 3, 3.
  EXPECT_EQ(std::count(node_of.begin(), node_of.end(), 0), 4);
  EXPECT_EQ(std::count(node_of.begin(), node_of.end(), 1), 3);
  EXPECT_LE(t.crossing, t.block);
  EXPECT_EQ(sp_split_ranks(path.c_str(), 11, 1, node_of.data(), node_of.size(), &t, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("10 ranks cannot run on 11 nodes"), std::string::npos) << err;
  EXPECT_EQ(sp_split_ranks("/nonexistent/ranks.txt", 2, 1, node_of.data(), node_of.size(), &t, err, sizeof err), -1);
}

}  // namespace
