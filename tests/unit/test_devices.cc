// SPDX-License-Identifier: GPL-2.0-or-later
// Device locality on GPU-node fixtures (tests/fixtures/topologies/
// make_gpu_nodes.py): which GPUs a job may use, which each task gets, the
// CPUs taken near them, and the task environment.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "topology/devices.hh"
#include "engine.hh"
#include "error.hh"
#include "binding/task_binding.hh"
#include "test_support.hh"

using namespace slurmpin;
using namespace slurmpin::test;

namespace {

std::vector<unsigned> range(unsigned from, unsigned to) {  // [from, to]
  std::vector<unsigned> v;
  for (unsigned i = from; i <= to; ++i) v.push_back(i);
  return v;
}

std::vector<unsigned> both(std::vector<unsigned> a, const std::vector<unsigned>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  return a;
}

NodeDevices devices_of(const std::string& xml) {
  TopologySpec spec;
  spec.source = xml;
  spec.devices = true;
  return node_devices(load_topology(spec)->devices);
}

Result gpu_place(const std::string& xml, int tasks, std::map<std::string, std::string> env = {},
                 std::vector<unsigned> allowed = {}, std::string indices = "") {
  Request r = request(topo(xml), Strategy::kCompact, 0);
  r.tasks = tasks;
  r.gpu_closest = true;
  r.gpu_env = std::move(env);
  r.gpu_indices = std::move(indices);
  r.topology.allowed = CpuSet::of(allowed);
  return compute_placement(r);
}

}  // namespace

TEST(Devices, FindsGpusAndNicsWithTheirCpus) {
  NodeDevices dgx = devices_of(topo("gpu-dgx1.xml"));
  ASSERT_EQ(dgx.gpus.size(), 8u);
  ASSERT_EQ(dgx.nics.size(), 4u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(dgx.gpus[i].index, i);
    EXPECT_EQ(dgx.gpus[i].name, "cuda" + std::to_string(i));
    EXPECT_EQ(dgx.gpus[i].variable, "CUDA_VISIBLE_DEVICES");
  }
  // Socket 0 is cores 0-19 and their second threads 40-59.
  EXPECT_EQ(dgx.gpus[0].near.ids(), both(range(0, 19), range(40, 59)));
  EXPECT_EQ(dgx.gpus[7].near.ids(), both(range(20, 39), range(60, 79)));
  NodeDevices amd = devices_of(topo("gpu-nps4.xml"));
  ASSERT_EQ(amd.gpus.size(), 8u);
  EXPECT_EQ(amd.gpus[3].variable, "ROCR_VISIBLE_DEVICES");
  EXPECT_EQ(amd.gpus[3].near.ids(), range(24, 31));  // one NUMA node each
  // A machine without GPUs (this test VM's virtio devices are none).
  EXPECT_TRUE(devices_of(topo("this-vm.xml")).gpus.empty());
}

TEST(Devices, VisibleGpusFollowTheJobsVariables) {
  NodeDevices dgx = devices_of(topo("gpu-dgx1.xml"));
  EXPECT_EQ(visible_gpus(dgx, {}, "").size(), 8u);  // nothing set: the whole node
  auto v = visible_gpus(dgx, {{"CUDA_VISIBLE_DEVICES", "5,2"}}, "");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].token, "5");
  EXPECT_EQ(v[0].gpu.name, "cuda5");
  // Devices constrained: the job sees 0,1; the node's indices (Slurm's
  // SLURM_STEP_GPUS) say which.
  v = visible_gpus(dgx, {{"CUDA_VISIBLE_DEVICES", "0,1"}}, "6,7");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].token, "1");
  EXPECT_EQ(v[1].gpu.name, "cuda7");
  EXPECT_TRUE(visible_gpus(dgx, {{"CUDA_VISIBLE_DEVICES", ""}}, "").empty());
  // Only the indices: the job names the GPUs by them.
  v = visible_gpus(dgx, {}, "3");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].gpu.name, "cuda3");  // no GPU for this job
  for (const char* bad : {"9", "GPU-8a1b2c3d", "1,,2", "-1"}) {
    try {
      visible_gpus(dgx, {{"CUDA_VISIBLE_DEVICES", bad}}, "");
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA_VISIBLE_DEVICES names GPU"), std::string::npos) << e.what();
    }
  }
}

