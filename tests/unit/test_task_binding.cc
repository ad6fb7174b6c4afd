// SPDX-License-Identifier: GPL-2.0-or-later
// The binding core: a task's environment, its description, and binding the
// calling process (on the real CPUs of this machine).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <map>
#include <string>

#include "input/args.hh"
#include "error.hh"
#include "binding/process_binding.hh"
#include "slurm_binding_env.h"
#include "api_text.hh"
#include "slurm_pin_frontend.h"
#include "binding/task_binding.hh"
#include "test_support.hh"

using namespace slurmpin;

namespace {

// One task whose threads sit on {4}, {6,38}, {5,6}.
Result three_threads() {
  Result r;
  TaskPlace t;
  t.share = CpuSet::of(std::vector<unsigned>{4, 5, 6, 38});
  for (const std::vector<unsigned>& cpus : {std::vector<unsigned>{4}, {6, 38}, {5, 6}}) {
    ThreadPlace th;
    th.cpus = CpuSet::of(cpus);
    th.pu = static_cast<int>(cpus[0]);
    t.threads.push_back(th);
  }
  r.tasks.push_back(t);
  return r;
}

std::map<std::string, EnvVar> by_name(const std::vector<EnvVar>& env) {
  std::map<std::string, EnvVar> out;
  for (const auto& v : env) out[v.name] = v;
  return out;
}

std::string final_value(const EnvVar& v, const char* current) {
  std::string out;
  return env_final_value(v, current, &out) ? out : "(unset)";
}

}  // namespace

TEST(TaskBinding, OpenMpVariablesFollowThePlacement) {
  BindOptions o;
  o.strategy = "lpgp";
  o.legacy_omp_env = true;
  auto env = by_name(task_environment(three_threads(), 0, o));
  EXPECT_EQ(env["OMP_PLACES"].value, "{4},{6,38},{5,6}");
  EXPECT_EQ(env["OMP_PROC_BIND"].value, "close");
  EXPECT_EQ(env["GOMP_CPU_AFFINITY"].value, "4 6 5");
  EXPECT_EQ(env["KMP_AFFINITY"].value, "explicit,proclist=[4,{6,38},{5,6}]");
  EXPECT_EQ(env["SLURM_PIN_CPUS"].value, "4 6,38 5-6");
  EXPECT_EQ(env["SLURM_PIN_STRATEGY"].value, "lpgp");
  EXPECT_EQ(env["SLURM_PIN_THREAD_BINDING"].value, "env");
  EXPECT_EQ(env.count("LD_PRELOAD"), 0u);
  // The user's own OMP_NUM_THREADS stays; unset, it is the thread count.
  EXPECT_EQ(final_value(env["OMP_NUM_THREADS"], "2"), "2");
  EXPECT_EQ(final_value(env["OMP_NUM_THREADS"], nullptr), "3");
  // A site policy's decision is the front end's to export (it reads it
  // from where users cannot write): the engine knows of no policy.
  EXPECT_EQ(env.count("SLURM_PIN_POLICY_DECISION"), 0u);
}

TEST(TaskBinding, ThreadLibraryModesPreloadItOnceAndSilenceOpenMpBinding) {
  BindOptions o;
  o.threads = ThreadMode::kPreload;
  o.thread_library = "/lib/libslurm_pin_threads.so";
  auto env = by_name(task_environment(three_threads(), 0, o));
  EXPECT_EQ(env.count("OMP_PLACES"), 0u);
  EXPECT_EQ(env["KMP_AFFINITY"].value, "disabled");
  const EnvVar& pre = env["LD_PRELOAD"];
  EXPECT_EQ(final_value(pre, nullptr), "/lib/libslurm_pin_threads.so");
  EXPECT_EQ(final_value(pre, "libx.so"), "libx.so /lib/libslurm_pin_threads.so");
  EXPECT_EQ(final_value(pre, "libx.so /lib/libslurm_pin_threads.so"), "libx.so /lib/libslurm_pin_threads.so");
  EXPECT_EQ(final_value(pre, "/lib/libslurm_pin_threads.so.bak"),
            "/lib/libslurm_pin_threads.so.bak /lib/libslurm_pin_threads.so");
  o.thread_library.clear();
  EXPECT_THROW(task_environment(three_threads(), 0, o), Error);
}

