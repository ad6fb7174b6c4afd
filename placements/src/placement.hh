// SPDX-License-Identifier: GPL-2.0-or-later
// What a placement is asked (Request) and what it gives (Result): the data
// the engine (engine.hh) and the node's placement cache (placement_cache.hh)
// both handle, so each includes this and the cache never the engine.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sharing/sharing_matrix.hh"
#include "strategies/score.hh"
#include "strategies/strategy.hh"
#include "strategies/task_split.hh"
#include "topology/cpu_set.hh"
#include "topology/topology.hh"

namespace slurmpin {

// With oversubscription, at most this many threads share one CPU: beyond it
// no placement helps, and every cost stays bounded by the machine.
constexpr int kMaxOversubscription = 64;

struct Request {
  TopologySpec topology;
  Strategy strategy = Strategy::kCompact;
  std::string placement_path;  // Strategy::kFile
  std::string widen_to;        // "" (bind to the slot), "L2", "L3" or "NUMANode"
  int tasks = 0;               // 0: one, or as many as the placement file has
  int threads = 0;             // 0: the matrix size, else one per slot of a task's share
  TaskLayout task_layout = TaskLayout::kCompact;
  bool oversubscribe = false;
  // Set by the engine itself when a task has more threads than cores: the
  // same request placed on hardware threads, the split keeping each core's
  // hardware threads in one task (tasks sized in cores, as asked).
  bool cores_whole = false;
  uint64_t seed = 1;
  bool has_matrix = false;
  SharingMatrix matrix;
  std::string matrix_source;  // file name, for messages
  // Each thread's reads and writes (the profile's thread_accesses, one per
  // thread of the matrix; empty: not known): with more threads than cores,
  // the busiest go to distinct cores (load_first.hh).
  std::vector<double> thread_load;
  // The tasks' own traffic (MPI ranks: tasks x tasks, the node's local
  // tasks in order): which task gets which share (task_traffic.hh).
  bool has_task_matrix = false;
  SharingMatrix task_matrix;
  std::string task_matrix_source;
  // Which of the job's tasks run here (global ranks, in local order) and
  // how many the job has; empty and 0: the node's tasks are the job's.
  // A profile's rank traffic (profile_ranks > 0) is taken for them.
  std::vector<int> task_ranks;
  int job_tasks = 0;
  int profile_ranks = 0;
  SharingMatrix profile_rank_traffic;
  bool profile_has_threads = true;
  // A profile resolved once the thread count is known: a file path, or
  // NAME[@VERSION] from the store. Read with the caller's privileges.
  std::string profile_spec, profile_store, profile_model = "simple", profile_region;
  // Per-region placements (seed 001 chapter 6): one per region of the
  // profile, with the same task shares. A region whose placement moves at
  // most phase_merge of the threads away from the previous region's keeps
  // the previous one (fewer migrations).
  bool phases = false;
  double phase_merge = 0;
  // The profile's regions by name, and each one's matrix, built by
  // region_matrix(i) where that region is placed: one region's matrix at a
  // time per placing thread, where building every region's first held
  // them all at once (100 regions of 128 threads: 20 MB of fresh pages).
  std::vector<std::string> region_names;
  std::function<SharingMatrix(size_t)> region_matrix;
  // Other names of a region (merged call sites, ProfileRegion::aliases): each
  // gets the placement of the region, computed once.
  std::map<std::string, std::vector<std::string>> region_aliases;
  // Device locality (devices.hh): each task gets the GPUs nearest it among
  // those the job may use, and its CPUs are taken near them. gpu_env: the
  // job's *_VISIBLE_DEVICES as set; gpu_indices: which of the node's GPUs
  // the job was given, as its resource manager says ("0,2"; empty: not said).
  bool gpu_closest = false;
  std::map<std::string, std::string> gpu_env;
  std::string gpu_indices;
  // What one computation may cost, set by whoever runs it for someone else
  // (slurmstepd for a user): the largest user file read, and the wall
  // time; 0: the formats' own limits, no time limit.
  size_t max_file_bytes = 0;
  double max_seconds = 0;
  // Where this node keeps placements it computed (placement_cache.hh):
  // read here, written by root from Result::cache_key; empty: none.
  std::string cache_dir;
};

struct ThreadPlace {
  int slot = -1;                // node of Result::tree; -1 when unbound
  int pu = -1;                  // the PU it runs on (first of its slot); -1 when unbound
  CpuSet cpus;                  // PUs the thread is bound to
};

struct TaskPlace {
  CpuSet share;                 // PUs of the task
  std::vector<ThreadPlace> threads;
  std::vector<std::string> gpus;  // with gpu_closest: the job's names of its GPUs
  std::vector<std::string> gpu_names;  // and the node's ("cuda3"), for messages
  std::string nic;                // and the network adapter nearest its CPUs
};

struct RegionPlace {
  std::string name;
  std::vector<TaskPlace> tasks;
  bool merged = false;  // reuses the previous region's placement
};

struct Result {
  // The allowed part of the machine: the loaded topology's own tree, shared
  // (a copy per placement is hundreds of allocations).
  std::shared_ptr<const Tree> allowed;
  const Tree& tree() const { return *allowed; }
  std::string fingerprint;      // the whole machine (Tree::summary)
  std::vector<TaskPlace> tasks;
  std::vector<RegionPlace> regions;
  bool scored = false;          // a matrix was given
  // Sharing kept per level, computed on first use: a pass over every pair
  // that slurmstepd, which never asks, does not pay at launch.
  const std::vector<LevelScore>& levels() const;
  std::string gpu_variable;     // CUDA_VISIBLE_DEVICES, ...: set when tasks got GPUs
  std::vector<std::string> notes;
  // Read from the node's placement cache instead of computed (then not
  // scored: the matrix was not parsed).
  bool from_cache = false;
  // Computed, and to be kept in the cache under this key (placement_cache.hh); "" otherwise.
  std::string cache_key;

  // The tasks' traffic kept per level (a task matrix was given: each task
  // at its first thread's slot), computed on first use.
  bool tasks_scored = false;
  SharingMatrix task_matrix;
  const std::vector<LevelScore>& task_levels() const;
  mutable std::vector<LevelScore> task_levels_;
  mutable bool task_levels_done_ = false;

  // What levels() scores: the first task's threads against the matrix.
  SharingMatrix score_matrix;
  std::vector<std::vector<int>> slot_of_thread;
  mutable std::vector<LevelScore> levels_;
  mutable bool levels_done_ = false;
};

}  // namespace slurmpin
