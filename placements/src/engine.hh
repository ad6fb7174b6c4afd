// The placement engine: (topology, allowed CPUs, tasks x threads, optional
// sharing matrix, strategy) -> the CPUs of every thread of every task.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "affinity.hh"
#include "score.hh"
#include "strategy.hh"
#include "task_split.hh"
#include "topology.hh"

namespace slurmpin {

struct Request {
  TopologySpec topology;
  Strategy strategy = Strategy::kCompact;
  std::string placement_path;  // Strategy::kFile
  std::string widen_to;        // "" (bind to the slot), "L2", "L3" or "NUMANode"
  int tasks = 0;               // 0: one, or as many as the placement file has
  int threads = 0;             // 0: the matrix size, else one per slot of a task's share
  TaskLayout task_layout = TaskLayout::kCompact;
  bool oversubscribe = false;
  uint64_t seed = 1;
  bool has_matrix = false;
  Affinity matrix;
  std::string matrix_source;  // file name, for messages
  // A profile resolved once the thread count is known: a file path, or
  // NAME[@VERSION] from the store. Read with the caller's privileges.
  std::string profile_spec, profile_store, profile_model = "simple", profile_region;
};

struct ThreadPlace {
  int slot = -1;                // node of Result::tree; -1 when unbound
  int pu = -1;                  // the PU it runs on (first of its slot); -1 when unbound
  std::vector<unsigned> cpus;   // PUs the thread is bound to
};

struct TaskPlace {
  std::vector<unsigned> share;  // PUs of the task
  std::vector<ThreadPlace> threads;
};

struct Result {
  Tree tree;                    // the allowed part of the machine
  std::string fingerprint;      // the whole machine (Tree::summary)
  std::vector<TaskPlace> tasks;
  std::vector<LevelScore> levels;
  bool scored = false;          // a matrix was given
  std::vector<std::string> notes;
};

Result compute_placement(const Request& r);

}  // namespace slurmpin
