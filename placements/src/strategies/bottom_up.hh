// SPDX-License-Identifier: GPL-2.0-or-later
// Threads (or ranks) grouped from the cores up, as TreeMatch groups them
// (Jeannot and Mercier): the slots' smallest domains first take the groups
// that keep most inside them, those groups are then grouped into the next
// level's domains, and so on to the root. Where the profile-guided
// strategies cut from the root down and may give up a low level for a
// little more kept above it, this keeps the lowest levels first.
#pragma once
#include <cstdint>
#include <vector>

#include "sharing/sharing_matrix.hh"
#include "topology/topology.hh"

namespace slurmpin {

// The slot of each thread of w, grouped from the bottom up, or empty when
// t is not uniform (every domain at one depth with as many children, every
// slot at the deepest level): its groups would not fit domains of other
// sizes. t holds at least w.size() slots; free slots go to no thread.
// Groups of two are an exact pairing; larger ones a balanced partition
// (partition_items), or with `greedy` grown one after another and refined
// (partition_greedily: no METIS, a tenth of the time on sparse traffic of
// 256 ranks, a few percent less kept).
std::vector<int> place_bottom_up(const Tree& t, const SharingMatrix& w, uint64_t seed, bool greedy);

}  // namespace slurmpin
