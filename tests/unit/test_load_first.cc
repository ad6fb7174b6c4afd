// SPDX-License-Identifier: GPL-2.0-or-later
// Load first (load_first.hh): with more threads than cores and each
// thread's activity known, no profile-guided strategy puts two of the
// busiest threads on one core; without oversubscription, or with even
// loads, the strategy's placement stands.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "engine.hh"
#include "strategies/load_first.hh"
#include "test_support.hh"

using namespace slurmpin;
using namespace slurmpin::test;

namespace {

const Strategy kGuided[] = {Strategy::kLpCompact, Strategy::kLpScatter, Strategy::kGp, Strategy::kLpgp,
                            Strategy::kGplp};

Result place(const std::string& topology, Strategy s, const SharingMatrix& w, const std::vector<double>& load) {
  Request r = request(topology, s, w.size());
  r.matrix = w;
  r.has_matrix = true;
  r.oversubscribe = true;
  r.thread_load = load;
  return compute_placement(r);
}

// Each core's (first PU's) load, by the threads placed on it.
std::map<int, double> core_loads(const Result& r, const std::vector<double>& load) {
  std::map<int, double> out;
  std::vector<int> pus = pus_of(r);
  for (size_t i = 0; i < pus.size(); ++i) out[pus[i]] += load[i];
  return out;
}

// pigz's shape: 4 threads, threads 1 and 2 do the work and share the most.
SharingMatrix two_busy() {
  DenseMatrix d(4);
  d.set(0, 1, 5), d.set(0, 2, 5), d.set(0, 3, 1), d.set(1, 2, 900), d.set(1, 3, 5), d.set(2, 3, 5);
  return d.affinity();
}

}  // namespace

TEST(LoadFirst, TwoBusyThreadsOfFourOnTwoCoresGetACoreEach) {
  std::vector<double> load = {700, 2.6e6, 2.6e6, 650};
  for (Strategy s : kGuided) {
    Result r = place("pack:1 core:2 pu:1", s, two_busy(), load);
    std::vector<int> pus = pus_of(r);
    EXPECT_NE(pus[1], pus[2]) << strategy_info(s).name;
    // Still two threads per core.
    EXPECT_EQ(std::count(pus.begin(), pus.end(), 0), 2) << strategy_info(s).name;
  }
}

TEST(LoadFirst, EvenLoadsOrNoOversubscriptionLeaveTheStrategysPlacement) {
  for (Strategy s : kGuided) {
    // Even loads, or loads a few percent apart (an OpenMP team's threads
    // in any profile): the same placement as without them.
    Result without = place("pack:1 core:2 pu:1", s, two_busy(), {});
    for (const std::vector<double>& even : {std::vector<double>{5, 5, 5, 5}, {100, 104, 97, 101}}) {
      Result with = place("pack:1 core:2 pu:1", s, two_busy(), even);
      EXPECT_EQ(pus_of(with), pus_of(without)) << strategy_info(s).name;
    }
    Result with = without;
    // A core each: loads change nothing.
    with = place("pack:1 core:4 pu:1", s, two_busy(), {700, 2.6e6, 2.6e6, 650});
    without = place("pack:1 core:4 pu:1", s, two_busy(), {});
    EXPECT_EQ(pus_of(with), pus_of(without)) << strategy_info(s).name;
  }
}

TEST(LoadFirst, AMainThreadsSerialWorkBesideAnEvenTeamMovesNobody) {
  // An OpenMP program's profile (tests/programs/omp_phases.c, 8 threads):
  // the main thread's serial part makes it 4 times as busy as the team.
  std::vector<double> load = {53526, 12629, 12632, 12627, 13170, 12627, 12636, 12627};
  DenseMatrix d(8);
  for (int i = 0; i < 8; ++i)
    for (int j = i + 1; j < 8; ++j) d.set(i, j, j == i + 4 ? 500 : 1);
  for (Strategy s : kGuided) {
    Result with = place("pack:1 core:2 pu:1", s, d.affinity(), load);
    Result without = place("pack:1 core:2 pu:1", s, d.affinity(), {});
    EXPECT_EQ(pus_of(with), pus_of(without)) << strategy_info(s).name;
  }
}

TEST(LoadFirst, SmtCoresCountAsOneCore) {
  // 2 cores of 2 hardware threads: 4 threads fit on the PUs, but the two
  // busy ones must not be the two hardware threads of one core.
  std::vector<double> load = {700, 2.6e6, 2.6e6, 650};
  for (Strategy s : kGuided) {
    Result r = place("pack:1 core:2 pu:2", s, two_busy(), load);
    std::vector<int> pus = pus_of(r);
    EXPECT_NE(pus[1] / 2, pus[2] / 2) << strategy_info(s).name << ": PUs " << pus[1] << " " << pus[2];
  }
}

TEST(LoadFirst, UnevenLoadsOnManyCoresStayWithinOneThreadOfTheAverage) {
  // 24 threads on 8 cores (3 per core) in a two-level tree, random loads
  // and sharing: the busy ones (over 1.5 times a thread's average, at most
  // 8) on distinct cores, and no core above the average by more than the
  // busiest of the other threads.
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    DenseMatrix d(24);
    for (int i = 0; i < 24; ++i)
      for (int j = i + 1; j < 24; ++j) d.set(i, j, static_cast<double>(rng() % 1000));
    SharingMatrix w = d.affinity();
    std::vector<double> load(24);
    for (auto& l : load) l = static_cast<double>(rng() % 1000000) * (rng() % 4 == 0 ? 20 : 1);
    std::vector<int> order(24);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return load[a] > load[b]; });
    for (Strategy s : kGuided) {
      Result r = place("pack:2 l3:2 core:2 pu:1", s, w, load);
      std::vector<int> pus = pus_of(r);
      double total = std::accumulate(load.begin(), load.end(), 0.0);
      std::vector<int> busiest;
      int busy = 0;
      while (busy < 8 && load[order[busy]] > 1.5 * total / 24) ++busy;
      for (int k = 0; k < busy; ++k) busiest.push_back(pus[order[k]]);
      std::sort(busiest.begin(), busiest.end());
      EXPECT_EQ(std::unique(busiest.begin(), busiest.end()), busiest.end()) << strategy_info(s).name << " seed " << seed;
      double rest = load[order[busy]];
      for (auto [core, l] : core_loads(r, load))
        EXPECT_LE(l, std::max(total / 8, load[order[0]]) + rest + 1e-6)
            << strategy_info(s).name << " seed " << seed << " core " << core;
    }
  }
}

TEST(LoadFirst, ALoadListOfAnotherSizeIsIgnored) {
  Tree t = tree_of("pack:1 core:2 pu:1");
  std::vector<int> slot_of = {0, 0, 0};
  EXPECT_EQ(balance_load(t, two_busy(), {1, 2, 3}, slot_of, [] {}), 0);
}
