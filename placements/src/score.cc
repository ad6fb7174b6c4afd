// SPDX-License-Identifier: GPL-2.0-or-later
#include "score.hh"

#include <map>

namespace slurmpin {

namespace {

// Sharing of threads 0..n-1 of one task kept inside one domain of each
// thread (`domain`, -1: none): the remainder over the pairs stored, plus
// the floor once per pair of threads in one domain. O(n + E).
void add_kept(const Affinity& w, const std::vector<int>& domain, LevelScore& s) {
  int n = static_cast<int>(domain.size());
  std::map<int, double> per_domain;
  for (int i = 0; i < n; ++i) {
    if (domain[i] >= 0) per_domain[domain[i]] += 1;
    Affinity::Row r = w.row(i);
    for (size_t e = 0; e < r.size; ++e) {
      int j = r.to[e];
      if (j <= i || j >= n) continue;
      s.total += r.w[e];
      if (domain[i] >= 0 && domain[i] == domain[j]) s.kept += r.w[e];
    }
  }
  s.total += w.floor() * (static_cast<double>(n) * (n - 1) / 2);
  for (const auto& d : per_domain) s.kept += w.floor() * (d.second * (d.second - 1) / 2);
}

}  // namespace

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
        for (size_t i = 0; i < task.size() && static_cast<int>(i) < w->size(); ++i)
          domain.push_back(task[i] < 0 ? -1 : t.ancestor_of_kind(task[i], kind));
        add_kept(*w, domain, s);
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
