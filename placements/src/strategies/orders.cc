// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/orders.hh"

#include <random>

namespace slurmpin {

std::vector<int> compact_order(const Tree& t, int node) { return t.slots_below(node); }

std::vector<int> scatter_order(const Tree& t, int node) {
  const Domain& d = t.nodes[node];
  if (d.is_slot()) return {node};
  std::vector<std::vector<int>> parts;
  for (int c : d.children) parts.push_back(scatter_order(t, c));
  std::vector<int> out;
  for (size_t round = 0; out.size() < static_cast<size_t>(d.slots); ++round)
    for (const auto& p : parts)
      if (round < p.size()) out.push_back(p[round]);
  return out;
}

std::vector<int> random_order(std::vector<int> slots, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t i = slots.size(); i > 1; --i) {
    uint64_t bound = i, limit = UINT64_MAX - UINT64_MAX % bound, x;
    do x = rng(); while (x >= limit);
    std::swap(slots[i - 1], slots[x % bound]);
  }
  return slots;
}

}  // namespace slurmpin
