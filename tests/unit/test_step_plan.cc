// SPDX-License-Identifier: GPL-2.0-or-later
// The plugin's step plan (spank_plugin/step_plan.h): what the placing
// helper computes with the engine reads back in slurmstepd as exactly what
// the engine says of every task, and applies there with libc alone
// (process_binding.h) as the engine's sp_bind_task would; the helper
// (placing_helper.h) brings back what its child wrote, or one line.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "input/user_file.hh"

extern "C" {
#include "helper_report.h"
#include "placing_helper.h"
#include "process_binding.h"
#include "step_plan.h"
}
#include "api_text.hh"
#include "test_support.hh"

namespace {

// Two tasks of two threads, preloaded thread binding (LD_PRELOAD's rule
// appends a word; OMP_NUM_THREADS' keeps a value the user set).
sp_placement_t* placed(const char* mem = "none") {
  sp_placement_t* p = sp_init();
  EXPECT_EQ(sp_set_topology(p, "pack:2 l3:2 core:4 pu:2"), 0);
  EXPECT_EQ(sp_set_strategy(p, "scatter"), 0);
  EXPECT_EQ(sp_set_tasks(p, 2), 0);
  EXPECT_EQ(sp_set_threads(p, 2), 0);
  EXPECT_EQ(sp_set_thread_library(p, "/usr/lib/slurm-pin/libslurm_pin_threads.so"), 0);
  EXPECT_EQ(sp_set_thread_mode(p, "preload"), 0);
  EXPECT_EQ(sp_set_mem_policy(p, mem), 0);
  EXPECT_EQ(sp_compute(p), 0) << sp_error(p);
  return p;
}

struct Decoded {
  plan_writer w{};
  step_plan plan{};
  int rc = -1;
  explicit Decoded(sp_placement_t* p, int dryrun = 0) {
    EXPECT_EQ(step_plan_encode(p, dryrun, 1, &w), 0) << sp_error(p);
    plan_reader r{w.data, w.size, 0, 0};
    rc = step_plan_decode(&r, &plan);
    plan.wire = w.data;  // the plan's strings point into it
  }
  ~Decoded() { step_plan_free(&plan); }
};

TEST(StepPlan, EveryTaskReadsBackAsTheEngineSaysIt) {
  sp_placement_t* p = placed();
  Decoded d(p);
  ASSERT_EQ(d.rc, 0);
  ASSERT_EQ(d.plan.ntasks, 2);
  ASSERT_EQ(d.plan.env_count, sp_get_env_count(p));
  for (int t = 0; t < 2; ++t) {
    const task_plan& tp = d.plan.tasks[t];
    EXPECT_EQ(tp.cpus, cpu_list(sp_get_task_cpuset(p, t)));
    EXPECT_STREQ(tp.mem, "none");
    EXPECT_EQ(tp.line, api_text([&](char* b, size_t l) { return sp_describe_task(p, t, b, l); }));
    EXPECT_EQ(std::string(tp.data, tp.data_len), api_text([&](char* b, size_t l) { return sp_get_task_data(p, t, b, l); }));
    EXPECT_GT(tp.data_len, 0u);
    // Each variable's value, whatever the task had: the engine's.
    for (int i = 0; i < d.plan.env_count; ++i)
      for (const char* current : {static_cast<const char*>(nullptr), "", "7", "/lib/a.so:/lib/b.so",
                                  "/usr/lib/slurm-pin/libslurm_pin_threads.so /x.so"}) {
        char want[4096], got[4096];
        int n = sp_get_env_value(p, t, i, current, want, sizeof want);
        int m = plan_env_value(&tp.env[i], current, got, sizeof got);
        EXPECT_EQ(m, n) << tp.env[i].name;
        if (n >= 0) {
          EXPECT_STREQ(got, want) << tp.env[i].name << " from " << (current ? current : "unset");
        }
      }
  }
  sp_finalize(p);
}

TEST(StepPlan, ADryRunCarriesOnlyTheLines) {
  sp_placement_t* p = placed();
  Decoded d(p, 1);
  ASSERT_EQ(d.rc, 0);
  EXPECT_EQ(d.plan.env_count, 0);
  EXPECT_STREQ(d.plan.tasks[1].cpus, "");
  EXPECT_EQ(d.plan.tasks[1].line, api_text([&](char* b, size_t l) { return sp_describe_task(p, 1, b, l); }));
  sp_finalize(p);
}

TEST(StepPlan, AShortOrDamagedPlanIsRefusedNeverReadPastItsEnd) {
  sp_placement_t* p = placed();
  plan_writer w{};
  ASSERT_EQ(step_plan_encode(p, 0, 1, &w), 0);
  for (size_t cut = 0; cut < w.size; ++cut) {
    // An exact-size copy: a read past `cut` is a read past the buffer.
    char* copy = static_cast<char*>(malloc(cut ? cut : 1));
    memcpy(copy, w.data, cut);
    plan_reader r{copy, cut, 0, 0};
    step_plan plan;
    EXPECT_EQ(step_plan_decode(&r, &plan), -1) << "cut at " << cut;
    free(copy);
  }
  // A length that points beyond the data.
  uint32_t huge = 0xfffffff0u;
  memcpy(w.data, &huge, 4);
  plan_reader r{w.data, w.size, 0, 0};
  step_plan plan;
  EXPECT_EQ(step_plan_decode(&r, &plan), -1);
  free(w.data);
  sp_finalize(p);
}

// Runs f in a child process (binding changes it for good): its exit status.
template <class F>
int in_child(F&& f) {
  pid_t pid = fork();
  if (pid == 0) _exit(f());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

TEST(ProcessBinding, BindsReadsBackAndNamesWhatTheKernelRefuses) {
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  int first = 0;
  while (!CPU_ISSET(first, &mine)) ++first;
  std::string one = std::to_string(first);
  EXPECT_EQ(in_child([&] {
              char err[512] = "";
              if (process_bind_cpus(one.c_str(), err, sizeof err) != 0) return 1;
              cpu_set_t now;
              sched_getaffinity(0, sizeof now, &now);
              return CPU_COUNT(&now) == 1 && CPU_ISSET(first, &now) ? 0 : 2;
            }),
            0);
  char err[512] = "";
  // A CPU this machine does not have: refused, never dropped silently.
  EXPECT_EQ(in_child([&] { return process_bind_cpus("60000", err, sizeof err) == -1 && strstr(err, "60000") ? 0 : 1; }), 0);
  EXPECT_EQ(process_bind_cpus("0-", err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("not a CPU list"), std::string::npos) << err;
}

TEST(ProcessBinding, MemoryPolicyAsTheEngineWritesIt) {
  sp_placement_t* p = placed("interleave");
  char mem[256];
  int n = sp_get_task_mem_policy(p, 0, mem, sizeof mem);
  if (n < 0) GTEST_SKIP() << "no NUMA support here: " << sp_error(p);
  EXPECT_EQ(std::string(mem).rfind("interleave ", 0), 0u) << mem;
  sp_finalize(p);
  // This machine's own nodes: the engine's text for its CPUs applies.
  sp_placement_t* here = sp_init();
  ASSERT_EQ(sp_set_mem_policy(here, "interleave"), 0);
  ASSERT_EQ(sp_set_strategy(here, "compact"), 0);
  ASSERT_EQ(sp_set_tasks(here, 1), 0);
  ASSERT_EQ(sp_compute(here), 0) << sp_error(here);
  ASSERT_GT(sp_get_task_mem_policy(here, 0, mem, sizeof mem), 0) << sp_error(here);
  std::string text = mem;
  sp_finalize(here);
  for (const std::string& policy : {text, std::string("local"), std::string("none")})
    EXPECT_EQ(in_child([&] {
                char err[512] = "";
                return process_set_mem_policy(policy.c_str(), err, sizeof err);
              }),
              0)
        << policy;
  char err[512] = "";
  EXPECT_EQ(process_set_mem_policy("interleave x", err, sizeof err), -1);
  EXPECT_EQ(process_set_mem_policy("near", err, sizeof err), -1);
}

int write_hello(void*, plan_writer* out) { return plan_put_text(out, "hello"); }
int hang(void*, plan_writer*) {
  for (;;) pause();
}
int crash(void*, plan_writer*) {
  abort();
}
// Killed from outside, as the OOM killer or an admin would.
int killed(void*, plan_writer*) {
  raise(SIGKILL);
  return 0;
}
// Maps a file as the engine maps a store entry, cuts it short in place,
// and reads on: the pages are gone (SIGBUS).
int read_cut_file(void*, plan_writer* out) {
  slurmpin::test::TempDir dir("helper_map");
  std::string path = (dir.path / "entry").string();
  std::ofstream(path) << std::string(1 << 16, 'x');
  slurmpin::FileBytes bytes = slurmpin::map_file_at(AT_FDCWD, path, 1 << 20, 0, "entry");
  if (truncate(path.c_str(), 0) != 0) return -1;
  volatile char last = bytes.view().back();
  return plan_put_text(out, last == 'x' ? "read" : "other");
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// Allocates `wanted` bytes in the helper, touching up to 4 MiB of them:
// what it could (a cap counts what is mapped, touched or not).
// (The pointer goes through a volatile: a compiler may drop an allocation
// nobody reads, as GCC 16 does, and the test would see none refused.)
size_t wanted = 0;
void* volatile kept_allocation;
int allocate(void*, plan_writer* out) {
  char* p = static_cast<char*>(malloc(wanted));
  kept_allocation = p;
  if (p) memset(p, 1, std::min(wanted, size_t{4} << 20));
  int rc = plan_put_text(out, p ? "allocated" : "out of memory");
  free(p);
  return rc;
}

// The helper started, then finished: 0 and its bytes, or -1 and the line.
int run_helper(int (*work)(void*, plan_writer*), double seconds, char** data, size_t* size, char* err, size_t len,
               unsigned long long memory = 0) {
  placing_helper h{};
  if (placing_helper_start(&h, work, nullptr, nullptr, seconds, memory, err, len) != 0) return -1;
  return placing_helper_finish(&h, 1 << 20, data, size, err, len);
}

TEST(PlacingHelper, BringsBackTheChildsBytesOrOneLine) {
  char *data = nullptr, err[512] = "";
  size_t size = 0;
  ASSERT_EQ(run_helper(write_hello, 5, &data, &size, err, sizeof err), 0) << err;
  plan_reader r{data, size, 0, 0};
  EXPECT_STREQ(plan_get(&r, nullptr), "hello");
  EXPECT_EQ(r.at, size);  // nothing of the helper's own in the result
  free(data);
  EXPECT_EQ(run_helper(hang, 0.3, &data, &size, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("longer than"), std::string::npos) << err;
  EXPECT_EQ(run_helper(crash, 5, &data, &size, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("the placing helper crashed (signal 6): report it"), std::string::npos) << err;
  // Killed from outside: what is known and what to do, not a bug to report.
  EXPECT_EQ(run_helper(killed, 5, &data, &size, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("the placing helper was killed (signal 9: the kernel's OOM killer"), std::string::npos)
      << err;
  EXPECT_NE(std::string(err).find("--mem"), std::string::npos) << err;
  EXPECT_EQ(std::string(err).find("report it"), std::string::npos) << err;
  // A mapped store profile cut short under the helper: that file's fault,
  // named with its fix (not a crash to report).
  EXPECT_EQ(run_helper(read_cut_file, 5, &data, &size, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("store profile was cut short while the step read it"), std::string::npos) << err;
  // Capped memory: what the cap allows is allocated, more is refused (the
  // helper goes on and says so), the parent's own limit untouched.
  struct rlimit before {};
  getrlimit(RLIMIT_DATA, &before);
  // (256 MiB of room: sanitizers' allocators map in large pieces. ASan's
  // reserves its memory up front, beyond any limit set later: the refusal
  // is checked on the real allocator only, as the plugin is built.)
  for (auto [bytes, said] : {std::pair<size_t, const char*>{4u << 20, "allocated"}, {size_t{1} << 30, "out of memory"}}) {
    if (kAddressSanitizer && bytes > (4u << 20)) continue;
    wanted = bytes;
    ASSERT_EQ(run_helper(allocate, 5, &data, &size, err, sizeof err, 256u << 20), 0) << err;
    plan_reader got{data, size, 0, 0};
    EXPECT_STREQ(plan_get(&got, nullptr), said) << bytes;
    free(data);
  }
  wanted = size_t{1} << 30;
  ASSERT_EQ(run_helper(allocate, 5, &data, &size, err, sizeof err), 0) << err;
  plan_reader uncapped{data, size, 0, 0};
  EXPECT_STREQ(plan_get(&uncapped, nullptr), "allocated");
  free(data);
  struct rlimit after {};
  getrlimit(RLIMIT_DATA, &after);
  EXPECT_EQ(after.rlim_cur, before.rlim_cur);
  // A helper whose result nobody waits for any more: ended, reaped.
  placing_helper h{};
  ASSERT_EQ(placing_helper_start(&h, hang, nullptr, nullptr, 5, 0, err, sizeof err), 0);
  pid_t pid = h.pid;
  placing_helper_cancel(&h);
  EXPECT_EQ(h.pid, 0);
  EXPECT_EQ(kill(pid, 0), -1);
}

}  // namespace

TEST(HelperReport, EveryFieldComesBackAndAShortReportIsRefused) {
  helper_report out{};
  out.rc = -1;
  out.failure = "n1: slurm-pin: no";
  out.note = "a note";
  out.threads_lib = "/lib/x.so";
  out.launcher = 1;
  out.launcher_name = "orted";
  out.launcher_command = "/usr/bin/slurm-pin";
  out.launcher_options = "strategy=compact";
  out.launcher_node_cpus = "0-3";
  out.cpu_bind_list = nullptr;  // written as ""
  out.peak_kib = 5836;
  out.placing_us = 2400;
  plan_writer w{};
  ASSERT_EQ(helper_report_write(&out, &w), 0);
  plan_reader r{w.data, w.size, 0, 0};
  helper_report in{};
  ASSERT_EQ(helper_report_read(&r, &in), 0);
  EXPECT_EQ(in.rc, -1);
  EXPECT_STREQ(in.failure, "n1: slurm-pin: no");
  EXPECT_STREQ(in.note, "a note");
  EXPECT_STREQ(in.threads_lib, "/lib/x.so");
  EXPECT_EQ(in.launcher, 1);
  EXPECT_STREQ(in.launcher_name, "orted");
  EXPECT_STREQ(in.launcher_command, "/usr/bin/slurm-pin");
  EXPECT_STREQ(in.launcher_options, "strategy=compact");
  EXPECT_STREQ(in.launcher_node_cpus, "0-3");
  EXPECT_STREQ(in.cpu_bind_list, "");
  EXPECT_EQ(in.peak_kib, 5836);
  EXPECT_EQ(in.placing_us, 2400);
  EXPECT_EQ(r.at, w.size);  // nothing left: the plan follows here
  for (size_t cut = 0; cut < w.size; ++cut) {
    plan_reader shorter{w.data, cut, 0, 0};
    EXPECT_EQ(helper_report_read(&shorter, &in), -1) << "cut at " << cut;
  }
  free(w.data);
}
