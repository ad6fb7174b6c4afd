// SPDX-License-Identifier: GPL-2.0-or-later
#include "binding/task_binding.hh"

#include <cstdlib>
#include <cstring>

#include "env_action.h"
#include "error.hh"
#include "slurm_pin_options.h"
#include "task_env.h"

namespace slurmpin {

namespace {

// Every CPU, ranges written out: "0,1,2" (the OpenMP and Intel lists).
std::string join_cpus(const CpuSet& cpus) {
  std::string out;
  cpus.for_each([&](unsigned c) { out += (out.empty() ? "" : ",") + std::to_string(c); });
  return out;
}

std::vector<const ThreadPlace*> bound_threads(const TaskPlace& t) {
  std::vector<const ThreadPlace*> out;
  for (const auto& th : t.threads)
    if (th.pu >= 0 && !th.cpus.empty()) out.push_back(&th);
  return out;
}

// GOMP_CPU_AFFINITY: one CPU per thread, "0 4" (runtimes before OpenMP 4.0).
std::string gomp_affinity(const TaskPlace& t) {
  std::string out;
  for (const ThreadPlace* th : bound_threads(t)) out += (out.empty() ? "" : " ") + std::to_string(th->cpus.first());
  return out;
}

// KMP_AFFINITY: "explicit,proclist=[{0,8},4]" (braces only around sets).
std::string kmp_affinity(const TaskPlace& t) {
  std::string out;
  for (const ThreadPlace* th : bound_threads(t)) {
    std::string set = join_cpus(th->cpus);
    out += (out.empty() ? "" : ",") + (th->cpus.count() > 1 ? "{" + set + "}" : set);
  }
  return "explicit,proclist=[" + out + "]";
}

// SLURM_PIN_CPUS: each thread's CPU list, space-separated, in thread order.
std::string thread_cpus(const TaskPlace& t) {
  std::string out;
  for (const auto& th : t.threads) out += (out.empty() ? "" : " ") + th.cpus.list();
  return out;
}

// Fits one environment entry (common/task_env.h).
bool fits(const std::string& name, const std::string& value) {
  return name.size() + value.size() + 2 < SP_MAX_ENV_ENTRY;
}

// A variable the runtime of the task cannot do without: too long is an
// error naming what to change.
void require_fits(const std::string& name, const std::string& value) {
  if (fits(name, value)) return;
  throw Error(name + " would be " + std::to_string((name.size() + value.size() + 2) >> 10) +
              " KiB, more than the " + std::to_string(SP_MAX_ENV_ENTRY >> 10) +
              " KiB one environment variable may hold (Slurm, Linux): use fewer threads, a coarser granularity, "
              "or --pin-thread-binding=preload (slurm-pin's runtime reads its places from a file)");
}

}  // namespace

// The names and messages are the options' (slurm_pin_options.h), in the
// enumerations' order.
static_assert(static_cast<int>(ThreadMode::kEnv) == SP_THREADS_ENV && static_cast<int>(ThreadMode::kOmpt) == SP_THREADS_OMPT &&
              static_cast<int>(ThreadMode::kPreload) == SP_THREADS_PRELOAD &&
              static_cast<int>(ThreadMode::kAuto) == SP_THREADS_AUTO);
static_assert(static_cast<int>(MemPolicy::kNone) == SP_MEM_NONE && static_cast<int>(MemPolicy::kLocal) == SP_MEM_LOCAL &&
              static_cast<int>(MemPolicy::kInterleave) == SP_MEM_INTERLEAVE);

ThreadMode parse_thread_mode(const std::string& name) {
  char err[512];
  int i = sp_thread_mode_of(name.c_str(), err, sizeof err);
  if (i < 0) throw Error(err);
  return static_cast<ThreadMode>(i);
}

const char* thread_mode_name(ThreadMode m) { return sp_thread_mode_name(static_cast<int>(m)); }

MemPolicy parse_mem_policy(const std::string& name) {
  char err[512];
  int i = sp_mem_policy_of(name.c_str(), err, sizeof err);
  if (i < 0) throw Error(err);
  return static_cast<MemPolicy>(i);
}

const char* mem_policy_name(MemPolicy m) { return sp_mem_policy_name(static_cast<int>(m)); }

std::string omp_places(const TaskPlace& t) {
  std::string out;
  for (const ThreadPlace* th : bound_threads(t)) out += (out.empty() ? "{" : ",{") + join_cpus(th->cpus) + "}";
  return out;
}

namespace {

std::string join(const std::vector<std::string>& words, const char* sep) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : sep) + w;
  return s;
}

}  // namespace

