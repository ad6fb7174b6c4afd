// SPDX-License-Identifier: GPL-2.0-or-later
// A sharing matrix as a PNG heatmap, drawn by matplotlib (slurm-pin-heatmap), with a title, thread numbers along both
// axes and a colour scale whose unit (what a cell counts) is written under
// the matrix. The scale is absolute when the profile recorded each thread's
// accesses (white: the pair shares nothing, dark red: every access of the
// less active thread goes to lines both touch), so a profile with little
// sharing looks pale; without them, relative to the largest entry, and the
// caption says so.
#pragma once
#include <string>
#include <vector>

namespace slurmpin {

void write_heatmap_png(const std::vector<std::vector<double>>& m, const std::vector<double>& thread_accesses,
                       const std::string& title, const std::string& unit, const std::string& path,
                       const std::string& axis = "thread");

}  // namespace slurmpin
