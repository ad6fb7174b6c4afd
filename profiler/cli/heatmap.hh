// SPDX-License-Identifier: GPL-2.0-or-later
// A sharing matrix as a PNG heatmap (white: no sharing, dark red: the most),
// with a title, thread numbers along both axes and a colour scale whose
// unit (what a cell counts) is written under the matrix.
#pragma once
#include <string>
#include <vector>

namespace slurmpin {

void write_heatmap_png(const std::vector<std::vector<double>>& m, const std::string& title, const std::string& unit,
                       const std::string& path);

}  // namespace slurmpin
