// SPDX-License-Identifier: GPL-2.0-or-later
// The C API as the plugin uses it: init, inputs, compute, outputs, finalize.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api_text.hh"
#include "slurm_pin_frontend.h"
#include "test_support.hh"

namespace {

// `text` in a file of the test's temporary directory; its path.
std::string temp_file(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// A handle placing with lpgp on two cores.
sp_placement_t* lpgp_on_two_cores() {
  sp_placement_t* p = sp_init();
  EXPECT_EQ(sp_set_topology(p, "pack:1 core:2 pu:1"), 0);
  EXPECT_EQ(sp_set_strategy(p, "lpgp"), 0);
  return p;
}

// Dense n x n rows as the public edge list: every entry i != j.
int set_rows(sp_placement_t* p, const double* rows, int n) {
  std::vector<int> from, to;
  std::vector<double> w;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) from.push_back(i), to.push_back(j), w.push_back(rows[i * n + j]);
  return sp_set_edges(p, n, w.size(), from.data(), to.data(), w.data());
}

}  // namespace

TEST(CApi, ComputesAndReportsAPlacement) {
  sp_placement_t* p = sp_init();
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(sp_set_topology(p, slurmpin::test::topo("core2.xml").c_str()), 0);
  ASSERT_EQ(sp_set_restrict(p, "0-3,6-7"), 0);
  ASSERT_EQ(sp_set_strategy(p, "lpgp"), 0);
  double m[16] = {0, 1, 9, 1, 1, 0, 1, 9, 9, 1, 0, 1, 1, 9, 1, 0};
  ASSERT_EQ(set_rows(p, m, 4), 0);
  ASSERT_EQ(sp_set_tasks(p, 1), 0);
  ASSERT_EQ(sp_compute(p), 0) << sp_error(p);
  EXPECT_EQ(sp_get_ntasks(p), 1);
  EXPECT_EQ(sp_get_nthreads(p), 4);
  EXPECT_EQ(cpu_list(sp_get_task_cpuset(p, 0)), "0-3,6-7");
  // Pairs (0,2) and (1,3) each share one L2.
  int pu[4];
  for (int t = 0; t < 4; ++t) pu[t] = sp_get_thread_pu(p, 0, t);
  EXPECT_EQ(pu[0] / 2, pu[2] / 2);
  EXPECT_EQ(pu[1] / 2, pu[3] / 2);
  EXPECT_STREQ(sp_get_fingerprint(p), "NUMANode:1 Package:2 L2:4 Core:8 PU:8");
  // w = a + a^T: pairs weigh 18 each, the four other pairs 2: 36 of 44 kept in L2s.
  double l2 = -1;
  for (int l = 0; l < sp_get_nlevels(p); ++l)
    if (std::string(sp_get_level_name(p, l)) == "L2") l2 = sp_get_level_score(p, l);
  EXPECT_DOUBLE_EQ(l2, 36.0 / 44);
  EXPECT_EQ(sp_get_thread_pu(p, 0, 4), -1);
  sp_finalize(p);
}

TEST(CApi, EdgeListsPlaceLikeTheDenseMatrix) {
  // The matrix of ComputesAndReportsAPlacement as an edge list: pairs (0,2)
  // and (1,3) weigh 9 one way; entries of one pair add up in both directions.
  const int from[] = {0, 2, 1, 0, 1, 2, 3};
  const int to[] = {2, 0, 3, 1, 2, 3, 0};
  const double w[] = {9, 9, 18, 2, 2, 2, 2};
  sp_placement_t* p = sp_init();
  ASSERT_EQ(sp_set_topology(p, slurmpin::test::topo("core2.xml").c_str()), 0);
  ASSERT_EQ(sp_set_restrict(p, "0-3,6-7"), 0);
  ASSERT_EQ(sp_set_strategy(p, "lpgp"), 0);
  ASSERT_EQ(sp_set_edges(p, 4, 7, from, to, w), 0) << sp_error(p);
  ASSERT_EQ(sp_compute(p), 0) << sp_error(p);
  EXPECT_EQ(sp_get_nthreads(p), 4);
  EXPECT_EQ(sp_get_thread_pu(p, 0, 0) / 2, sp_get_thread_pu(p, 0, 2) / 2);
  EXPECT_EQ(sp_get_thread_pu(p, 0, 1) / 2, sp_get_thread_pu(p, 0, 3) / 2);
  for (int l = 0; l < sp_get_nlevels(p); ++l)
    if (std::string(sp_get_level_name(p, l)) == "L2") {
      EXPECT_DOUBLE_EQ(sp_get_level_score(p, l), 36.0 / 44);
    }

  const int bad[] = {4};
  const double neg[] = {-1};
  EXPECT_EQ(sp_set_edges(p, 4, 1, bad, to, w), -1);
  EXPECT_NE(std::string(sp_error(p)).find("outside 0..3"), std::string::npos) << sp_error(p);
  EXPECT_EQ(sp_set_edges(p, 4, 1, from, to, neg), -1);
  EXPECT_EQ(sp_set_edges(p, 0, 0, nullptr, nullptr, nullptr), -1);
  EXPECT_EQ(sp_set_edges(p, 4, 1, nullptr, to, w), -1);
  sp_finalize(p);
}

