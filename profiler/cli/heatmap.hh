// SPDX-License-Identifier: GPL-2.0-or-later
// A sharing matrix as a PNG heatmap (white: no sharing, dark red: the most).
#pragma once
#include <string>
#include <vector>

namespace slurmpin {

void write_heatmap_png(const std::vector<std::vector<double>>& m, const std::string& path);

}  // namespace slurmpin
