// SPDX-License-Identifier: GPL-2.0-or-later
#include "score.hh"

namespace slurmpin {

std::vector<LevelScore> score_levels(const Tree& t,
                                     const std::vector<std::vector<int>>& slot_of_thread,
                                     const Affinity* w) {
  std::vector<LevelScore> out;
  for (const auto& kind : t.kinds()) {
    if (kind == "PU") continue;
    LevelScore s;
    s.kind = kind;
    for (const auto& d : t.nodes) s.domains += d.has_kind(kind);
    if (w) {
      for (const auto& task : slot_of_thread) {
        std::vector<int> domain;
        for (int slot : task) domain.push_back(slot < 0 ? -1 : t.ancestor_of_kind(slot, kind));
        for (size_t i = 0; i < task.size(); ++i)
          for (size_t j = i + 1; j < task.size(); ++j) {
            double x = (*w)(static_cast<int>(i), static_cast<int>(j));
            s.total += x;
            if (domain[i] >= 0 && domain[i] == domain[j]) s.kept += x;
          }
      }
    }
    out.push_back(s);
  }
  return out;
}

double quality(const std::vector<LevelScore>& levels) {
  double q = 0;
  for (const auto& l : levels) q += l.kept;
  return q;
}

}  // namespace slurmpin
