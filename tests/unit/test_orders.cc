// SPDX-License-Identifier: GPL-2.0-or-later
// compact and scatter on the seeds' three machines, against placements
// derived by hand from the icc/KMP definitions (seed 000 section 3).
#include <gtest/gtest.h>

#include <algorithm>

#include "engine.hh"
#include "error.hh"
#include "test_support.hh"

using namespace slurmpin;
using namespace slurmpin::test;

namespace {
std::vector<int> place(const std::string& topo_file, Strategy s, int threads,
                       Granularity g = Granularity::kCore) {
  Request r = request(topo(topo_file), s, threads);
  r.topology.granularity = g;
  return pus_of(compute_placement(r));
}
}  // namespace

TEST(Core2, CompactFillsEachL2PairFirst) {
  EXPECT_EQ(place("core2.xml", Strategy::kCompact, 8), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(place("core2.xml", Strategy::kCompact, 2), (std::vector<int>{0, 1}));
}

TEST(Core2, ScatterAlternatesPackagesThenL2s) {
  EXPECT_EQ(place("core2.xml", Strategy::kScatter, 8), (std::vector<int>{0, 4, 2, 6, 1, 5, 3, 7}));
  EXPECT_EQ(place("core2.xml", Strategy::kScatter, 4), (std::vector<int>{0, 4, 2, 6}));
}

TEST(Nehalem, CompactAndScatter) {
  EXPECT_EQ(place("nehalem.xml", Strategy::kCompact, 8), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(place("nehalem.xml", Strategy::kScatter, 8), (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7}));
}

TEST(NehalemSmt, CoresByDefaultPusOnRequest) {
  // OS numbering as Linux gives it: core i holds PUs i and i+8.
  Result r = compute_placement(request(topo("nehalem-smt.xml"), Strategy::kCompact, 2));
  EXPECT_EQ(r.tasks[0].threads[0].cpus.ids(), (std::vector<unsigned>{0, 8}));
  EXPECT_EQ(r.tasks[0].threads[1].cpus.ids(), (std::vector<unsigned>{1, 9}));
  EXPECT_EQ(place("nehalem-smt.xml", Strategy::kCompact, 4, Granularity::kPu),
            (std::vector<int>{0, 8, 1, 9}));
  // Scatter uses every core once before any second hyperthread.
  EXPECT_EQ(place("nehalem-smt.xml", Strategy::kScatter, 10, Granularity::kPu),
            (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7, 8, 12}));
}

TEST(NehalemSmt, SmtKeepsTheFirstKHardwareThreadsOfEachCore) {
  // smt:1: one thread per core, each bound to that core's first PU only.
  Request r = request(topo("nehalem-smt.xml"), Strategy::kCompact, 0);
  r.topology.smt = 1;
  Result one = compute_placement(r);
  ASSERT_EQ(one.tasks[0].threads.size(), 8u);  // one per core by default
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(one.tasks[0].threads[i].cpus.ids(), (std::vector<unsigned>{i}));
  // smt:2 within cores 0-1: a thread on each of their four PUs.
  r.topology.smt = 2;
  r.topology.allowed = CpuSet::of(std::vector<unsigned>{0, 1, 8, 9});
  EXPECT_EQ(pus_of(compute_placement(r)), (std::vector<int>{0, 8, 1, 9}));
  // The first k *allowed* PUs: core 0 offers only PU 8 here.
  r.topology.smt = 1;
  r.topology.allowed = CpuSet::of(std::vector<unsigned>{1, 8, 9});
  std::vector<int> kept = pus_of(compute_placement(r));
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<int>{1, 8}));
  // More threads than kept PUs is the usual error, counted in PUs.
  r.threads = 3;
  try {
    compute_placement(r);
    ADD_FAILURE() << "3 threads on 2 PUs";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("only 2 PUs"), std::string::npos) << e.what();
  }
}

TEST(CcNuma, ScatterVisitsEveryNumaNodeThenEveryPackage) {
  // 4 NUMA nodes x 4 packages x 6 cores: package p of node n starts at 24n+6p.
  EXPECT_EQ(place("ccnuma.xml", Strategy::kScatter, 4), (std::vector<int>{0, 24, 48, 72}));
  std::vector<int> s = place("ccnuma.xml", Strategy::kScatter, 20);
  EXPECT_EQ(std::vector<int>(s.begin(), s.begin() + 16),
            (std::vector<int>{0, 24, 48, 72, 6, 30, 54, 78, 12, 36, 60, 84, 18, 42, 66, 90}));
  // Then the second L2 (core pair) of each first package.
  EXPECT_EQ(std::vector<int>(s.begin() + 16, s.end()), (std::vector<int>{2, 26, 50, 74}));
}

TEST(CcNuma, CompactFillsOnePackageThenTheNext) {
  std::vector<int> c = place("ccnuma.xml", Strategy::kCompact, 16);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(c[i], i);
}

TEST(Random, SameSeedSameOrderOtherSeedOtherOrder) {
  Request r = request(topo("ccnuma.xml"), Strategy::kRandom, 96);
  r.seed = 11;
  std::vector<int> a = pus_of(compute_placement(r)), b = pus_of(compute_placement(r));
  r.seed = 12;
  std::vector<int> c = pus_of(compute_placement(r));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::sort(a.begin(), a.end());
  for (int i = 0; i < 96; ++i) EXPECT_EQ(a[i], i);  // a permutation of the cores
}

TEST(RealMachine, ThisVmFixture) {
  // This CI machine as lstopo saw it: one package, two cores with private L2.
  EXPECT_EQ(place("this-vm.xml", Strategy::kCompact, 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(place("this-vm.xml", Strategy::kScatter, 2), (std::vector<int>{0, 1}));
}
