// SPDX-License-Identifier: GPL-2.0-or-later
// Tasks placed by their traffic (MPI ranks that exchange most share a
// node's caches and NUMA domains): the node's task shares, as the even
// split cut them, handed to the tasks by a profile-guided strategy on the
// tree of the shares, as threads are handed slots. Each task keeps a share
// of the split's sizes; only which task gets which share changes.
#pragma once
#include <string>
#include <vector>

#include "sharing/sharing_matrix.hh"
#include "strategies/strategy.hh"
#include "topology/topology.hh"

namespace slurmpin {

// The tasks' places by their traffic where no profile-guided strategy is
// asked for (the default of --task-matrix and of rank profiles): the slot
// of t of each task of `traffic`, t holding at least as many slots. Ranks
// are grouped from the cores up (bottom_up.hh) and cut from the root down
// (gplp, and lpgp where cores pair); a cut is taken where it keeps at least
// as much as the groups at every level, else the groups.
std::vector<int> place_by_traffic(const Tree& t, const SharingMatrix& traffic, uint64_t seed);

// `shares` (task i's slots, from split_tasks) reordered so that task i gets
// the share `strategy` (a profile-guided one; any other: place_by_traffic) places it on, given the
// tasks' `traffic` (tasks x tasks, symmetric). Each share stands in the
// tree for its first slot: shares in one L3 are neighbours at the L3, and
// so on up. Shares that overlap (more tasks than slots) are kept as they
// are: *why says so ("" otherwise).
std::vector<std::vector<int>> shares_by_traffic(const Tree& tree, const std::vector<std::vector<int>>& shares,
                                                const SharingMatrix& traffic, Strategy strategy, uint64_t seed,
                                                std::string* why);

}  // namespace slurmpin
