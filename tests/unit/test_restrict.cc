// SPDX-License-Identifier: GPL-2.0-or-later
// Restricted and non-contiguous CPU sets never yield a PU outside them.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "topology/cpulist.hh"
#include "engine.hh"
#include "error.hh"
#include "test_support.hh"

using namespace slurmpin;
using namespace slurmpin::test;

TEST(Restrict, EveryStrategyStaysInsideRandomCpuSets) {
  std::mt19937_64 rng(3);
  const Strategy all[] = {Strategy::kCompact, Strategy::kScatter, Strategy::kRandom, Strategy::kLpCompact,
                          Strategy::kLpScatter, Strategy::kGp, Strategy::kLpgp, Strategy::kGplp};
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<unsigned> allowed;
    for (unsigned c = 0; c < 96; ++c)
      if (rng() % 3 == 0) allowed.push_back(c);
    if (allowed.size() < 4) continue;
    int tasks = 1 + static_cast<int>(rng() % 3);
    int share = static_cast<int>(allowed.size()) / tasks;
    int threads = 1 + static_cast<int>(rng() % share);
    for (Strategy s : all) {
      Request r = request(topo("ccnuma.xml"), s, threads);
      r.topology.allowed = CpuSet::of(allowed);
      r.tasks = tasks;
      r.task_layout = trial % 2 ? TaskLayout::kScatter : TaskLayout::kCompact;
      r.matrix = random_affinity(threads, rng, 100, 0.3);
      r.has_matrix = true;
      Result res = compute_placement(r);
      std::set<unsigned> used;
      for (const auto& t : res.tasks) {
        std::set<unsigned> mine;
        for (const auto& th : t.threads) {
          ASSERT_EQ(th.cpus.count(), 1u);
          unsigned c = static_cast<unsigned>(th.cpus.first());
          EXPECT_TRUE(std::binary_search(allowed.begin(), allowed.end(), c))
              << "CPU " << c << " outside " << format_cpulist(allowed);
          EXPECT_TRUE(t.share.has(c));
          EXPECT_TRUE(mine.insert(c).second) << "two threads on CPU " << c;
        }
        for (unsigned c : t.share.ids()) EXPECT_TRUE(used.insert(c).second) << "tasks share CPU " << c;
      }
    }
  }
}

TEST(Restrict, CpuOutsideTheTopologyIsAnError) {
  Request r = request(topo("core2.xml"), Strategy::kCompact);
  r.topology.allowed = CpuSet::of(std::vector<unsigned>{0, 9});
  try {
    compute_placement(r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CPU 9 is not in the topology"), std::string::npos);
  }
}

TEST(Restrict, NonContiguousSetKeepsTheTreeShape) {
  Request r = request(topo("core2.xml"), Strategy::kScatter, 3);
  r.topology.allowed = CpuSet::of(std::vector<unsigned>{1, 2, 3, 6});
  // Package 0 keeps L2#0 (core 1) and L2#1 (cores 2,3); package 1 keeps core 6.
  EXPECT_EQ(pus_of(compute_placement(r)), (std::vector<int>{1, 6, 2}));
}

TEST(Tasks, CompactBlocksAndScatteredTasks) {
  Request r = request(topo("core2.xml"), Strategy::kCompact, 2);
  r.tasks = 3;
  Result c = compute_placement(r);
  // Every core used, sizes within one: 3 tasks cannot each stay in one of
  // the 2 packages of 4 cores and be even, so the middle one spans them.
  EXPECT_EQ(c.tasks[0].share.list(), "0-2");
  EXPECT_EQ(c.tasks[1].share.list(), "3-5");
  EXPECT_EQ(c.tasks[2].share.list(), "6-7");
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0], "8 cores split among 3 tasks: 2 tasks of 3 cores, 1 task of 2 cores");
  // Scatter deals those shares over the packages (each held by the package
  // of its first core): task 1 on the second package, every core still used.
  r.task_layout = TaskLayout::kScatter;
  Result s = compute_placement(r);
  EXPECT_EQ(s.tasks[0].share.list(), "0-2");
  EXPECT_EQ(s.tasks[1].share.list(), "6-7");
  EXPECT_EQ(s.tasks[2].share.list(), "3-5");
  // Four tasks: one per package in turn, each package's two in order.
  r.tasks = 4;
  s = compute_placement(r);
  EXPECT_EQ(s.tasks[0].share.list(), "0-1");
  EXPECT_EQ(s.tasks[1].share.list(), "4-5");
  EXPECT_EQ(s.tasks[2].share.list(), "2-3");
  EXPECT_EQ(s.tasks[3].share.list(), "6-7");
}

TEST(Oversubscription, IsAnErrorUnlessAsked) {
  Request r = request(topo("core2.xml"), Strategy::kCompact, 12);
  EXPECT_THROW(compute_placement(r), Error);
  r.oversubscribe = true;
  std::vector<int> p = pus_of(compute_placement(r));
  EXPECT_EQ(p, (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}));
}

TEST(Granularity, WidensBindingToTheL2) {
  Request r = request(topo("core2.xml"), Strategy::kScatter, 2);
  r.widen_to = "L2";
  Result res = compute_placement(r);
  EXPECT_EQ(res.tasks[0].threads[0].cpus.ids(), (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(res.tasks[0].threads[1].cpus.ids(), (std::vector<unsigned>{4, 5}));
  r.widen_to = "L3";
  EXPECT_THROW(compute_placement(r), Error);  // Core2 has no L3
}

// load_topology keeps built trees per source and restriction: asking again,
// in any order and past the memo's size, gives each restriction its own tree.
TEST(Restrict, KeptTreesFollowTheRestrictionAsked) {
  TopologySpec spec;
  spec.source = topo("ccnuma.xml");
  const std::vector<std::vector<unsigned>> sets = {{}, {0, 1, 2, 3}, {8, 9}, {0, 1, 2, 3}, {}};
  for (int round = 0; round < 3; ++round) {
    for (const auto& allowed : sets) {
      spec.allowed = CpuSet::of(allowed);
      spec.granularity = Granularity::kCore;
      std::shared_ptr<const LoadedTopology> lt = load_topology(spec);
      EXPECT_EQ(lt->tree.nodes[lt->tree.root].pus, allowed.empty() ? lt->all_pus.ids() : allowed);
      spec.smt = 1;  // every kept PU a slot: the key tells smt apart
      EXPECT_EQ(load_topology(spec)->tree.slots().size(), allowed.empty() ? lt->all_pus.count() : allowed.size());
      spec.smt = 0;
    }
    // Past the memo's entries: distinct restrictions evict the kept trees.
    for (unsigned c = 0; c < 40; ++c) {
      spec.allowed = CpuSet::of(std::vector<unsigned>{c});
      EXPECT_EQ(load_topology(spec)->tree.nodes[load_topology(spec)->tree.root].pus, spec.allowed.ids());
    }
  }
}
