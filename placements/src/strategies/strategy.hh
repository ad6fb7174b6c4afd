// SPDX-License-Identifier: GPL-2.0-or-later
// The strategies users name on the command line and in --pin-strategy.
#pragma once
#include <string>
#include <vector>

namespace slurmpin {

// In the order of the options' list (slurm_pin_options.h).
enum class Strategy { kNone, kCompact, kScatter, kRandom, kLpCompact, kLpScatter, kGp, kLpgp, kGplp, kFile };

struct StrategyInfo {
  Strategy id;
  const char* name;
  bool needs_matrix;
  const char* help;
};

const std::vector<StrategyInfo>& all_strategies();
const StrategyInfo& strategy_info(Strategy s);
// Accepts every name of all_strategies() and "file:PATH" (PATH returned in
// *path). Throws Error listing the valid names otherwise.
Strategy parse_strategy(const std::string& text, std::string* path);
// One line per strategy, for `help`.
std::string strategies_help();

}  // namespace slurmpin