namespace {

// lpgp with the n x n matrix m, compact without one.
sp_placement_t* placed(const double* m, int n, const char* topology) {
  sp_placement_t* p = sp_init();
  EXPECT_EQ(sp_set_topology(p, topology), 0);
  EXPECT_EQ(sp_set_strategy(p, m ? "lpgp" : "compact"), 0);
  if (m) {
    EXPECT_EQ(set_rows(p, m, n), 0);
  }
  EXPECT_EQ(sp_set_threads(p, n), 0);
  EXPECT_EQ(sp_compute(p), 0) << sp_error(p);
  return p;
}

}  // namespace

TEST(CApi, APlacementIsJudgedByAnotherPlacementsMatrix) {
  // a pairs (0,2) and (1,3), b pairs (0,1) and (2,3): each placement keeps
  // its own pairs in a package, and fewer of the other's.
  const double a[16] = {0, 1, 9, 1, 1, 0, 1, 9, 9, 1, 0, 1, 1, 9, 1, 0};
  const double b[16] = {0, 9, 1, 1, 9, 0, 1, 1, 1, 1, 0, 9, 1, 1, 9, 0};
  const char* machine = "pack:2 core:2 pu:1";
  sp_placement_t *pa = placed(a, 4, machine), *pb = placed(b, 4, machine);
  double aa = -1, ab = -1, levels = 0, kept = 0;
  ASSERT_EQ(sp_get_kept_sharing(pa, pa, &aa), 0);
  ASSERT_EQ(sp_get_kept_sharing(pb, pa, &ab), 0);
  // Judged by its own matrix: the levels' sharing, summed.
  for (int l = 0; l < sp_get_nlevels(pa); ++l) {
    ASSERT_EQ(sp_get_level_sharing(pa, l, &kept, nullptr), 0);
    levels += kept;
  }
  EXPECT_DOUBLE_EQ(aa, levels);
  EXPECT_GT(aa, ab);
  double bb = -1, ba = -1;
  ASSERT_EQ(sp_get_kept_sharing(pb, pb, &bb), 0);
  ASSERT_EQ(sp_get_kept_sharing(pa, pb, &ba), 0);
  EXPECT_GT(bb, ba);

  // Not comparable: no matrix to judge by, another thread count, another machine.
  sp_placement_t *none = placed(nullptr, 4, machine), *three = placed(a, 3, machine),
                 *other = placed(a, 4, "pack:4 core:1 pu:1");
  EXPECT_EQ(sp_get_kept_sharing(pa, none, &kept), -1);
  EXPECT_EQ(sp_get_kept_sharing(none, pa, &kept), 0);
  EXPECT_EQ(sp_get_kept_sharing(three, pa, &kept), -1);
  EXPECT_EQ(sp_get_kept_sharing(other, pa, &kept), -1);
  EXPECT_EQ(sp_get_kept_sharing(pa, nullptr, &kept), -1);
  for (sp_placement_t* p : {pa, pb, none, three, other}) sp_finalize(p);
}