std::vector<EnvVar> task_environment(const Result& r, size_t task, const BindOptions& o) {
  using A = EnvVar::Action;
  if (task >= r.tasks.size()) throw Error("no task " + std::to_string(task) + " in this placement");
  const TaskPlace& t = r.tasks[task];
  std::vector<EnvVar> env;
  std::string cpus = thread_cpus(t);
  bool openmp_binds = o.threads == ThreadMode::kEnv || o.threads == ThreadMode::kAuto;
  if (openmp_binds) {
    env.push_back({"OMP_PLACES", omp_places(t), A::kSet});
    env.push_back({"OMP_PROC_BIND", "close", A::kSet});
    if (o.legacy_omp_env) {
      env.push_back({"GOMP_CPU_AFFINITY", gomp_affinity(t), A::kSet});
      env.push_back({"KMP_AFFINITY", kmp_affinity(t), A::kSet});
    }
    for (const EnvVar& v : env) require_fits(v.name, v.value);
  }
  if (o.threads != ThreadMode::kEnv && o.thread_library.empty())
    throw Error(std::string("thread binding ") + thread_mode_name(o.threads) +
                " needs slurm-pin's thread library (libslurm_pin_threads.so), which was not found");
  if (!openmp_binds) {
    // The shim binds; LLVM's libomp would reset the threads' affinity, and
    // OMP_PLACES stays unset so that no runtime binds behind its back.
    env.push_back({"KMP_AFFINITY", "disabled", A::kSet});
  }
  // auto: the shim binds what OpenMP does not (it leaves the runtime's threads alone).
  if (o.threads != ThreadMode::kEnv) env.push_back({"LD_PRELOAD", o.thread_library, A::kAppendWord});
  env.push_back({"OMP_NUM_THREADS", std::to_string(t.threads.size()), A::kKeep});
  // The runtime reads its places (and regions) from the task file; the
  // variable is for the program and its user, and left out when it cannot
  // be held (the file still has it).
  if (openmp_binds) require_fits(SP_ENV_CPUS, cpus);
  env.push_back({SP_ENV_CPUS, cpus, fits(SP_ENV_CPUS, cpus) ? A::kSet : A::kUnset});
  env.push_back({SP_ENV_STRATEGY, o.strategy, A::kSet});
  env.push_back({SP_ENV_THREADS, thread_mode_name(o.threads), A::kSet});
  // Device locality: the task's GPUs, by the names the job gave them, and
  // the network adapter nearest its CPUs (for UCX_NET_DEVICES and the like).
  if (!r.gpu_variable.empty()) env.push_back({r.gpu_variable, join(t.gpus, ","), A::kSet});
  if (!t.nic.empty()) env.push_back({SP_ENV_NIC, t.nic, A::kSet});
  return env;
}

std::string task_data(const Result& r, size_t task, const BindOptions& o) {
  if (task >= r.tasks.size()) throw Error("no task " + std::to_string(task) + " in this placement");
  if (o.threads == ThreadMode::kEnv) return "";
  std::string out = std::string(SP_TASK_FILE_HEADER) + "\nplaces " + thread_cpus(r.tasks[task]) + "\n";
  if (o.threads == ThreadMode::kOmpt)
    for (const auto& region : r.regions)
      if (task < region.tasks.size()) out += "region " + region.name + " " + thread_cpus(region.tasks[task]) + "\n";
  return out;
}

bool env_final_value(const EnvVar& v, const char* current, std::string* out) {
  using A = EnvVar::Action;
  enum env_action a = v.action == A::kKeep         ? ENV_KEEP
                      : v.action == A::kAppendWord ? ENV_APPEND_WORD
                      : v.action == A::kUnset      ? ENV_UNSET
                                                   : ENV_SET;
  std::string buf(v.value.size() + (current ? std::strlen(current) : 0) + 2, '\0');
  int n = env_action_value(a, v.value.c_str(), current, &buf[0], buf.size());
  if (n == -2) return false;
  if (n < 0) throw Error("the value of " + v.name + " does not fit");  // cannot happen: sized above
  buf.resize(static_cast<size_t>(n));
  *out = std::move(buf);
  return true;
}

std::string describe_task(const Result& r, size_t task, const BindOptions& o) {
  if (task >= r.tasks.size()) throw Error("no task " + std::to_string(task) + " in this placement");
  const TaskPlace& t = r.tasks[task];
  size_t n = t.threads.size();
  std::string s = "strategy " + o.strategy + (o.origin.empty() ? "" : " (" + o.origin + ")") + ", " +
                  std::to_string(n) + (n == 1 ? " thread" : " threads") + " on CPUs " + t.share.list() +
                  ", places " + omp_places(t) + ", mem " + mem_policy_name(o.mem);
  if (o.threads == ThreadMode::kAuto) s += ", threads by OMP_PLACES or in creation order (auto)";
  else if (o.threads != ThreadMode::kEnv) s += std::string(", threads by ") + thread_mode_name(o.threads);
  if (!r.regions.empty()) s += ", " + std::to_string(r.regions.size()) + " regions";
  if (!r.gpu_variable.empty())
    s += ", " + std::string(t.gpus.size() == 1 ? "gpu " : "gpus ") + join(t.gpus, ",") + " (" + join(t.gpu_names, ",") + ")";
  if (!t.nic.empty()) s += ", nic " + t.nic;
  return s;
}

}  // namespace slurmpin
