// SPDX-License-Identifier: GPL-2.0-or-later
// How a node's CPUs are split among a step's tasks (compact layout), on the
// node kinds of tests/fixtures/topologies/make_node_kinds.sh: every core
// used, task sizes within one core (within the spread of a KNL's uneven
// quadrants), no task across a NUMA node or package when the task count
// allows a clean split, ties in node order; more tasks than cores spread.
#include <gtest/gtest.h>
#include <hwloc.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine.hh"
#include "test_support.hh"

using namespace slurmpin;
using namespace slurmpin::test;

namespace {

using Pus = std::set<unsigned>;

// The PU sets of every object of `type` in the XML topology at `path`.
std::vector<Pus> domains(const std::string& path, hwloc_obj_type_t type) {
  hwloc_topology_t t;
  hwloc_topology_init(&t);
  hwloc_topology_set_xml(t, path.c_str());
  hwloc_topology_load(t);
  std::vector<Pus> out;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_obj_by_type(t, type, o));) {
    Pus pus;
    for (int i = hwloc_bitmap_first(o->cpuset); i >= 0; i = hwloc_bitmap_next(o->cpuset, i))
      pus.insert(static_cast<unsigned>(i));
    out.push_back(pus);
  }
  hwloc_topology_destroy(t);
  return out;
}

Pus pus_of(const CpuSet& s) {
  std::vector<unsigned> ids = s.ids();
  return Pus(ids.begin(), ids.end());
}

// How many of `domains` the task's CPUs touch.
int touched(const Pus& task, const std::vector<Pus>& domains) {
  int n = 0;
  for (const Pus& d : domains)
    n += std::any_of(task.begin(), task.end(), [&](unsigned p) { return d.count(p) > 0; });
  return n;
}

// No task across a boundary between `domains` when the count allows it: as
// many tasks in each domain (each task inside one), or as many domains to
// each task (each domain inside one task).
void expect_clean(const std::vector<Pus>& tasks, const std::vector<Pus>& domains) {
  int n = static_cast<int>(tasks.size()), d = static_cast<int>(domains.size());
  if (d < 2) return;
  if (n % d == 0) {
    for (const Pus& t : tasks) {
      EXPECT_EQ(touched(t, domains), 1) << n << " tasks in " << d << " domains";
    }
  }
  if (d % n == 0) {
    for (const Pus& dom : domains) {
      EXPECT_EQ(touched(dom, tasks), 1) << n << " tasks over " << d << " domains";
    }
  }
}

struct Kind {
  const char* file;
  int spread;  // the largest difference in cores between two tasks allowed
};

// The KNL's spread: its quadrants differ by 2 cores, so two tasks of two
// whole quadrants each differ by 4.

const Kind kKinds[] = {{"node-broadwell-2x18.xml", 1}, {"node-epyc-nps4-smt.xml", 1}, {"node-power9-smt4.xml", 1},
                       {"node-mi250x.xml", 1},         {"node-a64fx.xml", 1},         {"node-cascadelake-ap.xml", 1},
                       {"node-knl-snc4.xml", 4}};

}  // namespace

TEST(TaskSplit, EveryCoreUsedEvenSizesAndNoTaskAcrossADomainWhenTheCountAllows) {
  for (const Kind& k : kKinds) {
    std::string path = topo(k.file);
    std::vector<Pus> numa = domains(path, HWLOC_OBJ_NUMANODE), packages = domains(path, HWLOC_OBJ_PACKAGE);
    Pus all;
    for (const Pus& p : packages) all.insert(p.begin(), p.end());
    for (int tasks = 2; tasks <= 16; ++tasks) {
      SCOPED_TRACE(std::string(k.file) + ", " + std::to_string(tasks) + " tasks");
      Request r = request(path, Strategy::kCompact);
      r.tasks = tasks;
      Result res = compute_placement(r);
      ASSERT_EQ(res.tasks.size(), static_cast<size_t>(tasks));
      Pus used;
      std::vector<Pus> shares;
      size_t least = SIZE_MAX, most = 0;
      for (const TaskPlace& t : res.tasks) {
        Pus mine = pus_of(t.share);
        for (unsigned p : mine) EXPECT_EQ(used.count(p), 0u) << "CPU " << p << " in two tasks";
        used.insert(mine.begin(), mine.end());
        shares.push_back(mine);
        least = std::min(least, t.threads.size());  // one thread per core of the task
        most = std::max(most, t.threads.size());
      }
      EXPECT_EQ(used, all);
      expect_clean(shares, numa);
      expect_clean(shares, packages);
      EXPECT_LE(most - least, static_cast<size_t>(k.spread));
    }
  }
}

// The split the issue held against mpibind: 8 tasks on 2 x 18 cores.
TEST(TaskSplit, BroadwellEightTasksAsMpibind) {
  Request r = request(topo("node-broadwell-2x18.xml"), Strategy::kCompact);
  r.tasks = 8;
  Result res = compute_placement(r);
  std::vector<std::string> got;
  for (const TaskPlace& t : res.tasks) got.push_back(t.share.list());
  EXPECT_EQ(got, (std::vector<std::string>{"0-4", "5-9", "10-13", "14-17", "18-22", "23-27", "28-31", "32-35"}));
  ASSERT_EQ(res.notes.size(), 1u);
  EXPECT_EQ(res.notes[0], "36 cores split among 8 tasks: 4 tasks of 5 cores, 4 tasks of 4 cores");
}

// A KNL's quadrants of 16, 16, 18 and 18 cores: one task each, whole.
TEST(TaskSplit, KnlQuadrantsOneTaskEach) {
  std::string path = topo("node-knl-snc4.xml");
  std::vector<Pus> numa = domains(path, HWLOC_OBJ_NUMANODE);
  Request r = request(path, Strategy::kCompact);
  r.tasks = 4;
  Result res = compute_placement(r);
  for (size_t t = 0; t < 4; ++t) EXPECT_EQ(pus_of(res.tasks[t].share), numa[t]);
}

// Two tasks on two packages: each its package, whatever else the tree has.
TEST(TaskSplit, TiesGoToTheFirstInNodeOrder) {
  Request r = request(topo("node-broadwell-2x18.xml"), Strategy::kCompact);
  r.tasks = 7;  // 36 cores: 6 and 5 per task, the larger first
  Result res = compute_placement(r);
  std::vector<size_t> sizes;
  for (const TaskPlace& t : res.tasks) sizes.push_back(t.threads.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{6, 5, 5, 5, 5, 5, 5}));
}

// More tasks than cores, when the launcher oversubscribes: spread evenly
// (each package of 4 cores 6 tasks), neighbouring tasks sharing a core; an
// error otherwise.
TEST(TaskSplit, MoreTasksThanCoresSpreadWhenOversubscribed) {
  Request r = request(topo("core2.xml"), Strategy::kCompact);
  r.tasks = 12;
  EXPECT_THROW(compute_placement(r), Error);
  r.oversubscribe = true;
  Result res = compute_placement(r);
  std::vector<std::string> got;
  for (const TaskPlace& t : res.tasks) got.push_back(t.share.list());
  EXPECT_EQ(got, (std::vector<std::string>{"0", "0", "1", "2", "2", "3", "4", "4", "5", "6", "6", "7"}));
  ASSERT_FALSE(res.notes.empty());
  EXPECT_NE(res.notes[0].find("12 tasks on 8 cores (oversubscribed)"), std::string::npos) << res.notes[0];
}
