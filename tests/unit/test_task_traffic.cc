// SPDX-License-Identifier: GPL-2.0-or-later
// Tasks placed by their traffic (sp_set_task_matrix, task_traffic.hh): the
// node's shares handed to tasks so that heavy pairs share a package and an
// L3; checked against every assignment of the shares (8 tasks: 40320) and
// against block order, through the C API as slurm-pin place uses it.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "api_text.hh"
#include "slurm_pin_frontend.h"

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
    cpu_of.push_back(std::stoi(api_text([&](char* b, size_t l) { return sp_get_task_cpus(p, task, b, l); })));
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