TEST(CApi, TheTopologysFingerprintNeedsNoPlacement) {
  sp_placement_t* p = sp_init();
  ASSERT_EQ(sp_set_topology(p, slurmpin::test::topo("core2.xml").c_str()), 0);
  char buf[128];
  int n = sp_topology_fingerprint(p, buf, sizeof buf);
  EXPECT_EQ(n, static_cast<int>(std::string(buf).size()));
  EXPECT_STREQ(buf, "NUMANode:1 Package:2 L2:4 Core:8 PU:8");
  // The length needed, whatever the buffer.
  EXPECT_EQ(sp_topology_fingerprint(p, buf, 4), n);
  EXPECT_STREQ(buf, "NUM");
  // A topology that cannot load: -1 and the reason.
  ASSERT_EQ(sp_set_topology(p, "pack:0 pu:0"), 0);
  EXPECT_EQ(sp_topology_fingerprint(p, buf, sizeof buf), -1);
  EXPECT_STRNE(sp_error(p), "");
  sp_finalize(p);
}

TEST(CApi, PlacesOnTheCallersOwnHwlocTopology) {
  // The same machine from the file and as a topology the caller loaded.
  std::string xml = slurmpin::test::topo("core2.xml");
  hwloc_topology_t mine;
  ASSERT_EQ(hwloc_topology_init(&mine), 0);
  ASSERT_EQ(hwloc_topology_set_xml(mine, xml.c_str()), 0);
  ASSERT_EQ(hwloc_topology_load(mine), 0);
  int pus_before = hwloc_bitmap_weight(hwloc_topology_get_topology_cpuset(mine));
  const double m[16] = {0, 1, 9, 1, 1, 0, 1, 9, 9, 1, 0, 1, 1, 9, 1, 0};
  sp_placement_t *from_file = sp_init(), *given = sp_init();
  for (sp_placement_t* p : {from_file, given}) {
    ASSERT_EQ(sp_set_restrict(p, "0-3,6-7"), 0);
    ASSERT_EQ(sp_set_strategy(p, "lpgp"), 0);
    ASSERT_EQ(set_rows(p, m, 4), 0);
  }
  ASSERT_EQ(sp_set_topology(from_file, xml.c_str()), 0);
  ASSERT_EQ(sp_set_hwloc_topology(given, mine), 0);
  ASSERT_EQ(sp_compute(from_file), 0) << sp_error(from_file);
  ASSERT_EQ(sp_compute(given), 0) << sp_error(given);
  for (int t = 0; t < 4; ++t) EXPECT_EQ(sp_get_thread_pu(given, 0, t), sp_get_thread_pu(from_file, 0, t));
  EXPECT_STREQ(sp_get_fingerprint(given), sp_get_fingerprint(from_file));
  char buf[64];
  ASSERT_GT(sp_topology_pus(given, buf, sizeof buf), 0);
  EXPECT_STREQ(buf, "0-7");
  // The restriction was applied to a copy: the caller's topology is whole.
  EXPECT_EQ(hwloc_bitmap_weight(hwloc_topology_get_topology_cpuset(mine)), pus_before);

  // A topology that was never loaded is one error; NULL goes back to this machine.
  hwloc_topology_t unloaded;
  ASSERT_EQ(hwloc_topology_init(&unloaded), 0);
  ASSERT_EQ(sp_set_hwloc_topology(given, unloaded), 0);
  EXPECT_EQ(sp_compute(given), -1);
  EXPECT_NE(std::string(sp_error(given)).find("hwloc_topology_load"), std::string::npos) << sp_error(given);
  ASSERT_EQ(sp_set_hwloc_topology(given, nullptr), 0);
  sp_placement_t* here = sp_init();
  char here_pus[4096];
  ASSERT_GT(sp_topology_pus(here, here_pus, sizeof here_pus), 0);
  ASSERT_GT(sp_topology_pus(given, buf, sizeof buf), 0) << sp_error(given);
  EXPECT_STREQ(buf, here_pus);
  sp_finalize(here);
  hwloc_topology_destroy(unloaded);
  hwloc_topology_destroy(mine);
  sp_finalize(from_file);
  sp_finalize(given);
}

