// SPDX-License-Identifier: GPL-2.0-or-later
// Square sharing matrices as published: one row per thread, entries separated
// by blanks or commas, '#' comments and blank lines allowed.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "affinity.hh"
#include "text_lines.hh"

namespace slurmpin {

// Reads rows from lines[pos...] until a line that is not a matrix row, or
// exactly `expect` rows when expect > 0. Advances pos past them.
std::vector<std::vector<double>> parse_matrix_rows(const std::vector<TextLine>& lines, size_t& pos,
                                                   int expect, const std::string& path);

constexpr size_t kMaxMatrixBytes = 64u << 20;

Affinity read_matrix_file(const std::string& path);
// The same for text already read; `path` names it in errors.
Affinity parse_matrix_text(const std::string& text, const std::string& path);

}  // namespace slurmpin
