// Placement files (docs/formats.md): explicit CPUs for every thread of every
// task, optionally per parallel region, with the fingerprint of the machine
// they were computed for.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace slurmpin {

using TaskCpus = std::vector<std::vector<std::vector<unsigned>>>;  // [task][thread] -> PUs

struct PlacementFile {
  static constexpr int kVersion = 1;
  std::string topology;  // fingerprint, empty when the file gives none
  std::string strategy;  // informative
  TaskCpus tasks;
  std::vector<std::pair<std::string, TaskCpus>> regions;
};

PlacementFile read_placement_file(const std::string& path);
std::string format_placement_file(const PlacementFile& p);

}  // namespace slurmpin
