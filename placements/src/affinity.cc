// SPDX-License-Identifier: GPL-2.0-or-later
#include "affinity.hh"

namespace slurmpin {

Affinity Affinity::from_rows(const std::vector<std::vector<double>>& rows) {
  Affinity a(static_cast<int>(rows.size()));
  for (int i = 0; i < a.n_; ++i)
    for (int j = i + 1; j < a.n_; ++j) a.set(i, j, rows[i][j] + rows[j][i]);
  return a;
}

double Affinity::total() const {
  double s = 0;
  for (int i = 0; i < n_; ++i)
    for (int j = i + 1; j < n_; ++j) s += (*this)(i, j);
  return s;
}

Affinity Affinity::between(const std::vector<std::vector<int>>& groups) const {
  Affinity g(static_cast<int>(groups.size()));
  for (size_t a = 0; a < groups.size(); ++a)
    for (size_t b = a + 1; b < groups.size(); ++b) {
      double s = 0;
      for (int x : groups[a])
        for (int y : groups[b]) s += (*this)(x, y);
      g.set(static_cast<int>(a), static_cast<int>(b), s);
    }
  return g;
}

Affinity Affinity::subset(const std::vector<int>& items) const {
  Affinity s(static_cast<int>(items.size()));
  for (size_t a = 0; a < items.size(); ++a)
    for (size_t b = a + 1; b < items.size(); ++b)
      s.set(static_cast<int>(a), static_cast<int>(b), (*this)(items[a], items[b]));
  return s;
}

}  // namespace slurmpin
