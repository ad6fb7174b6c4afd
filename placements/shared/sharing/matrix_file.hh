// SPDX-License-Identifier: GPL-2.0-or-later
// Sharing matrices: square ones as published (one row per thread, entries
// separated by blanks or commas), or sparse edge lists ('slurm-pin-edges 1',
// 'threads N', then 'I J W' per sharing pair); '#' comments and blank lines
// allowed in both (docs/formats.md).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "sharing/sharing_matrix.hh"
#include "input/text_lines.hh"

namespace slurmpin {

// Reads rows from lines[pos...] until a line that is not a matrix row, or
// exactly `expect` rows when expect > 0. Advances pos past them.
std::vector<std::vector<double>> parse_matrix_rows(const std::vector<TextLine>& lines, size_t& pos,
                                                   int expect, const std::string& path,
                                                   const std::string& item = "thread");

// Whether lines[pos...] start with `expect` (> 0) lines that look like
// rows, as parse_matrix_rows reads them; if so, advances pos past them
// (where parse_matrix_rows would stop), else leaves it.
// `item`: what a row and an id stand for in messages ("thread", "rank").
bool skip_matrix_rows(const std::vector<TextLine>& lines, size_t& pos, int expect);

// Reads edge lines 'I J W' from lines[pos...] until a line that does not
// start with a number: thread ids below `threads`, I != J, W a weight.
// Advances pos past them. Memory O(lines).
std::vector<Edge> parse_edge_lines(const std::vector<TextLine>& lines, size_t& pos, int threads,
                                   const std::string& path, const std::string& item = "thread");

// The most threads an edge list may declare: as many as the most CPUs
// slurm-pin binds, so a list costs O(threads + edges) whatever it claims.
constexpr int kMaxEdgeThreads = 65536;
constexpr char kEdgesHeader[] = "slurm-pin-edges";

constexpr size_t kMaxMatrixBytes = 64u << 20;

SharingMatrix read_matrix_file(const std::string& path);
// The same for text already read; `path` names it in errors.
SharingMatrix parse_matrix_text(const std::string& text, const std::string& path);

}  // namespace slurmpin
