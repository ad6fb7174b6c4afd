// SPDX-License-Identifier: GPL-2.0-or-later
// The output formats of `slurm-pin place`, from a computed placement read
// through the C API (as the plugin and `slurm-pin run` read theirs).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "slurm_pin_frontend.h"

namespace slurmpin {

struct OutputContext {
  sp_placement_t* placement;  // computed
  std::string strategy_name;  // as the user wrote it
  uint64_t seed;
};

// text (for people), json, omp (OMP_PLACES per task), likwid (likwid-pin -c
// list per task), placement (a placement file). Throws Error for others.
std::string format_result(const std::string& format, const OutputContext& c);

// Ranks across nodes (slurm-pin place --nodes): hostfile (one node name per
// rank, in rank order, for SLURM_HOSTFILE and srun --distribution=arbitrary),
// text (each node's ranks and the traffic crossing nodes against Slurm's
// block and cyclic orders) or json.
std::string format_rank_nodes(const std::string& format, const std::vector<std::string>& names,
                              const std::vector<int>& node_of, const sp_rank_traffic& t);

}  // namespace slurmpin