TEST(Devices, EachTaskGetsItsNearestGpusAndCpusNearThem) {
  // 8 tasks, 8 GPUs: task t on GPU t, its 5 cores on the GPU's socket.
  Result r = gpu_place("gpu-dgx1.xml", 8);
  ASSERT_EQ(r.gpu_variable, "CUDA_VISIBLE_DEVICES");
  for (int t = 0; t < 8; ++t) {
    EXPECT_EQ(r.tasks[t].gpus, (std::vector<std::string>{std::to_string(t)}));
    unsigned socket_first = t < 4 ? 0 : 20;
    for (unsigned c : r.tasks[t].share.ids()) EXPECT_TRUE(c % 40 >= socket_first && c % 40 < socket_first + 20) << c;
  }
  // Visible GPUs 4 and 0 (socket 1, socket 0), the step's cores 0-1 and
  // 20-21: the task with GPU 0 runs on socket 0, the other on socket 1.
  std::vector<unsigned> step = both(both(range(0, 1), range(20, 21)), both(range(40, 41), range(60, 61)));
  r = gpu_place("gpu-dgx1.xml", 2, {{"CUDA_VISIBLE_DEVICES", "4,0"}}, step);
  EXPECT_EQ(r.tasks[0].gpus, (std::vector<std::string>{"0"}));
  EXPECT_EQ(r.tasks[0].share.ids(), (std::vector<unsigned>{0, 1, 40, 41}));
  EXPECT_EQ(r.tasks[1].gpus, (std::vector<std::string>{"4"}));
  EXPECT_EQ(r.tasks[1].share.ids(), (std::vector<unsigned>{20, 21, 60, 61}));
  // Both GPUs on socket 1, the step's cores on both sockets: one task sits
  // away from its GPU whichever it is; equally near, the tasks keep node
  // order (the first on socket 0), as without GPUs.
  r = gpu_place("gpu-dgx1.xml", 2, {{"CUDA_VISIBLE_DEVICES", "4,5"}}, step);
  EXPECT_EQ(r.tasks[0].share.ids(), (std::vector<unsigned>{0, 1, 40, 41}));
  EXPECT_EQ(r.tasks[1].share.ids(), (std::vector<unsigned>{20, 21, 60, 61}));
  // Four GPUs on NUMA nodes 1, 2, 5 and 7 of 8, eight tasks: two per GPU,
  // one on the GPU's node and one beside it, in node order (they once
  // swapped: first CPUs 6 0 12 18 30 24 42 36).
  r = gpu_place("gpu-nps4-four.xml", 8);
  std::string firsts;
  for (const auto& t : r.tasks) firsts += std::to_string(t.share.first()) + " ";
  EXPECT_EQ(firsts, "0 6 12 18 24 30 36 42 ");
  // Fewer tasks than GPUs: blocks of neighbours; more: tasks share one.
  r = gpu_place("gpu-nps4.xml", 4);
  EXPECT_EQ(r.tasks[1].gpus, (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(r.tasks[1].share.ids(), range(16, 31));
  r = gpu_place("gpu-nps4.xml", 16);
  EXPECT_EQ(r.tasks[3].gpus, (std::vector<std::string>{"1"}));
  EXPECT_EQ(r.tasks[3].share.ids(), range(12, 15));
  // The NIC: on the task's own socket, spread over the socket's NICs.
  r = gpu_place("gpu-dgx1.xml", 4);
  EXPECT_EQ(r.tasks[0].nic, "mlx5_0");
  EXPECT_EQ(r.tasks[1].nic, "mlx5_1");
  EXPECT_EQ(r.tasks[2].nic, "mlx5_2");
  r = gpu_place("gpu-nps4.xml", 4);
  EXPECT_EQ(r.tasks[3].nic, "mlx5_1");
}

TEST(Devices, WithGpusEveryCoreIsUsedAndTasksKeepNodeOrder) {
  // From 2 to 16 tasks on every GPU node (4 GPUs on NUMA nodes 1, 2, 5 and 7
  // of 8 too, where tied tasks once swapped): the step's every core in one
  // task, sizes within one core, tasks in node order (ranks sharing a GPU
  // too: the first of them on its first cores), each task near a GPU of
  // its own.
  for (const char* node : {"gpu-dgx1.xml", "gpu-nps4.xml", "gpu-nps4-four.xml"}) {
    for (int tasks = 2; tasks <= 16; ++tasks) {
      Result r = gpu_place(node, tasks);
      std::set<unsigned> used;
      size_t least = ~size_t{0}, most = 0;
      int previous_first = -1;
      for (int t = 0; t < tasks; ++t) {
        std::vector<unsigned> ids = r.tasks[t].share.ids();
        used.insert(ids.begin(), ids.end());
        least = std::min(least, ids.size()), most = std::max(most, ids.size());
        EXPECT_GT(static_cast<int>(ids[0]), previous_first) << node << ", " << tasks << " tasks, task " << t;
        previous_first = static_cast<int>(ids[0]);
        EXPECT_FALSE(r.tasks[t].gpus.empty()) << node << ", " << tasks << " tasks, task " << t;
      }
      EXPECT_EQ(used.size(), r.allowed->nodes[r.allowed->root].pus.size()) << node << ", " << tasks << " tasks";
      EXPECT_LE(most - least, 2u) << node << ", " << tasks << " tasks";  // dgx1: a core is two CPUs
    }
  }
  // 6 tasks on the NPS4 node (2 packages of 32 cores, a GPU per NUMA node):
  // 11, 11, 10 cores on each package, none across; the GPUs in blocks
  // along them. Before: 10 cores each, 4 left idle, a task on two NUMA
  // nodes of the wrong GPU.
  Result r = gpu_place("gpu-nps4.xml", 6);
  EXPECT_EQ(r.tasks[0].share.list(), "0-10");
  EXPECT_EQ(r.tasks[2].share.list(), "22-31");
  EXPECT_EQ(r.tasks[3].share.list(), "32-42");
  EXPECT_EQ(r.tasks[5].share.list(), "54-63");
  EXPECT_EQ(r.tasks[2].gpus, (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(r.tasks[5].gpus, (std::vector<std::string>{"6", "7"}));
}

TEST(Devices, TaskEnvironmentAndDescriptionNameTheGpus) {
  Result r = gpu_place("gpu-dgx1.xml", 2, {{"CUDA_VISIBLE_DEVICES", "0,1"}}, {}, "3,4");
  BindOptions o;
  o.strategy = "compact";
  auto env = task_environment(r, 1, o);
  auto find = [&](const std::string& name) {
    for (const auto& v : env)
      if (v.name == name) return v.value;
    return std::string("(unset)");
  };
  EXPECT_EQ(find("CUDA_VISIBLE_DEVICES"), "1");  // the job's own name for GPU 4
  EXPECT_EQ(find("SLURM_PIN_NIC"), "mlx5_2");
  EXPECT_NE(describe_task(r, 1, o).find(", gpu 1 (cuda4), nic mlx5_2"), std::string::npos) << describe_task(r, 1, o);
  // Without GPUs (or with gpu none) nothing is added.
  Request plain = request(topo("gpu-dgx1.xml"), Strategy::kCompact, 0);
  Result p = compute_placement(plain);
  for (const auto& v : task_environment(p, 0, o)) EXPECT_TRUE(v.name != "CUDA_VISIBLE_DEVICES" && v.name != "SLURM_PIN_NIC");
}
