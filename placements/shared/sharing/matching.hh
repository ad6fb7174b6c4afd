// SPDX-License-Identifier: GPL-2.0-or-later
// Exact maximum-weight pairing of threads (the LP step of seed 001, section
// 5.2.2.3): Edmonds' blossom algorithm from LEMON, run on a sparse candidate
// graph and proven optimal on the complete graph with LEMON's dual solution.
#pragma once
#include <utility>
#include <vector>

#include "sharing/sharing_matrix.hh"

namespace slurmpin {

struct Pairing {
  std::vector<std::pair<int, int>> pairs;  // first < second, sorted by first
  int single = -1;                         // the unpaired item when n is odd
  int rounds = 0;                          // matching runs until the certificate held
};

// Pairs every item (n/2 pairs; one single when n is odd) maximising the sum of
// w over pairs. Weights are scaled to integers below 2^40 first, so the result
// is exact for integer matrices and to 2^-40 relative precision otherwise.
// `candidates` is how many heaviest edges per item the first run sees; the
// certificate adds whatever else the optimum needs (each later run the
// heaviest failing pairs, as many per item), so it changes speed only. Four:
// on the bench's dense, block, stencil and random matrices the first run
// (one, rarely two) finds the optimum with a third of the edges twelve give.
Pairing max_weight_pairing(const SharingMatrix& w, int candidates = 4);

// Weight of a pairing under w.
double pairing_weight(const SharingMatrix& w, const Pairing& p);

}  // namespace slurmpin
