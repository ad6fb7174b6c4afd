// SPDX-License-Identifier: GPL-2.0-or-later
// Placement files (docs/formats.md): explicit CPUs for every thread of every
// task, optionally per parallel region, with the fingerprint of the machine
// they were computed for.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "topology/cpulist.hh"

namespace slurmpin {

// [task][thread] -> PUs, as ranges: a file's cost follows its size, not the ids
// it names (ids are checked against the machine before any expansion).
using TaskCpus = std::vector<std::vector<CpuRanges>>;

struct PlacementFile {
  static constexpr int kVersion = 1;
  std::string topology;  // fingerprint, empty when the file gives none
  std::string strategy;  // informative
  TaskCpus tasks;
  std::vector<std::pair<std::string, TaskCpus>> regions;
};

// The largest placement file read: 16k threads of 64 tasks fit easily.
constexpr size_t kMaxPlacementFileBytes = 4u << 20;

// CPU ids above `max_cpu` (the machine's highest, when known) are errors.
PlacementFile read_placement_file(const std::string& path, unsigned max_cpu = kMaxCpuId,
                                  size_t max_bytes = kMaxPlacementFileBytes);
// The same for text already read; `path` names it in errors.
PlacementFile parse_placement_file(const std::string& text, const std::string& path, unsigned max_cpu = kMaxCpuId);
std::string format_placement_file(const PlacementFile& p);

// Every CPU of a task's threads, merged.
CpuRanges task_cpus(const std::vector<CpuRanges>& threads);

}  // namespace slurmpin
