// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/task_traffic.hh"

#include <algorithm>
#include <map>

#include "error.hh"
#include "strategies/profile_guided.hh"
#include "strategies/score.hh"

namespace slurmpin {

std::vector<int> place_by_traffic(const Tree& t, const SharingMatrix& traffic, uint64_t seed) {
  // gplp cuts the levels first; lpgp pairs first, which wins where pairs
  // of ranks exchange most and loses up to a seventh of a level's traffic
  // where they do not (bench/placement/ranks). Where cores pair under a
  // cache, both run and the one keeping more over all levels (the
  // strategies' own objective) is taken; elsewhere lpgp cuts as gplp does.
  std::vector<int> best = place_profile_guided(t, traffic, Strategy::kGplp, seed);
  if (!has_pair_level(t)) return best;
  std::vector<int> paired = place_profile_guided(t, traffic, Strategy::kLpgp, seed);
  auto kept = [&](const std::vector<int>& slot) { return quality(score_levels(t, {slot}, &traffic)); };
  return kept(paired) > kept(best) ? paired : best;
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
