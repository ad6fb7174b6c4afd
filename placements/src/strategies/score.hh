// SPDX-License-Identifier: GPL-2.0-or-later
// How much of the sharing matrix each level of the machine keeps inside one
// domain: for level K, the sum of w(i,j) over thread pairs placed in the same
// K domain, over the sum of all w(i,j). Quality is the sum over levels, the
// objective the hierarchical strategies maximise.
#pragma once
#include <string>
#include <vector>

#include "sharing/sharing_matrix.hh"
#include "topology/topology.hh"

namespace slurmpin {

struct LevelScore {
  std::string kind;
  int domains = 0;    // how many such domains the allowed CPUs touch
  double kept = 0;    // sharing inside one domain
  double total = 0;   // all sharing
  double fraction() const { return total > 0 ? kept / total : 0; }
};

// slot_of_thread: per task, per thread, a slot of t (-1: unbound).
std::vector<LevelScore> score_levels(const Tree& t,
                                     const std::vector<std::vector<int>>& slot_of_thread,
                                     const SharingMatrix* w);

double quality(const std::vector<LevelScore>& levels);

}  // namespace slurmpin
