// SPDX-License-Identifier: GPL-2.0-or-later
// The reference the exact pairing is checked against, in the unit tests and
// in bench/placement: every (near-)perfect matching enumerated.
#pragma once
#include <algorithm>
#include <vector>

#include "sharing/sharing_matrix.hh"

namespace slurmpin::test {

// The heaviest pairing of the items in `free` (left as it was found).
inline double best_pairing(const SharingMatrix& w, std::vector<int>& free) {
  if (free.size() < 2) return 0;
  int a = free.back();
  free.pop_back();
  double best = 0;
  if (free.size() % 2 == 0) best = best_pairing(w, free);  // `a` stays single (odd count)
  for (size_t k = 0; k < free.size(); ++k) {
    int b = free[k];
    free.erase(free.begin() + k);
    best = std::max(best, w(a, b) + best_pairing(w, free));
    free.insert(free.begin() + k, b);
  }
  free.push_back(a);
  return best;
}

// The heaviest pairing of all of w's items.
inline double brute_force_pairing(const SharingMatrix& w) {
  std::vector<int> all(w.size());
  for (int i = 0; i < w.size(); ++i) all[i] = i;
  return best_pairing(w, all);
}

}  // namespace slurmpin::test