TEST(TaskBinding, AutoGivesOpenMpItsPlacesAndPreloadsTheShimForTheOtherThreads) {
  BindOptions o;
  o.threads = ThreadMode::kAuto;
  o.thread_library = "/lib/libslurm_pin_threads.so";
  o.strategy = "compact";
  auto env = by_name(task_environment(three_threads(), 0, o));
  EXPECT_EQ(env["OMP_PLACES"].value, "{4},{6,38},{5,6}");
  EXPECT_EQ(env["OMP_PROC_BIND"].value, "close");
  EXPECT_EQ(env.count("KMP_AFFINITY"), 0u);  // libomp binds its threads by OMP_PLACES
  EXPECT_EQ(final_value(env["LD_PRELOAD"], nullptr), "/lib/libslurm_pin_threads.so");
  EXPECT_EQ(env["SLURM_PIN_THREAD_BINDING"].value, "auto");
  // The shim reads the places from the task file.
  EXPECT_NE(task_data(three_threads(), 0, o).find("places 4 6,38 5-6"), std::string::npos);
  EXPECT_NE(describe_task(three_threads(), 0, o).find(", threads by OMP_PLACES or in creation order (auto)"),
            std::string::npos);
  o.thread_library.clear();
  EXPECT_THROW(task_environment(three_threads(), 0, o), Error);
}

TEST(TaskBinding, DescriptionNamesStrategyThreadsCpusPlacesAndMemory) {
  BindOptions o;
  o.strategy = "lpgp";
  o.origin = "policy rule big";
  o.mem = MemPolicy::kLocal;
  EXPECT_EQ(describe_task(three_threads(), 0, o),
            "strategy lpgp (policy rule big), 3 threads on CPUs 4-6,38, places {4},{6,38},{5,6}, mem local");
  EXPECT_THROW(describe_task(three_threads(), 1, o), Error);
}

TEST(TaskBinding, OmpNumThreadsListsTakeTheFirstLevel) {
  EXPECT_EQ(parse_omp_num_threads("8"), 8);
  EXPECT_EQ(parse_omp_num_threads("2,2"), 2);
  EXPECT_EQ(parse_omp_num_threads("4, 2"), 4);
  EXPECT_EQ(parse_omp_num_threads(""), 0);
  for (const char* bad : {"x", "0", "8,", "8,,2", "-1", "99999999999", "8,0", " 8", "65537"})
    EXPECT_THROW(parse_omp_num_threads(bad), Error) << bad;
}

