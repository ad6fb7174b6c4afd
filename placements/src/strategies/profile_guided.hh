// SPDX-License-Identifier: GPL-2.0-or-later
// Profile-guided placements (seed 001 section 5.2.2.3, algorithms 3-5),
// generalised to any tree: where a domain's children are single cores, the
// threads are laid out in order; where its children hold at most two cores
// each (a cache shared by a pair), threads are paired exactly; elsewhere
// they are partitioned k-way with METIS, sizes proportional to capacity.
#pragma once
#include <cstdint>
#include <vector>

#include "sharing/sharing_matrix.hh"
#include "strategies/strategy.hh"
#include "topology/topology.hh"

namespace slurmpin {

// Slot (node of t) of every thread of w, for lp-compact, lp-scatter, gp,
// lpgp or gplp. t must hold at least w.size() slots.
std::vector<int> place_profile_guided(const Tree& t, const SharingMatrix& w, Strategy s, uint64_t seed);

// Whether some domain of t holds exactly two slots (a cache shared by a
// pair of cores): where exact pairing pays.
bool has_pair_level(const Tree& t);

// Thread counts per child, proportional to capacity, in multiples of
// `granule` where capacities allow (largest remainder), summing to n.
std::vector<int> proportional_targets(int n, const std::vector<int>& capacity, int granule);

}  // namespace slurmpin
