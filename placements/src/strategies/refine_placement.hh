// SPDX-License-Identifier: GPL-2.0-or-later
// Swap refinement of a finished placement on the whole-tree objective (the
// sharing kept summed over every level, i.e. the hop cost): the top-down
// cuts decide each level knowing nothing of the levels below, and pairs
// chosen first (lpgp) ignore the levels above; a local search over swaps of
// two threads repairs both. Swaps never change how many threads a domain
// holds, so balance, and the floor of the matrix, are untouched.
#pragma once
#include <vector>

#include "sharing/sharing_matrix.hh"
#include "topology/topology.hh"

namespace slurmpin {

// slot_of[i]: thread i's slot in t (every thread placed, at most one per
// slot). With keep_pairs, no swap may lose sharing kept inside domains of at
// most two slots (lpgp's exact pairs stay optimal). Each pass costs
// O(E x d x s x depth) for d the neighbours tried per thread and s the
// slots of a neighbour's smallest domain.
void refine_placement(const Tree& t, const SharingMatrix& w, std::vector<int>& slot_of, bool keep_pairs);

}  // namespace slurmpin
