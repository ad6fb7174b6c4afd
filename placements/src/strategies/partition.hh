// SPDX-License-Identifier: GPL-2.0-or-later
// Balanced k-way partitioning of weighted items (threads, or pairs of
// threads) maximising the sharing kept inside parts: METIS k-way for the
// first cut, then an exact repair to the requested part sizes and
// Kernighan-Lin style swaps that never break those sizes.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "sharing/sharing_matrix.hh"

namespace slurmpin {

// Returns part[i] for every item. sum over part p of weight[i] == target[p]
// whenever the weights allow it; throws Error when they cannot (a pair that
// fits in no part), so the caller can split pairs and retry.
std::vector<int> partition_items(const SharingMatrix& w, const std::vector<int>& weight,
                                 const std::vector<int>& target, uint64_t seed);

// The same from a greedy start (parts grown one after another over each
// item's strongest edges, as EagerMap groups threads), then refined: no
// METIS; the start costs O(n^2 + k n), whatever the matrix's density.
std::vector<int> partition_greedily(const SharingMatrix& w, const std::vector<int>& weight,
                                    const std::vector<int>& target);

// Whether no part can take two items: nothing can then be kept together,
// every assignment that fits is as good, and the matrix is not read.
bool nothing_to_keep(const std::vector<int>& weight, const std::vector<int>& target);

// Sharing kept inside parts, of w's remainder (cuts of the same sizes keep the
// same share of the floor).
double kept_weight(const SharingMatrix& w, const std::vector<int>& part);

// The part that keeps most of up to `starts` tries: start(s) gives try s's
// part, kept(part) what it keeps; the first of equals wins. A try that
// keeps `bound` (what no part can beat: keep_bound) ends the search, the
// later ones could only tie it. On block-structured sets (threads that
// share in groups a part holds whole) that is the first try.
template <class Start, class Kept>
std::vector<int> best_of_starts(int starts, double bound, Start start, Kept kept) {
  std::vector<int> best;
  double best_kept = -1;
  for (int s = 0; s < starts && best_kept < bound; ++s) {
    std::vector<int> part = start(s);
    double k = kept(part);
    if (k > best_kept) best_kept = k, best = std::move(part);
  }
  return best;
}

}  // namespace slurmpin
