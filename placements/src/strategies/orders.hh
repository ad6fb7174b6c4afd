// SPDX-License-Identifier: GPL-2.0-or-later
// Application-independent slot orders (seed 000 section 3; the icc/KMP
// definitions): compact fills the closest slots first, scatter spreads
// round-robin over the outermost domains first, random is a seeded shuffle.
#pragma once
#include <cstdint>
#include <vector>

#include "topology/topology.hh"

namespace slurmpin {

std::vector<int> compact_order(const Tree& t, int node);
// Interleaves the children's scatter orders, one slot from each in turn: on a
// regular tree this is KMP's scatter (the address read least-significant
// level first); on an irregular one, children that run out are skipped.
std::vector<int> scatter_order(const Tree& t, int node);
// Fisher-Yates with a 64-bit Mersenne Twister and rejection sampling, so a
// seed gives the same order with every compiler and library.
std::vector<int> random_order(std::vector<int> slots, uint64_t seed);

}  // namespace slurmpin
