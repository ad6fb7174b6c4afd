// SPDX-License-Identifier: GPL-2.0-or-later
// Parsing of command-line values shared by the slurm-pin commands.
#pragma once
#include <cstdint>
#include <string>

#include "slurm_pin_options.h"

namespace slurmpin {

// A whole number from lo to hi given to `option`; throws Error naming both.
long parse_count(const std::string& option, const std::string& text, long lo, long hi);

// smt:k (--smt, --pin-smt): hardware threads used per core, 1 to kMaxSmt.
constexpr long kMaxSmt = SP_MAX_SMT;
int parse_smt(const std::string& text);

// --seed: any 64-bit whole number.
uint64_t parse_seed(const std::string& text);

// OMP_NUM_THREADS as a task's thread count: "8", or one count per nesting
// level ("8,2" or "8, 2": the first level is the task's). 0 when empty.
int parse_omp_num_threads(const std::string& value);

}  // namespace slurmpin