TEST(CApi, ErrorsAreOneLineMessages) {
  sp_placement_t* p = sp_init();
  EXPECT_EQ(sp_set_strategy(p, "packed"), -1);
  EXPECT_NE(std::string(sp_error(p)).find("unknown strategy 'packed'"), std::string::npos);
  EXPECT_EQ(sp_set_granularity(p, "socket"), -1);
  EXPECT_EQ(sp_set_restrict(p, "1-"), -1);
  ASSERT_EQ(sp_set_topology(p, "pack:1 core:2 pu:1"), 0);
  ASSERT_EQ(sp_set_strategy(p, "compact"), 0);
  ASSERT_EQ(sp_set_threads(p, 3), 0);
  EXPECT_EQ(sp_compute(p), -1);
  EXPECT_EQ(std::string(sp_error(p)),
            "3 threads per task but each task has only 2 cores: use fewer threads, more CPUs per task, "
            "granularity pu, or allow oversubscription");
  EXPECT_EQ(sp_get_ntasks(p), -1);
  sp_finalize(p);
}

// The job's GPUs: vendor variables by name, the node's indices, both
// bounded by what one node can hold.
TEST(CApi, GpuListsAreBounded) {
  sp_placement_t* p = sp_init();
  std::string huge(4097, '1');
  EXPECT_EQ(sp_set_job_gpu_variable(p, "CUDA_VISIBLE_DEVICES", "0,1"), 0);
  EXPECT_EQ(sp_set_job_gpu_variable(p, "CUDA_VISIBLE_DEVICES", huge.c_str()), -1);
  EXPECT_EQ(std::string(sp_error(p)), "CUDA_VISIBLE_DEVICES is longer than 4096 characters");
  EXPECT_EQ(sp_set_job_gpu_variable(p, "SLURM_STEP_GPUS", "0"), -1);  // the front end's, through sp_set_job_gpus
  EXPECT_EQ(std::string(sp_error(p)), "not a GPU variable: SLURM_STEP_GPUS");
  EXPECT_EQ(sp_set_job_gpus(p, "7,2"), 0);
  EXPECT_EQ(sp_set_job_gpus(p, nullptr), 0);
  EXPECT_EQ(sp_set_job_gpus(p, huge.c_str()), -1);
  EXPECT_EQ(std::string(sp_error(p)), "the list of the job's GPUs is longer than 4096 characters");
  sp_finalize(p);
}

TEST(CApi, OneRuleForProfileNames) {
  // The same cases the Lua policy's tests read: the two cannot drift apart.
  std::ifstream in(slurmpin::test::fixture("profile_names.txt"));
  std::string want, name;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    words >> want >> name;
    EXPECT_EQ(sp_is_profile_name(name.c_str()), want == "yes" ? 1 : 0) << name;
    ++n;
  }
  EXPECT_GT(n, 10);
  EXPECT_EQ(sp_is_profile_name(""), 0);
  EXPECT_EQ(sp_is_profile_name(nullptr), 0);
}

TEST(CApi, OneListOfStrategies) {
  // The list the plugin's help, the CLI and the Lua policy are built from.
  std::string names;
  auto name = [](int i) { return api_text([&](char* b, size_t l) { return sp_strategy_name(i, b, l); }); };
  for (int i = 0; i < sp_strategy_count(); ++i) names += std::string(i ? "|" : "") + name(i);
  EXPECT_EQ(names, "none|compact|scatter|random|lp-compact|lp-scatter|gp|lpgp|gplp|file:PATH");
  EXPECT_EQ(sp_strategy_name(sp_strategy_count(), nullptr, 0), -1);
  char shortbuf[4];  // cut to fit, the length needed returned
  EXPECT_EQ(sp_strategy_name(1, shortbuf, sizeof shortbuf), 7);
  EXPECT_STREQ(shortbuf, "com");
  EXPECT_EQ(sp_strategy_needs_profile("lpgp"), 1);
  EXPECT_EQ(sp_strategy_needs_profile("scatter"), 0);
  EXPECT_EQ(sp_strategy_needs_profile("file:/x"), 0);
  EXPECT_EQ(sp_strategy_needs_profile("packed"), 0);  // no strategy: sp_check_strategy says why
  EXPECT_EQ(sp_strategy_needs_profile(nullptr), 0);
  // Every strategy the list names is accepted by the checker.
  char err[256];
  for (int i = 0; i < sp_strategy_count(); ++i) {
    std::string n = name(i);
    if (n == "file:PATH") n = "file:/some/placement";
    EXPECT_EQ(sp_check_strategy(n.c_str(), err, sizeof err), 0) << n;
  }
}

