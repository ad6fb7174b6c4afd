// SPDX-License-Identifier: GPL-2.0-or-later
// The node topology slurmd saves for every step: written whole, read back
// as this machine, and refused (so the step discovers) when it cannot be
// trusted or does not describe the CPUs online now.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>

#include "topology/cpulist.hh"
#include "topology/node_topology.hh"
#include "slurm_pin_frontend.h"
#include "test_support.hh"

using namespace slurmpin;
using namespace slurmpin::test;

namespace {

struct TopologyFree {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyFree>;

class NodeTopology : public slurmpin::test::RootDirTest {
 protected:
  NodeTopology() : RootDirTest("node-topology") {}
  void SetUp() override {
    RootDirTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    path = dir + "/cache/topology.xml";  // the last directory is made by save
  }
  Topology load(bool io, std::string& why) { return Topology(load_node_topology(path, io, why)); }
  std::string path;
};

std::vector<unsigned> online() {
  std::ifstream f("/sys/devices/system/cpu/online");
  std::string text;
  std::getline(f, text);
  return parse_cpulist(text, "online CPUs");
}

}  // namespace

TEST_F(NodeTopology, SavedWholeAndReadBackAsThisMachine) {
  save_node_topology(path);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(stat((path + ".new." + std::to_string(getpid())).c_str(), &st), -1);  // nothing left behind
  std::string why;
  Topology t = load(false, why);
  ASSERT_TRUE(t) << why;
  TopologySpec spec;
  spec.cache = path;
  EXPECT_EQ(load_topology(spec)->all_pus.ids(), online());
  // Saving again replaces it in one step.
  save_node_topology(path);
  EXPECT_TRUE(load(true, why)) << why;
}

TEST_F(NodeTopology, RefusedWhenOthersCouldHaveWrittenIt) {
  save_node_topology(path);
  std::string why;
  ASSERT_EQ(chmod(path.c_str(), 0664), 0);
  EXPECT_FALSE(load(false, why));
  EXPECT_NE(why.find("writable by group or others"), std::string::npos) << why;
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  ASSERT_EQ(chown(path.c_str(), 65534, 65534), 0);
  EXPECT_FALSE(load(false, why));
  EXPECT_NE(why.find("not owned by root"), std::string::npos) << why;
  ASSERT_EQ(chown(path.c_str(), 0, 0), 0);
  // A link is not followed, even to a good file.
  std::string link = dir + "/link.xml";
  ASSERT_EQ(symlink(path.c_str(), link.c_str()), 0);
  EXPECT_EQ(load_node_topology(link, false, why), nullptr);
}

TEST_F(NodeTopology, RefusedWhenItDescribesOtherCpusOrNothingReadable) {
  save_node_topology(path);
  std::string why;
  // Root's, but another machine's: 16 CPUs where this one has others.
  ASSERT_EQ(std::system(("cp " + topo("nehalem.xml") + " " + path).c_str()), 0);
  if (online() != std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}) {
    EXPECT_FALSE(load(false, why));
    EXPECT_NE(why.find("does not describe the CPUs online now"), std::string::npos) << why;
  }
  std::ofstream(path) << "<topology>half";
  EXPECT_FALSE(load(false, why));
  EXPECT_NE(why.find("not a topology hwloc can read"), std::string::npos) << why;
  unlink(path.c_str());
  EXPECT_FALSE(load(false, why));
  // Without a usable cache, "this" is discovered: the same CPUs.
  TopologySpec spec;
  spec.cache = path;
  EXPECT_EQ(load_topology(spec)->all_pus.ids(), online());
}

TEST_F(NodeTopology, NeverUsedWhenHwlocVariablesChooseTheTopology) {
  save_node_topology(path);
  setenv("HWLOC_XMLFILE", topo("nehalem.xml").c_str(), 1);
  std::string why;
  EXPECT_FALSE(load(false, why));
  EXPECT_NE(why.find("HWLOC_"), std::string::npos);
  char err[256] = "";
  EXPECT_EQ(sp_save_topology((dir + "/other.xml").c_str(), err, sizeof err), 0);  // nothing written, no failure
  struct stat st;
  EXPECT_EQ(stat((dir + "/other.xml").c_str(), &st), -1);
  unsetenv("HWLOC_XMLFILE");
  EXPECT_EQ(sp_save_topology((dir + "/other.xml").c_str(), err, sizeof err), 0) << err;
  EXPECT_NE(sp_save_topology("", err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("not a file path"), std::string::npos) << err;
}

// What is saved is what steps see: a cache holding this node's CPUs as
// one core of N hardware threads makes core 0 all of them, where the
// discovered machine (one PU per core here, or SMT pairs) would not.
TEST_F(NodeTopology, TheCApiUsesItForThisMachine) {
  std::vector<unsigned> cpus = online();
  if (cpus.back() + 1 != cpus.size() || cpus.size() < 2) GTEST_SKIP() << "needs CPUs 0-N online";
  save_node_topology(path);  // makes the directory
  hwloc_topology_t raw;
  ASSERT_EQ(hwloc_topology_init(&raw), 0);
  Topology t(raw);
  std::string one_core = "pack:1 core:1 pu:" + std::to_string(cpus.size());
  ASSERT_EQ(hwloc_topology_set_synthetic(raw, one_core.c_str()), 0);
  ASSERT_EQ(hwloc_topology_load(raw), 0);
  ASSERT_EQ(hwloc_topology_export_xml(raw, path.c_str(), 0), 0);
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);

  sp_placement_t* p = sp_init();
  ASSERT_EQ(sp_set_topology(p, "this"), 0);
  char pus[256];
  ASSERT_GE(sp_cores_to_pus(p, "0", pus, sizeof pus), 0) << sp_error(p);
  sp_finalize(p);
  if (parse_cpulist(pus, "PUs") == cpus) GTEST_SKIP() << "this machine is one core already";

  p = sp_init();
  ASSERT_EQ(sp_set_topology(p, "this"), 0);
  ASSERT_EQ(sp_set_topology_cache(p, path.c_str()), 0);
  ASSERT_GE(sp_cores_to_pus(p, "0", pus, sizeof pus), 0) << sp_error(p);
  EXPECT_EQ(parse_cpulist(pus, "PUs"), cpus);
  sp_finalize(p);
}
