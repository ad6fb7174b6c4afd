// SPDX-License-Identifier: GPL-2.0-or-later
// A sharing matrix as a PNG heatmap (white: no sharing, dark red: the most),
// with a title, thread numbers along both axes and a colour scale.
#pragma once
#include <string>
#include <vector>

namespace slurmpin {

void write_heatmap_png(const std::vector<std::vector<double>>& m, const std::string& title, const std::string& path);

}  // namespace slurmpin