TEST(TaskBinding, ValuesAreCheckedByTheEngine) {
  EXPECT_THROW(parse_mem_policy("spread"), Error);
  EXPECT_THROW(parse_thread_mode("magic"), Error);
  char err[256];
  EXPECT_EQ(sp_check_mem_policy("interleave", err, sizeof err), 0);
  EXPECT_EQ(sp_check_granularity("socket", err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("use pu, core, l2, l3 or numa"), std::string::npos);
}

// Real binding on this machine's CPUs, restored afterwards.
TEST(TaskBinding, BindsTheProcessAndReadsItBack) {
  CpuSet mine = process_cpus();
  ASSERT_FALSE(mine.empty());
  sp_placement_t* p = sp_init();
  ASSERT_EQ(sp_set_strategy(p, "compact"), 0);
  ASSERT_EQ(sp_set_restrict_to_process(p, 1), 0);
  ASSERT_EQ(sp_set_threads(p, 1), 0);
  ASSERT_EQ(sp_compute(p), 0) << sp_error(p);
  hwloc_const_bitmap_t task = sp_get_task_cpuset(p, 0);
  ASSERT_NE(task, nullptr);
  EXPECT_TRUE(hwloc_bitmap_isincluded(sp_get_thread_cpuset(p, 0, 0), task));
  EXPECT_EQ(sp_get_thread_cpuset(p, 0, 1), nullptr);
  ASSERT_EQ(sp_bind_task(p, 0), 0) << sp_error(p);
  CpuSet bound = process_cpus();
  EXPECT_TRUE(bound == CpuSet(task)) << bound.list();
  sp_finalize(p);
  // A CPU this process may not use is an error, never silently dropped.
  EXPECT_THROW(bind_process(CpuSet::of(std::vector<unsigned>{static_cast<unsigned>(mine.last()) + 1})), Error);
  bind_process(mine);
  EXPECT_TRUE(process_cpus() == mine);
}

TEST(TaskBinding, RestrictedToTheProcessRefusesForeignCpus) {
  CpuSet mine = process_cpus();
  sp_placement_t* p = sp_init();
  std::string foreign = std::to_string(mine.last() + 1);
  ASSERT_EQ(sp_set_topology(p, "pack:1 core:64 pu:1"), 0);
  ASSERT_EQ(sp_set_restrict(p, foreign.c_str()), 0);
  ASSERT_EQ(sp_set_restrict_to_process(p, 1), 0);
  EXPECT_EQ(sp_compute(p), -1);
  EXPECT_NE(std::string(sp_error(p)).find("is among those this process may use"), std::string::npos);
  // Preload without a library is refused at compute time, not at exec.
  ASSERT_EQ(sp_set_restrict_to_process(p, 0), 0);
  ASSERT_EQ(sp_set_thread_mode(p, "preload"), 0);
  EXPECT_EQ(sp_compute(p), -1);
  EXPECT_NE(std::string(sp_error(p)).find("thread library"), std::string::npos);
  sp_finalize(p);
}

// Two tasks scattered over 4 cores of 2 PUs each, computed; NULL on failure.
sp_placement_t* scatter_two_tasks() {
  sp_placement_t* p = sp_init();
  if (sp_set_topology(p, "pack:1 core:4 pu:2") || sp_set_strategy(p, "scatter") || sp_set_tasks(p, 2) ||
      sp_compute(p)) {
    ADD_FAILURE() << sp_error(p);
    sp_finalize(p);
    return nullptr;
  }
  return p;
}

TEST(TaskBinding, CApiEnvironmentLoop) {
  sp_placement_t* p = scatter_two_tasks();
  ASSERT_NE(p, nullptr);
  std::map<std::string, std::string> env;
  for (int i = 0; i < sp_get_env_count(p); ++i) {
    std::string name = api_text([&](char* b, size_t l) { return sp_get_env_name(p, i, b, l); });
    // Task 0's value asked between task 1's length and its text: each call stands alone.
    int n = sp_get_env_value(p, 1, i, nullptr, nullptr, 0);
    api_text([&](char* b, size_t l) { return sp_get_env_value(p, 0, i, nullptr, b, l); });
    env[name] = n == SP_ENV_UNSET ? "(unset)"
                                  : api_text([&](char* b, size_t l) { return sp_get_env_value(p, 1, i, nullptr, b, l); });
    EXPECT_EQ(n == SP_ENV_UNSET ? n : static_cast<int>(env[name].size()), n) << name;
  }
  EXPECT_EQ(env["OMP_PLACES"], "{4,5},{6,7}");  // core granularity: both PUs
  EXPECT_EQ(env["OMP_NUM_THREADS"], "2");
  // The engine speaks no Slurm: SLURM_CPU_BIND* and the policy's decision
  // are the front ends' (common/slurm_binding_env.h).
  for (const auto& [name, value] : env)
    EXPECT_TRUE(name.rfind("SLURM_", 0) != 0 || name.rfind("SLURM_PIN_", 0) == 0) << name;
  EXPECT_EQ(env.count("SLURM_PIN_POLICY_DECISION"), 0u);
  EXPECT_EQ(sp_get_env_value(p, 2, 0, nullptr, nullptr, 0), -1);  // no task 2
  EXPECT_NE(std::string(sp_error(p)).find("no task 2"), std::string::npos) << sp_error(p);
  EXPECT_EQ(api_text([&](char* b, size_t l) { return sp_describe_task(p, 1, b, l); }),
            "strategy scatter, 2 threads on CPUs 4-7, places {4,5},{6,7}, mem none");
  sp_finalize(p);
}

TEST(TaskBinding, ThreadLibraryFoundBesideThePluginOrRefused) {
  char dir[] = "/tmp/sp-lib.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string plugin = std::string(dir) + "/slurm_pin.so", lib = std::string(dir) + "/libslurm_pin_threads.so";
  char buf[4096], err[1024];
  EXPECT_EQ(sp_find_thread_library(plugin.c_str(), buf, sizeof buf, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("is in none of " + lib + ", "), std::string::npos) << err;
  EXPECT_EQ(mkfifo(lib.c_str(), 0644), 0);  // a FIFO is refused at once, never opened for long
  EXPECT_EQ(sp_find_thread_library(plugin.c_str(), buf, sizeof buf, err, sizeof err), -1);
  unlink(lib.c_str());
  FILE* f = fopen(lib.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fclose(f);
  EXPECT_EQ(sp_find_thread_library(plugin.c_str(), buf, sizeof buf, err, sizeof err), 0);
  EXPECT_EQ(lib, buf);
  unlink(lib.c_str());
  rmdir(dir);
}

TEST(TaskBinding, TheTaskFileCarriesPlacesAndRegionsTheEnvironmentCannotHold) {
  BindOptions o;
  o.threads = ThreadMode::kOmpt;
  o.thread_library = "/lib/libslurm_pin_threads.so";
  Result r = three_threads();
  RegionPlace reg;
  reg.name = "main._omp_fn.1";
  reg.tasks = r.tasks;
  r.regions.push_back(reg);
  EXPECT_EQ(task_data(r, 0, o), "slurm-pin-task 1\nplaces 4 6,38 5-6\nregion main._omp_fn.1 4 6,38 5-6\n");
  auto env = by_name(task_environment(r, 0, o));
  EXPECT_EQ(env.count("SLURM_PIN_REGION_PLACES"), 0u);  // never in the environment
  o.threads = ThreadMode::kEnv;
  EXPECT_EQ(task_data(r, 0, o), "");  // no runtime, no file
  // 30000 threads' places: too long for one variable. With the runtime, the
  // file has them and SLURM_PIN_CPUS is left out; with OpenMP's variables,
  // it is an error naming the fix.
  Result big;
  TaskPlace t;
  for (int i = 0; i < 30000; ++i) {
    ThreadPlace th;
    th.cpus = CpuSet::of(std::vector<unsigned>{static_cast<unsigned>(1000 + i % 64)});
    th.pu = th.cpus.first();
    t.threads.push_back(th);
  }
  t.share = CpuSet::of(std::vector<unsigned>{1000});
  big.tasks.push_back(t);
  o.threads = ThreadMode::kPreload;
  env = by_name(task_environment(big, 0, o));
  EXPECT_TRUE(final_value(env["SLURM_PIN_CPUS"], "stale") == "(unset)");  // (not printed: 150 KB)
  EXPECT_GT(task_data(big, 0, o).size(), 100000u);
  o.threads = ThreadMode::kEnv;
  std::string why = slurmpin::test::error_of([&] { task_environment(big, 0, o); });
  EXPECT_NE(why.find("OMP_PLACES would be"), std::string::npos) << why;
  EXPECT_NE(why.find("--pin-thread-binding=preload"), std::string::npos) << why;
}

TEST(TaskBinding, PreloadIsRefusedForStaticAndSetIdPrograms) {
  char err[1024];
  EXPECT_EQ(sp_check_preloadable("true", "/usr/bin:/bin", err, sizeof err), 0) << err;
  EXPECT_EQ(sp_check_preloadable("no-such-program", "/usr/bin", err, sizeof err), 0);  // exec will say
  EXPECT_EQ(sp_check_preloadable("/usr/sbin/ldconfig", "", err, sizeof err), -1);     // static-pie
  EXPECT_NE(std::string(err).find("statically linked"), std::string::npos) << err;
  char dir[] = "/tmp/slurm-pin-preload.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string suid = std::string(dir) + "/suid", script = std::string(dir) + "/script";
  ASSERT_EQ(std::system(("cp /bin/true " + suid + " && chmod 4755 " + suid).c_str()), 0);
  EXPECT_EQ(sp_check_preloadable(suid.c_str(), "", err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("set-user-ID"), std::string::npos) << err;
  std::ofstream(script) << "#!/usr/sbin/ldconfig -p\n";
  EXPECT_EQ(sp_check_preloadable(script.c_str(), "", err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("its interpreter /usr/sbin/ldconfig is statically linked"), std::string::npos) << err;
  std::system((std::string("rm -rf ") + dir).c_str());
}

TEST(TaskBinding, AutoSaysWhyOmpPlacesAloneBindsAProgramTheLibraryCannotReach) {
  char note[1024] = "untouched";
  EXPECT_EQ(sp_auto_binding_note("true", "/usr/bin:/bin", nullptr, note, sizeof note), 0);
  EXPECT_STREQ(note, "untouched");
  EXPECT_EQ(sp_auto_binding_note("/usr/sbin/ldconfig", "", nullptr, note, sizeof note), 1);
  EXPECT_EQ(std::string(note),
            "threads bound by OMP_PLACES only (slurm-pin's thread library cannot be loaded into /usr/sbin/ldconfig: it "
            "is statically linked, so no loader runs to preload it): an OpenMP program's threads are placed, other "
            "threads run on the task's CPUs");  // the fix for preload (thread binding env) is not auto's
  EXPECT_EQ(sp_auto_binding_note("true", "/usr/bin", "the library is missing", note, sizeof note), 1);
  EXPECT_NE(std::string(note).find("(the library is missing)"), std::string::npos) << note;
}

// slurm_cpu_bind_list's view of fixed CPU lists, as a front end formats them.
int list_cpus(const void* ctx, int task, char* buf, size_t len) {
  const char* text = static_cast<const char* const*>(ctx)[task];
  return std::snprintf(buf, len, "%s", text);
}

// What the front ends tell a Slurm task of this binding, from the engine's
// task CPU lists: one mask per task, as task/affinity writes mask_cpu.
TEST(TaskBinding, SlurmCpuBindFromTheTasksCpus) {
  sp_placement_t* p = scatter_two_tasks();
  ASSERT_NE(p, nullptr);
  auto task_cpus = [](const void* p, int task, char* buf, size_t len) {
    return hwloc_bitmap_list_snprintf(buf, len, sp_get_task_cpuset(static_cast<const sp_placement_t*>(p), task));
  };
  char* list = slurm_cpu_bind_list(sp_get_ntasks(p), task_cpus, p);
  ASSERT_NE(list, nullptr);
  EXPECT_STREQ(list, "0xf,0xf0");
  std::map<std::string, std::string> env;
  auto set = [](void* ctx, const char* name, const char* value) {
    (*static_cast<std::map<std::string, std::string>*>(ctx))[name] = value;
    return 0;
  };
  ASSERT_EQ(slurm_cpu_bind_export(list, set, &env), 0);
  EXPECT_EQ(env["SLURM_CPU_BIND_TYPE"], "mask_cpu:");
  EXPECT_EQ(env["SLURM_CPU_BIND_LIST"], "0xf,0xf0");
  EXPECT_EQ(env["SLURM_CPU_BIND_VERBOSE"], "quiet");
  EXPECT_EQ(env["SLURM_CPU_BIND"], "quiet,mask_cpu:0xf,0xf0");
  free(list);
  sp_finalize(p);
  // Masks of any width, no leading zeros; malformed lists are refused.
  const char* wide[] = {"0", "64-67,200", ""};
  list = slurm_cpu_bind_list(3, list_cpus, wide);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(std::string(list), "0x1,0x1" + std::string(200 / 4 - 17, '0') + "f" + std::string(16, '0') + ",0x0");
  free(list);
  for (const char* bad : {"1-", "3-1", "a", "1,,2", "70000"}) {
    const char* one[] = {bad};
    EXPECT_EQ(slurm_cpu_bind_list(1, list_cpus, one), nullptr) << bad;
  }
  EXPECT_EQ(slurm_cpu_bind_list(0, list_cpus, wide), nullptr);  // no task: nothing to say
}
