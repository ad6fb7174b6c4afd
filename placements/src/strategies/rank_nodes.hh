// SPDX-License-Identifier: GPL-2.0-or-later
// MPI ranks across nodes by their traffic: which node each rank runs on,
// as srun --distribution=arbitrary takes it (SLURM_HOSTFILE), so that the
// pairs that exchange most stay inside a node's shared memory. Each node
// gets as many ranks as Slurm's block distribution gives it; only which
// ranks changes.
#pragma once
#include <cstdint>
#include <vector>

#include "sharing/sharing_matrix.hh"

namespace slurmpin {

struct RankNodes {
  std::vector<int> node_of;          // by rank
  double total = 0;                  // all traffic (each pair once)
  double crossing = 0;               // between ranks on different nodes
  double block = 0, cyclic = 0;      // the same for Slurm's block and cyclic orders
};

// `traffic` (ranks x ranks) over `nodes` nodes: block sizes (the first
// ranks % nodes nodes one rank more), parts by balanced partitioning
// (partition.hh), numbered so that each node keeps as many of its block
// ranks as it can (a rank order close to block where traffic allows).
// Throws Error for fewer ranks than nodes.
RankNodes ranks_to_nodes(const SharingMatrix& traffic, int nodes, uint64_t seed);

}  // namespace slurmpin
