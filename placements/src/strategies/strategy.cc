// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/strategy.hh"

#include "error.hh"

namespace slurmpin {

const std::vector<StrategyInfo>& all_strategies() {
  static const std::vector<StrategyInfo> list = {
      {Strategy::kNone, "none", false, "no binding: the OS scheduler places threads"},
      {Strategy::kCompact, "compact", false,
       "thread n+1 on the free core closest to thread n (fills shared caches first)"},
      {Strategy::kScatter, "scatter", false,
       "threads spread round-robin over the outermost domains (packages, NUMA nodes) first"},
      {Strategy::kRandom, "random", false, "a seeded random permutation of the cores"},
      {Strategy::kLpCompact, "lp-compact", true,
       "optimal pairs of threads (max-weight matching), pairs placed compact"},
      {Strategy::kLpScatter, "lp-scatter", true,
       "optimal pairs of threads, pairs spread over the outermost domains"},
      {Strategy::kGp, "gp", true,
       "threads partitioned (METIS) onto the outermost shared caches, compact inside each"},
      {Strategy::kLpgp, "lpgp", true,
       "optimal pairs first, then pairs partitioned level by level down the cache tree"},
      {Strategy::kGplp, "gplp", true,
       "threads partitioned level by level, optimal pairs where two cores share a cache"},
      {Strategy::kFile, "file:PATH", false, "explicit CPUs per task and thread from a placement file"},
  };
  return list;
}

const StrategyInfo& strategy_info(Strategy s) {
  for (const auto& i : all_strategies())
    if (i.id == s) return i;
  throw Error("internal: unknown strategy");
}

Strategy parse_strategy(const std::string& text, std::string* path) {
  if (text.rfind("file:", 0) == 0) {
    if (text.size() == 5) throw Error("strategy file: needs a path (write file:/path/to/placement)");
    if (path) *path = text.substr(5);
    return Strategy::kFile;
  }
  for (const auto& i : all_strategies())
    if (text == i.name && i.id != Strategy::kFile) return i.id;
  std::string names;
  for (const auto& i : all_strategies()) names += (names.empty() ? "" : "|") + std::string(i.name);
  throw Error("unknown strategy '" + text + "': use one of " + names + " (or 'help')");
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
