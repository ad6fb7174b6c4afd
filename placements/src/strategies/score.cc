// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/score.hh"

#include <algorithm>

namespace slurmpin {

namespace {

// Sharing of threads 0..n-1 of one task kept inside one domain of each
// thread, for every level at once (`domain[k][i]`: thread i's domain of
// level k, -1: none): the remainder over the pairs stored, in one pass over
// them, plus the floor once per pair of threads in one domain. O(n + E x
// levels), the matrix read once.
void add_kept(const SharingMatrix& w, const std::vector<std::vector<int>>& domain, std::vector<LevelScore>& s,
              int nodes) {
  int n = domain.empty() ? 0 : static_cast<int>(domain[0].size());
  size_t levels = domain.size();
  std::vector<double> kept(levels, 0), count(static_cast<size_t>(nodes), 0);
  double total = 0;
  for (int i = 0; i < n; ++i) {
    SharingMatrix::Row r = w.row(i);
    for (size_t e = 0; e < r.size; ++e) {
      int j = r.to[e];
      if (j <= i || j >= n) continue;
      total += r.w[e];
      for (size_t k = 0; k < levels; ++k)
        if (domain[k][i] >= 0 && domain[k][i] == domain[k][j]) kept[k] += r.w[e];
    }
  }
  double floor_pairs = static_cast<double>(n) * (n - 1) / 2;
  for (size_t k = 0; k < levels; ++k) {
    s[k].total += total + w.floor() * floor_pairs;
    s[k].kept += kept[k];
    std::vector<int> seen;
    for (int i = 0; i < n; ++i)
      if (domain[k][i] >= 0 && count[domain[k][i]]++ == 0) seen.push_back(domain[k][i]);
    for (int d : seen) s[k].kept += w.floor() * (count[d] * (count[d] - 1) / 2), count[d] = 0;
  }
}

}  // namespace

std::vector<LevelScore> score_levels(const Tree& t,
                                     const std::vector<std::vector<int>>& slot_of_thread,
                                     const SharingMatrix* w) {
  std::vector<LevelScore> out;
  for (const auto& kind : t.kinds()) {
    if (kind == "PU") continue;
    LevelScore s;
    s.kind = kind;
    for (const auto& d : t.nodes) s.domains += d.has_kind(kind);
    out.push_back(s);
  }
  if (!w) return out;
  for (const auto& task : slot_of_thread) {
    size_t n = std::min(task.size(), static_cast<size_t>(w->size()));
    std::vector<std::vector<int>> domain(out.size(), std::vector<int>(n, -1));
    for (size_t k = 0; k < out.size(); ++k)
      for (size_t i = 0; i < n; ++i)
        if (task[i] >= 0) domain[k][i] = t.ancestor_of_kind(task[i], out[k].kind);
    add_kept(*w, domain, out, static_cast<int>(t.nodes.size()));
  }
  return out;
}

double quality(const std::vector<LevelScore>& levels) {
  double q = 0;
  for (const auto& l : levels) q += l.kept;
  return q;
}

}  // namespace slurmpin
