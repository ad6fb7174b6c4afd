// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/profile_guided.hh"

#include <algorithm>
#include <numeric>

#include "error.hh"
#include "sharing/matching.hh"
#include "strategies/orders.hh"
#include "strategies/partition.hh"
#include "strategies/refine_placement.hh"

namespace slurmpin {

namespace {

using Unit = std::vector<int>;  // threads that must stay together

std::vector<Unit> pair_units(const SharingMatrix& w, const std::vector<int>& threads) {
  Pairing p = max_weight_pairing(w.subset(threads));
  std::vector<Unit> units;
  for (const auto& e : p.pairs) units.push_back({threads[e.first], threads[e.second]});
  if (p.single >= 0) units.push_back({threads[p.single]});
  return units;
}

std::vector<int> flatten(const std::vector<Unit>& units) {
  std::vector<int> out;
  for (const auto& u : units) out.insert(out.end(), u.begin(), u.end());
  return out;
}

std::vector<Unit> singletons(const std::vector<int>& threads) {
  std::vector<Unit> out;
  for (int t : threads) out.push_back({t});
  return out;
}

std::vector<int> iota_vector(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// Groups of `size` neighbouring slots, the groups in scatter order.
std::vector<std::vector<int>> scatter_groups(const Tree& t, int node, size_t size) {
  const Domain& d = t.nodes[node];
  if (d.is_slot()) return {{node}};
  bool leaves = std::all_of(d.children.begin(), d.children.end(),
                            [&](int c) { return t.nodes[c].is_slot(); });
  std::vector<std::vector<int>> out;
  if (leaves) {
    for (size_t i = 0; i < d.children.size(); i += size)
      out.emplace_back(d.children.begin() + i,
                       d.children.begin() + std::min(i + size, d.children.size()));
    return out;
  }
  std::vector<std::vector<std::vector<int>>> parts;
  for (int c : d.children) parts.push_back(scatter_groups(t, c, size));
  for (size_t round = 0;; ++round) {
    bool any = false;
    for (const auto& p : parts)
      if (round < p.size()) out.push_back(p[round]), any = true;
    if (!any) break;
  }
  return out;
}

class Hierarchy {
 public:
  Hierarchy(const Tree& t, const SharingMatrix& w, uint64_t seed, bool pair_at_bottom)
      : t_(t), w_(w), seed_(seed), pair_at_bottom_(pair_at_bottom), slot_(w.size(), -1),
        pair_below_(t.nodes.size(), 0), stop_(t.nodes.size(), 0) {
    mark_pairs(t.root);
  }

  std::vector<int> run(std::vector<Unit> units) {
    descend(t_.root, std::move(units));
    return slot_;
  }

  // Cuts `units` down the tree only as far as `domains`, where each
  // domain's threads are laid out compact in thread order: GP. The levels
  // above the domains are cut one by one (recursive partitioning, as METIS
  // does for many parts) so that domains under one package or group get
  // the threads that share most.
  std::vector<int> run_to(const std::vector<int>& domains, std::vector<Unit> units) {
    for (int d : domains) stop_[d] = 1;
    descend(t_.root, std::move(units));
    return slot_;
  }

 private:
  // pair_below_[n]: n or a domain under it holds exactly two slots.
  bool mark_pairs(int node) {
    const Domain& d = t_.nodes[node];
    bool any = !d.is_slot() && d.slots == 2;
    for (int c : d.children) any |= mark_pairs(c);
    pair_below_[node] = any;
    return any;
  }

  void lay_out(const std::vector<int>& slots, const std::vector<int>& threads) {
    for (size_t i = 0; i < threads.size(); ++i) slot_[threads[i]] = slots[i];
  }

  void descend(int node, std::vector<Unit> units) {
    const Domain& d = t_.nodes[node];
    std::vector<int> threads = flatten(units);
    if (threads.empty()) return;
    if (stop_[node]) {
      std::sort(threads.begin(), threads.end());
      lay_out(compact_order(t_, node), threads);
      return;
    }
    bool leaves = std::all_of(d.children.begin(), d.children.end(),
                              [&](int c) { return t_.nodes[c].is_slot(); });
    if (d.is_slot() || leaves) {  // Assign (algorithm 3): threads in unit order
      lay_out(compact_order(t_, node), threads);
      return;
    }
    if (d.children.size() == 1) return descend(d.children[0], std::move(units));
    bool pair_level = std::all_of(d.children.begin(), d.children.end(),
                                  [&](int c) { return t_.nodes[c].slots <= 2; });
    if (pair_at_bottom_ && pair_level) units = pair_units(w_, threads);
    auto parts = split(d.children, std::move(units));
    for (size_t p = 0; p < d.children.size(); ++p) descend(d.children[p], std::move(parts[p]));
  }

  // k-way cut of units over domains, sizes proportional to capacity.
  std::vector<std::vector<Unit>> split(const std::vector<int>& domains, std::vector<Unit> units) {
    std::vector<int> capacity;
    for (int c : domains) capacity.push_back(t_.nodes[c].slots);
    int n = static_cast<int>(flatten(units).size());
    bool pairs = std::any_of(units.begin(), units.end(), [](const Unit& u) { return u.size() > 1; });
    // With room to spare, even counts go where a cache below holds a pair of
    // slots, so that no pair of threads is torn by an odd share.
    int room = std::accumulate(capacity.begin(), capacity.end(), 0);
    bool even = pairs || (n < room && std::any_of(domains.begin(), domains.end(), [&](int c) { return pair_below_[c]; }));
    std::vector<int> target = proportional_targets(n, capacity, even ? 2 : 1);
    std::vector<int> part;
    try {
      part = cut(units, target);
    } catch (const Error&) {
      // Odd capacities can leave no room for a whole pair: split the pairs.
      units = singletons(flatten(units));
      part = cut(units, proportional_targets(n, capacity, 1));
    }
    std::vector<std::vector<Unit>> out(domains.size());
    for (size_t u = 0; u < units.size(); ++u) out[part[u]].push_back(std::move(units[u]));
    return out;
  }

  std::vector<int> cut(const std::vector<Unit>& units, const std::vector<int>& target) {
    std::vector<int> weight;
    for (const auto& u : units) weight.push_back(static_cast<int>(u.size()));
    // One unit per domain (pairs onto the caches of two cores): no sharing
    // to weigh, so the units' matrix is not built.
    if (nothing_to_keep(weight, target))
      return partition_items(SharingMatrix(static_cast<int>(units.size())), weight, target, seed_);
    return partition_items(w_.between(units), weight, target, seed_);
  }

  const Tree& t_;
  const SharingMatrix& w_;
  uint64_t seed_;
  bool pair_at_bottom_;
  std::vector<int> slot_;
  std::vector<char> pair_below_;
  std::vector<char> stop_;  // GP's domains: cut no further
};

// GP's level: the outermost cache shared by several cores, else NUMA nodes,
// else packages, else the whole set.
std::vector<int> gp_domains(const Tree& t) {
  for (const char* kind : {"L5", "L4", "L3", "L2", "L1", "NUMANode", "Package"}) {
    std::vector<int> found;
    for (int s : t.slots()) {
      int a = t.ancestor_of_kind(s, kind);
      if (a < 0 || t.nodes[a].slots < 2) {
        found.clear();
        break;
      }
      if (std::find(found.begin(), found.end(), a) == found.end()) found.push_back(a);
    }
    if (found.size() > 1) return found;
  }
  return {t.root};
}

std::vector<int> place_pairs(const Tree& t, const SharingMatrix& w, bool scatter) {
  std::vector<Unit> units = pair_units(w, iota_vector(w.size()));
  std::vector<int> slot(w.size(), -1);
  if (!scatter) {
    std::vector<int> order = compact_order(t, t.root), threads = flatten(units);
    for (size_t i = 0; i < threads.size(); ++i) slot[threads[i]] = order[i];
    return slot;
  }
  // Pairs onto pair groups in scatter order; what does not fit a pair group
  // (the odd thread, pairs beyond the groups) takes the free slots after.
  std::vector<std::vector<int>> groups = scatter_groups(t, t.root, 2);
  std::vector<char> used(t.nodes.size(), 0);
  std::vector<int> rest;
  size_t g = 0;
  for (const auto& u : units) {
    while (g < groups.size() && groups[g].size() < u.size()) ++g;
    if (u.size() == 2 && g < groups.size()) {
      for (size_t i = 0; i < 2; ++i) slot[u[i]] = groups[g][i], used[groups[g][i]] = 1;
      ++g;
    } else {
      rest.insert(rest.end(), u.begin(), u.end());
    }
  }
  std::vector<int> free;
  for (const auto& grp : groups)
    for (int s : grp)
      if (!used[s]) free.push_back(s);
  for (size_t i = 0; i < rest.size(); ++i) slot[rest[i]] = free[i];
  return slot;
}

}  // namespace

bool has_pair_level(const Tree& t) {
  return std::any_of(t.nodes.begin(), t.nodes.end(), [](const Domain& d) { return !d.is_slot() && d.slots == 2; });
}

std::vector<int> proportional_targets(int n, const std::vector<int>& capacity, int granule) {
  int total = std::accumulate(capacity.begin(), capacity.end(), 0);
  int k = static_cast<int>(capacity.size());
  int units = n / granule, extra = n % granule;
  std::vector<int> room(k), got(k, 0);
  for (int i = 0; i < k; ++i) room[i] = capacity[i] / granule;
  if (granule > 1 && std::accumulate(room.begin(), room.end(), 0) < units)
    return proportional_targets(n, capacity, 1);
  // Largest remainder, bounded by room.
  std::vector<double> share(k);
  int given = 0;
  for (int i = 0; i < k; ++i) {
    share[i] = static_cast<double>(units) * capacity[i] / total;
    got[i] = std::min(room[i], static_cast<int>(share[i]));
    given += got[i];
  }
  while (given < units) {
    int best = -1;
    for (int i = 0; i < k; ++i)
      if (got[i] < room[i] && (best < 0 || share[i] - got[i] > share[best] - got[best])) best = i;
    got[best]++, given++;
  }
  std::vector<int> target(k);
  for (int i = 0; i < k; ++i) target[i] = got[i] * granule;
  if (extra) {  // the odd thread goes where most room is left
    int best = 0;
    for (int i = 1; i < k; ++i)
      if (capacity[i] - target[i] > capacity[best] - target[best]) best = i;
    target[best] += extra;
  }
  return target;
}

std::vector<int> place_profile_guided(const Tree& t, const SharingMatrix& w, Strategy s, uint64_t seed) {
  if (t.nodes[t.root].slots < w.size()) throw Error("internal: more threads than slots");
  std::vector<int> all = iota_vector(w.size());
  switch (s) {
    case Strategy::kLpCompact: return place_pairs(t, w, false);
    case Strategy::kLpScatter: return place_pairs(t, w, true);
    case Strategy::kGp: {
      // Refined afterwards like the others: GP decides which domain a thread
      // joins; inside a domain (and above it) swaps that keep every
      // domain's count can only keep more.
      std::vector<int> slot = Hierarchy(t, w, seed, false).run_to(gp_domains(t), singletons(all));
      refine_placement(t, w, slot, false);
      return slot;
    }
    case Strategy::kLpgp: {
      // Pairs first only pay where a cache holds exactly a pair of slots.
      bool pairs = has_pair_level(t);
      std::vector<int> slot = Hierarchy(t, w, seed, false).run(pairs ? pair_units(w, all) : singletons(all));
      refine_placement(t, w, slot, true);
      return slot;
    }
    case Strategy::kGplp: {
      // With room to spare, whole pairs cost the cuts no balance: gplp then
      // keeps lp-compact's optimal pairs too (odd counts, restricted sets).
      bool room = w.size() < t.nodes[t.root].slots && has_pair_level(t);
      std::vector<int> slot = Hierarchy(t, w, seed, true).run(room ? pair_units(w, all) : singletons(all));
      refine_placement(t, w, slot, room);
      return slot;
    }
    default: throw Error("internal: not a profile-guided strategy");
  }
}

}  // namespace slurmpin
