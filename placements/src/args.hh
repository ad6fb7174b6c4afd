// SPDX-License-Identifier: GPL-2.0-or-later
// Parsing of command-line values shared by the slurm-pin commands.
#pragma once
#include <string>

namespace slurmpin {

// A whole number from lo to hi given to `option`; throws Error naming both.
long parse_count(const std::string& option, const std::string& text, long lo, long hi);

}  // namespace slurmpin
