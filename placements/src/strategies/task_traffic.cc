// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/task_traffic.hh"

#include <algorithm>
#include <map>

#include "error.hh"
#include "strategies/profile_guided.hh"

namespace slurmpin {

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
  std::vector<int> slot_of = place_profile_guided(of_shares, traffic, strategy, seed);
  std::vector<std::vector<int>> out(shares.size());
  for (size_t task = 0; task < shares.size(); ++task) {
    auto it = share_of.find(of_shares.origin_of(slot_of[task]));
    if (it == share_of.end()) throw Error("internal: a task was placed outside the shares");
    out[task] = shares[it->second];
  }
  return out;
}

}  // namespace slurmpin
