// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/strategy.hh"

#include "error.hh"
#include "slurm_pin_options.h"

namespace slurmpin {

// The names, their order and their help are the options' list
// (slurm_pin_options.h), which srun checks without the engine.
const std::vector<StrategyInfo>& all_strategies() {
  static const std::vector<StrategyInfo> list = [] {
    std::vector<StrategyInfo> l;
    for (int i = 0; i < sp_strategy_rows(); ++i) {
      const auto* row = sp_strategy_row(i);
      l.push_back({static_cast<Strategy>(i), row->name, row->needs_profile != 0, row->help});
    }
    return l;
  }();
  return list;
}

const StrategyInfo& strategy_info(Strategy s) {
  for (const auto& i : all_strategies())
    if (i.id == s) return i;
  throw Error("internal: unknown strategy");
}

Strategy parse_strategy(const std::string& text, std::string* path) {
  char err[512];
  int i = sp_strategy_of(text.c_str(), err, sizeof err);
  if (i < 0) throw Error(err);
  Strategy s = static_cast<Strategy>(i);
  if (s == Strategy::kFile && path) *path = text.substr(5);
  return s;
}

std::string strategies_help() {
  std::string out;
  for (const auto& i : all_strategies()) {
    std::string name = i.name;
    name.resize(12, ' ');
    out += "  " + name + i.help + (i.needs_matrix ? " [needs a profile]" : "") + "\n";
  }
  return out;
}

}  // namespace slurmpin