TEST(CApi, ABudgetBoundsFilesAndTimeAndMessagesArePrintable) {
  sp_placement_t* p = sp_init();
  ASSERT_EQ(sp_set_budget(p, 1024, 1), 0);
  EXPECT_EQ(sp_set_budget(p, 0, -1), -1);
  // A file past the budget is refused by its size before it is read.
  std::string padding;
  for (int i = 0; i < 200; ++i) padding += "# padding line to pass the budget\n";
  std::string path = temp_file("budget.placement", "slurm-pin-placement 1\ntask 0: 0\n" + padding);
  ASSERT_EQ(sp_set_topology(p, "pack:1 core:2 pu:1"), 0);
  ASSERT_EQ(sp_set_strategy(p, ("file:" + path).c_str()), 0);
  EXPECT_EQ(sp_compute(p), -1);
  EXPECT_NE(std::string(sp_error(p)).find("larger than 1 KiB"), std::string::npos) << sp_error(p);
  // Messages quoting a file's text never carry its control bytes.
  temp_file("budget.placement", "slurm-pin-placement 1\n\x1b[2Jtask 0: 0\n");
  ASSERT_EQ(sp_set_budget(p, 0, 0), 0);
  EXPECT_EQ(sp_compute(p), -1);
  std::string why = sp_error(p);
  EXPECT_EQ(why.find('\x1b'), std::string::npos) << why;
  EXPECT_NE(why.find("\\x1b"), std::string::npos) << why;
  sp_finalize(p);
}

TEST(CApi, AProfileTheStepCannotRunIsRefusedAtItsThreadsLine) {
  std::string path = temp_file("big.profile", "slurm-pin-profile 1\nthreads 4096\nmatrix simple\nthis is never read\n");
  sp_placement_t* p = lpgp_on_two_cores();
  ASSERT_EQ(sp_set_profile(p, path.c_str(), "", "simple", nullptr), 0);
  EXPECT_EQ(sp_compute(p), -1);
  EXPECT_NE(std::string(sp_error(p)).find("a profile of 4096 threads, but at most 2 can run here"), std::string::npos)
      << sp_error(p);
  sp_finalize(p);
}

TEST(CApi, AProfilesRegionsAreParsedOnlyWhenPlaced) {
  // A region's matrix is most of a profile of many regions: loaded for the
  // whole run it is not read (so not even a broken one stops the load);
  // with phases it is, and its fault is named.
  std::string path = temp_file("regions.profile",
                               "slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 10\n10 0\n"
                               "region r1\nmatrix simple\n0 x\nx 0\n");
  sp_placement_t* p = lpgp_on_two_cores();
  ASSERT_EQ(sp_set_profile(p, path.c_str(), nullptr, "simple", nullptr), 0);
  EXPECT_EQ(sp_compute(p), 0) << sp_error(p);
  ASSERT_EQ(sp_set_phases(p, 1, 0), 0);
  EXPECT_EQ(sp_compute(p), -1);
  EXPECT_NE(std::string(sp_error(p)).find("'x' is not a number"), std::string::npos) << sp_error(p);
  // Rows of the right count are read where their region is placed: a bad
  // value is named with the same words and line.
  std::string later = temp_file("regions-later.profile",
                                "slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 10\n10 0\n"
                                "region r1\nmatrix simple\n0 1\n1 0\nregion r2\nmatrix simple\n0 x\n1 0\n");
  ASSERT_EQ(sp_set_profile(p, later.c_str(), nullptr, "simple", nullptr), 0);
  EXPECT_EQ(sp_compute(p), -1);
  EXPECT_NE(std::string(sp_error(p)).find(":12: 'x' is not a number"), std::string::npos) << sp_error(p);
  sp_finalize(p);
}

