// SPDX-License-Identifier: GPL-2.0-or-later
// What a task needs so that its threads follow a placement, in one place:
// the environment for OpenMP runtimes and slurm-pin's thread library, and
// the one-line description front ends print. The SPANK plugin, `slurm-pin
// run` and `slurm-pin place --format omp` all take it from here and format
// nothing themselves (as mpibind's library does for its Slurm and Flux
// adapters).
#pragma once
#include <string>
#include <vector>

#include "engine.hh"

namespace slurmpin {

// How threads are bound: env (OpenMP places, the runtime binds), preload
// (slurm-pin's pthread shim binds the N-th created thread to place N), ompt
// (the shim also moves threads at every parallel region), auto (both: the
// OpenMP runtime binds its threads by OMP_PLACES, the shim leaves them alone
// and binds the threads of a program without OpenMP in creation order;
// docs/threads.md).
enum class ThreadMode { kEnv, kPreload, kOmpt, kAuto };
ThreadMode parse_thread_mode(const std::string& name);
const char* thread_mode_name(ThreadMode m);

// NUMA memory policy: none (leave it), local (allocate on the local node),
// interleave (over the NUMA nodes of the task's CPUs).
enum class MemPolicy { kNone, kLocal, kInterleave };
MemPolicy parse_mem_policy(const std::string& name);
const char* mem_policy_name(MemPolicy m);

struct BindOptions {
  ThreadMode threads = ThreadMode::kEnv;
  std::string thread_library;  // libslurm_pin_threads.so, for preload, ompt and auto
  MemPolicy mem = MemPolicy::kNone;
  bool legacy_omp_env = false;  // also GOMP_CPU_AFFINITY and KMP_AFFINITY
  std::string strategy;         // as the user or the site named it
  std::string origin;           // why this strategy ("policy rule R"); shown after it
};

// One variable of a task's environment and what to do with it.
struct EnvVar {
  enum class Action {
    kSet,         // value, replacing what is there
    kKeep,        // value unless the variable is already set
    kAppendWord,  // added to a space-separated list (LD_PRELOAD), once
    kUnset,
  };
  std::string name, value;
  Action action = Action::kSet;
};

// The same names, in the same order, for every task of a result.
std::vector<EnvVar> task_environment(const Result& r, size_t task, const BindOptions& o);

// What slurm-pin's runtime in the task reads from its task file
// (common/task_env.h): its places and every region's, with preload or ompt;
// "" with env (no runtime is loaded). The front end writes it where the
// task can read it and names it in SLURM_PIN_TASK_FILE.
std::string task_data(const Result& r, size_t task, const BindOptions& o);

// The value a variable must end with given its current one (nullptr when
// unset); false when it must be unset.
bool env_final_value(const EnvVar& v, const char* current, std::string* out);

// OMP_PLACES for a task's bound threads, in thread order: "{0,8},{4,12}".
std::string omp_places(const TaskPlace& t);

// "strategy S (ORIGIN), N threads on CPUs C, places P, mem M[, threads by
// X][, K regions]"; front ends put where (node, task) before it.
std::string describe_task(const Result& r, size_t task, const BindOptions& o);

}  // namespace slurmpin
