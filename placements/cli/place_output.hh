// SPDX-License-Identifier: GPL-2.0-or-later
// The output formats of `slurm-pin place`, from a computed placement read
// through the C API (as the plugin and `slurm-pin run` read theirs).
#pragma once
#include <cstdint>
#include <string>

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

}  // namespace slurmpin
