// SPDX-License-Identifier: GPL-2.0-or-later
// Sharing weights as the matrix and profile files write them: plain decimal
// numbers, finite, non-negative and at most kMaxWeight; every error names
// the file and line (input/text_lines.hh).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace slurmpin {

// Parses one weight; throws Error naming file and line.
double parse_weight(const std::string& field, const std::string& path, int line);
double parse_weight(const char* field, size_t size, const std::string& path, int line);

// Appends the weights of one line of a matrix (fields split as
// split_fields does) to `out`, each as parse_weight reads it; whole numbers
// of up to 15 digits (what the profiler writes) are read in the scan that
// splits them: a dense matrix of 1024 threads holds a million.
void append_weights(std::string_view text, std::vector<double>& out, const std::string& path, int line);

}  // namespace slurmpin
