// SPDX-License-Identifier: GPL-2.0-or-later
// slurm-pin profiles diff: how alike two profiles are, and whether they
// lead to the same placement (docs/profiler.md).
#pragma once
#include <string>

#include "sharing/profile.hh"

namespace slurmpin {

struct DiffInput {
  std::string model = "simple", region, topology = "this", strategy = "lpgp";
};

// The report, several lines; Error when the profiles cannot be compared
// (different thread counts, a missing model or region, too few slots).
std::string diff_profiles(const Profile& a, const std::string& a_name, const Profile& b, const std::string& b_name,
                          const DiffInput& in);

}  // namespace slurmpin
