// SPDX-License-Identifier: GPL-2.0-or-later
// The output formats of `slurm-pin place`.
#pragma once
#include <string>

#include "engine.hh"

namespace slurmpin {

struct OutputContext {
  const Request& request;
  const Result& result;
  std::string strategy_name;
};

// text (for people), json, omp (OMP_PLACES per task), likwid (likwid-pin -c
// list per task), placement (a placement file). Throws Error for others.
std::string format_result(const std::string& format, const OutputContext& c);

}  // namespace slurmpin