// What a launcher beyond Slurm uses of the public API (slurm_pin.h): each
// task's GPUs, tasks placed by their traffic, threads bound by the thread
// library it finds beside the engine.
TEST(CApi, EachTaskNamesItsNearestGpus) {
  sp_placement_t* p = sp_init();
  ASSERT_EQ(sp_set_topology(p, slurmpin::test::topo("gpu-dgx1.xml").c_str()), 0);
  ASSERT_EQ(sp_set_tasks(p, 8), 0);
  ASSERT_EQ(sp_set_gpu_locality(p, "closest"), 0);
  ASSERT_EQ(sp_compute(p), 0) << sp_error(p);
  EXPECT_STREQ(sp_error(p), "");  // a success clears the message
  char buf[64];
  for (int t = 0; t < 8; ++t) {
    ASSERT_GT(sp_get_task_gpus(p, t, buf, sizeof buf), 0);
    EXPECT_EQ(std::string(buf), std::to_string(t)) << "task " << t;
    EXPECT_EQ(hwloc_bitmap_first(sp_get_task_cpuset(p, t)) % 40 < 20, t < 4) << "task " << t << " on its GPU's socket";
  }
  EXPECT_EQ(sp_get_task_gpus(p, 8, buf, sizeof buf), -1);
  EXPECT_STREQ(sp_error(p), "no task 8: the placement has 8 (0 to 7)");
  sp_finalize(p);
}

TEST(CApi, TasksArePlacedByTheirTraffic) {
  // Two L2s of two cores: tasks 0 and 2 exchange most, and 1 and 3.
  sp_placement_t* p = sp_init();
  ASSERT_EQ(sp_set_topology(p, "pack:1 l2:2 core:2 pu:1"), 0);
  ASSERT_EQ(sp_set_tasks(p, 4), 0);
  ASSERT_EQ(sp_set_strategy(p, "compact"), 0);
  double m[16] = {0, 1, 9, 1, 1, 0, 1, 9, 9, 1, 0, 1, 1, 9, 1, 0};
  ASSERT_EQ(sp_set_task_matrix(p, m, 4), 0);
  ASSERT_EQ(sp_compute(p), 0) << sp_error(p);
  auto l2_of = [&](int t) { return hwloc_bitmap_first(sp_get_task_cpuset(p, t)) / 2; };
  EXPECT_EQ(l2_of(0), l2_of(2));
  EXPECT_EQ(l2_of(1), l2_of(3));
  EXPECT_NE(l2_of(0), l2_of(1));
  EXPECT_EQ(sp_set_task_matrix(p, m, 3), 0);  // checked where the task count is known
  EXPECT_EQ(sp_compute(p), -1);
  EXPECT_NE(std::string(sp_error(p)).find("3"), std::string::npos) << sp_error(p);
  int ranks[2] = {2, 3};
  EXPECT_EQ(sp_set_task_ranks(p, ranks, 2, 4), 0);
  sp_finalize(p);
}

TEST(CApi, ThreadsAreBoundByTheThreadLibraryFoundBesideTheEngine) {
  sp_placement_t* p = sp_init();
  ASSERT_EQ(sp_set_topology(p, "pack:1 core:2 pu:1"), 0);
  ASSERT_EQ(sp_set_thread_mode(p, "preload"), 0);
  ASSERT_EQ(sp_set_thread_library(p, nullptr), 0) << sp_error(p);  // this build's lib/
  ASSERT_EQ(sp_compute(p), 0) << sp_error(p);
  std::string preload;
  char name[64], value[4096];
  for (int i = 0; i < sp_get_env_count(p); ++i) {
    sp_get_env_name(p, i, name, sizeof name);
    if (std::string(name) == "LD_PRELOAD" && sp_get_env_value(p, 0, i, nullptr, value, sizeof value) >= 0)
      preload = value;
  }
  EXPECT_NE(preload.find("libslurm_pin_threads.so"), std::string::npos) << preload;
  // A mode but env with no library: one line saying so.
  ASSERT_EQ(sp_set_thread_library(p, ""), 0);
  EXPECT_EQ(sp_compute(p), -1);
  EXPECT_NE(std::string(sp_error(p)).find("libslurm_pin_threads.so"), std::string::npos) << sp_error(p);
  sp_finalize(p);
}
