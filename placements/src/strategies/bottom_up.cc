// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/bottom_up.hh"

#include <algorithm>

#include "sharing/matching.hh"
#include "strategies/orders.hh"
#include "strategies/partition.hh"

namespace slurmpin {

namespace {

using Group = std::vector<int>;

// The tree's domains by depth (the root at 0, the slots last), or empty
// when it is not uniform.
std::vector<std::vector<int>> uniform_levels(const Tree& t) {
  std::vector<std::vector<int>> levels{{t.root}};
  while (!t.nodes[levels.back()[0]].is_slot()) {
    size_t arity = t.nodes[levels.back()[0]].children.size();
    std::vector<int> next;
    for (int n : levels.back()) {
      if (t.nodes[n].children.size() != arity) return {};
      next.insert(next.end(), t.nodes[n].children.begin(), t.nodes[n].children.end());
    }
    levels.push_back(std::move(next));
  }
  for (int n : levels.back())
    if (!t.nodes[n].is_slot()) return {};
  return levels;
}

// The units of w in groups of `size` that keep most inside them: an exact
// pairing for pairs, a balanced partition (or a greedy one) otherwise.
std::vector<Group> group_units(const SharingMatrix& w, int size, uint64_t seed, bool greedy) {
  int count = w.size() / size;
  std::vector<Group> groups;
  if (size == 2) {
    for (const auto& p : max_weight_pairing(w).pairs) groups.push_back({p.first, p.second});
    if (static_cast<int>(groups.size()) == count) return groups;
    groups.clear();
  }
  std::vector<int> ones(w.size(), 1), sizes(count, size);
  std::vector<int> part = greedy ? partition_greedily(w, ones, sizes) : partition_items(w, ones, sizes, seed);
  groups.resize(count);
  for (int u = 0; u < w.size(); ++u) groups[part[u]].push_back(u);
  return groups;
}

}  // namespace

std::vector<int> place_bottom_up(const Tree& t, const SharingMatrix& w, uint64_t seed, bool greedy) {
  std::vector<std::vector<int>> levels = uniform_levels(t);
  int slots = t.nodes[t.root].slots;
  if (levels.empty() || w.size() > slots) return {};
  // Free slots as threads that share nothing: every group then fills its
  // domain, and they land wherever least is lost. (The matrix's floor, what
  // every pair shares, stays out: it would only pack the real threads.)
  SharingMatrix m = w.size() < slots ? SharingMatrix::from_edges(slots, w.edges()) : w;
  std::vector<Group> items;  // per unit: its threads, in slot order
  for (int i = 0; i < slots; ++i) items.push_back({i});
  // Each level's domains group the units of the level below.
  for (size_t depth = levels.size() - 1; depth-- > 1;) {
    int size = static_cast<int>(t.nodes[levels[depth][0]].children.size());
    if (size == 1) continue;
    std::vector<Group> groups = group_units(m, size, seed, greedy);
    std::vector<Group> merged;
    for (const Group& g : groups) {
      Group threads;
      for (int u : g) threads.insert(threads.end(), items[u].begin(), items[u].end());
      merged.push_back(std::move(threads));
    }
    items = std::move(merged);
    m = m.between(groups);
  }
  // A uniform tree's slots in depth-first order are its domains' blocks in
  // order: the units' threads laid out one after the other fill them.
  std::vector<int> order = compact_order(t, t.root), slot(w.size(), -1);
  size_t at = 0;
  for (const Group& g : items)
    for (int thread : g) {
      if (thread < w.size()) slot[thread] = order[at];
      ++at;
    }
  return slot;
}

}  // namespace slurmpin
