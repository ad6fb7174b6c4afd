// SPDX-License-Identifier: GPL-2.0-or-later
// What each thread shares with everybody: potentials a with
// w(u,v) ~ c + a_u + a_v, fitted on a dense matrix's row means. Some threads
// of a real profile share more with all others (CG: every thread reads the
// vector, the main thread reads more of it); their pairs then top every
// thread's list of heaviest pairs, and a sparse graph of those lists (the
// pairing's candidates, METIS's edges) says little about who shares with
// whom beyond that. Ranked on w(u,v) - a_u - a_v instead, each thread's
// list holds what it shares with one other.
//
// A pairing in which every item has a partner, and a cut into parts of
// fixed sizes, lose the same sum of a whatever they choose, so their optima
// do not move; the potentials are lowered alike until no pair is below zero.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "sharing/sharing_matrix.hh"

namespace slurmpin {

// How far the row means must spread beyond their noise (in variance) for
// the matrix to count as additive.
constexpr double kAdditiveSpread = 8;

// Calls f(v) for every item v > u whose pair with u is not stored (at the
// floor, 0 in the remainder): each such pair once, from its lower end.
// O(n - u) for a row that is not full.
template <class F>
void for_each_missing_above(const SharingMatrix& w, int u, F f) {
  SharingMatrix::Row r = w.row(u);
  if (r.size + 1 >= static_cast<size_t>(w.size())) return;
  size_t e = static_cast<size_t>(std::upper_bound(r.to, r.to + r.size, u) - r.to);
  for (int v = u + 1; v < w.size(); ++v) {
    if (e < r.size && r.to[e] == v) ++e;
    else f(v);
  }
}

// Potentials of w's remainder as `scale` gives it (a remainder x weighs
// scale(x); T is what scale returns), with a_u + a_v <= scale(w(u,v)) for
// every pair, pairs at the floor included. Empty for sparse matrices (fewer
// than half the pairs above the floor: walking the floor's pairs, here and
// in the pairing's certificate, costs O(n^2), which is O(E) only for dense
// ones), fewer than 4 items or no clear additive structure: there the
// strongest pairs say enough as they are. O(E + n^2), n^2 <= 4 E.
// (Dense with pairs at the floor: MG's profiles, a quarter of their pairs
// there; their optimal pairing then certifies on the first blossom run.)
template <class T, class Scale>
std::vector<T> sharing_potentials(const SharingMatrix& w, Scale scale) {
  const int n = w.size();
  const size_t all_pairs = static_cast<size_t>(n) * static_cast<size_t>(n - 1) / 2;
  if (n < 4 || 2 * w.pairs() < all_pairs) return {};
  // A row's mean is c + a_u (n - 2) / (n - 1) + (sum of a) / (n - 1).
  std::vector<double> fit(n);
  double all = 0, noise = 0;
  for (int u = 0; u < n; ++u) {
    SharingMatrix::Row r = w.row(u);
    double sum = 0, squares = 0;
    for (size_t e = 0; e < r.size; ++e) {
      double x = r.w[e];
      sum += x, squares += x * x;
    }
    double mean = sum / (n - 1);
    fit[u] = mean * (n - 1) / (n - 2), all += fit[u] / n;
    noise += std::max(0.0, squares / (n - 1) - mean * mean) / (n - 2) / n;
  }
  // The means carry what each pair shares alone too: without an additive
  // structure the fit is that noise, and lists ranked on it are worse than
  // on w itself. So potentials only where the means spread well beyond
  // what that noise gives (CG's profiles: 17-170x; MG's blocks up to 3.4x,
  // random matrices 1x), each fitted value keeping the share of its spread
  // the noise does not explain (shrinkage, as empirical Bayes estimates do).
  double spread = 0;
  for (int u = 0; u < n; ++u) spread += (fit[u] - all) * (fit[u] - all) / n;
  // (Values near the double range square to infinity: no potentials.)
  if (!std::isfinite(spread) || !std::isfinite(noise) || spread <= 0 || spread < kAdditiveSpread * noise) return {};
  double keep = 1 - noise / spread;
  std::vector<T> a(n);
  for (int u = 0; u < n; ++u) a[u] = scale(keep * (fit[u] - all));
  T over = std::numeric_limits<T>::lowest();
  for (int u = 0; u < n; ++u) {
    SharingMatrix::Row r = w.row(u);
    for (size_t e = 0; e < r.size; ++e) over = std::max(over, a[u] + a[r.to[e]] - scale(r.w[e]));
    for_each_missing_above(w, u, [&](int v) { over = std::max(over, a[u] + a[v]); });
  }
  // Halved, rounded up for integers: then a_u + a_v <= w(u,v) holds exactly.
  T down = over / 2;
  if (down + down < over) down += 1;
  for (T& x : a) x -= down;
  return a;
}

}  // namespace slurmpin
