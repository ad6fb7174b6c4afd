// SPDX-License-Identifier: GPL-2.0-or-later
// A sharing matrix as a PNG heatmap, drawn by matplotlib (slurm-pin-heatmap):
// a title, each thread's number and start routine along both axes, and
// colours relative to the pair that shares most (dark red), so the pairs
// that matter stand out whatever the rest. Each cell's own value is
// written in it up to 16 threads: where the profile recorded each thread's
// accesses, as a share of all the run's accesses (so little sharing reads as
// little), else as counted. The caption says what a cell counts and the
// scale's top.
#pragma once
#include <string>
#include <vector>

namespace slurmpin {

// `names`: each row's label after its number (a thread's start routine;
// empty: numbers alone).
void write_heatmap_png(const std::vector<std::vector<double>>& m, const std::vector<double>& thread_accesses,
                       const std::string& title, const std::string& unit, const std::string& path,
                       const std::string& axis = "thread", const std::vector<std::string>& names = {});

}  // namespace slurmpin
