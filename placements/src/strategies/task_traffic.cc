// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/task_traffic.hh"

#include <algorithm>
#include <map>

#include "error.hh"
#include "strategies/bottom_up.hh"
#include "strategies/profile_guided.hh"
#include "strategies/score.hh"

namespace slurmpin {

namespace {

// Ranks from which, where no cores pair under a cache, the default groups
// greedily (place_by_traffic).
constexpr int kGreedyFrom = 256;

// Whether `levels` keeps at least as much as `floor` at every level.
bool keeps_every_level(const std::vector<LevelScore>& levels, const std::vector<LevelScore>& floor) {
  for (size_t l = 0; l < levels.size(); ++l)
    if (levels[l].kept < floor[l].kept * (1 - 1e-12)) return false;
  return true;
}

// Of `cuts`, the one keeping most over all levels among those keeping at
// least `floor` at every level (any, without a floor); -1 when none does.
int best_cut(const Tree& t, const SharingMatrix& w, const std::vector<std::vector<int>>& cuts,
             const std::vector<LevelScore>* floor) {
  int best = -1;
  double best_sum = 0;
  for (size_t c = 0; c < cuts.size(); ++c) {
    std::vector<LevelScore> levels = score_levels(t, {cuts[c]}, &w);
    if (floor && !keeps_every_level(levels, *floor)) continue;
    if (best < 0 || quality(levels) > best_sum) best = static_cast<int>(c), best_sum = quality(levels);
  }
  return best;
}

}  // namespace

std::vector<int> place_by_traffic(const Tree& t, const SharingMatrix& traffic, uint64_t seed) {
  // Where no cores pair under a cache, from kGreedyFrom ranks, the groups
  // grown greedily from the cores up: METIS's cuts alone took longer than
  // TreeMatch's whole mapping there, and the greedy groups keep 1.2 to 3.5
  // times TreeMatch's traffic at every level (gplp's hop cost is up to 11%
  // lower; --pin-strategy / --strategy gplp asks for it).
  bool pairs = has_pair_level(t);
  if (!pairs && traffic.size() >= kGreedyFrom) {
    std::vector<int> groups = place_bottom_up(t, traffic, seed, true);
    if (!groups.empty()) return groups;
  }
  // gplp cuts from the root down; lpgp pairs first, which wins where pairs
  // of ranks exchange most. Both may give up a lower level for a little
  // more kept above it (gplp on random partners: the L2 pairs 10% below
  // TreeMatch's for 0.02% more in sum). Grouping from the cores up, as
  // TreeMatch does, keeps the lower levels first: a cut is taken only where
  // it keeps at least as much as the groups at every level, else the
  // groups (bench/placement/ranks).
  std::vector<std::vector<int>> cuts{place_profile_guided(t, traffic, Strategy::kGplp, seed)};
  if (pairs) cuts.push_back(place_profile_guided(t, traffic, Strategy::kLpgp, seed));
  std::vector<int> groups = place_bottom_up(t, traffic, seed, false);
  if (groups.empty()) return std::move(cuts[best_cut(t, traffic, cuts, nullptr)]);
  std::vector<LevelScore> floor = score_levels(t, {groups}, &traffic);
  int c = best_cut(t, traffic, cuts, &floor);
  return c < 0 ? groups : std::move(cuts[c]);
}

std::vector<std::vector<int>> shares_by_traffic(const Tree& tree, const std::vector<std::vector<int>>& shares,
                                                const SharingMatrix& traffic, Strategy strategy, uint64_t seed,
                                                std::string* why) {
  why->clear();
  if (traffic.size() != static_cast<int>(shares.size()))
    throw Error("the task matrix describes " + std::to_string(traffic.size()) + " tasks but " +
                std::to_string(shares.size()) + " are placed here");
  if (shares.size() < 2) return shares;
  // Each share's first slot stands for it; distinct unless shares overlap.
  std::vector<int> reps;
  std::map<int, size_t> share_of;  // original slot -> share
  for (size_t i = 0; i < shares.size(); ++i) {
    if (shares[i].empty() || share_of.count(shares[i].front())) {
      *why = "tasks share slots (more tasks than slots): placed in rank order";
      return shares;
    }
    share_of[shares[i].front()] = i;
    reps.push_back(shares[i].front());
  }
  Tree of_shares = tree.restricted_to(reps);
  std::vector<int> slot_of = strategy_info(strategy).needs_matrix ? place_profile_guided(of_shares, traffic, strategy, seed)
                                                                  : place_by_traffic(of_shares, traffic, seed);
  std::vector<std::vector<int>> out(shares.size());
  for (size_t task = 0; task < shares.size(); ++task) {
    auto it = share_of.find(of_shares.origin_of(slot_of[task]));
    if (it == share_of.end()) throw Error("internal: a task was placed outside the shares");
    out[task] = shares[it->second];
  }
  return out;
}

}  // namespace slurmpin
