// CPU lists in the syntax Slurm, numactl and the kernel use: "0-3,8,10-11".
#pragma once
#include <string>
#include <vector>

namespace slurmpin {

// Parses a list strictly (no spaces, no empty items, no reversed ranges).
// Returns sorted, unique OS indices. Throws Error naming `what` on bad input.
std::vector<unsigned> parse_cpulist(const std::string& text, const std::string& what);

// Formats sorted indices with ranges collapsed: {0,1,2,5} -> "0-2,5".
std::string format_cpulist(const std::vector<unsigned>& cpus);

}  // namespace slurmpin
