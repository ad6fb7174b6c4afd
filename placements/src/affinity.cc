// SPDX-License-Identifier: GPL-2.0-or-later
#include "affinity.hh"

#include <algorithm>
#include <limits>

#include "error.hh"

namespace slurmpin {

Affinity Affinity::from_pairs(int n, const std::vector<Edge>& pairs, double floor) {
  Affinity a(n);
  a.floor_ = floor;
  for (const Edge& e : pairs) ++a.offset_[e.i + 1], ++a.offset_[e.j + 1];
  for (int i = 0; i < n; ++i) a.offset_[i + 1] += a.offset_[i];
  a.to_.resize(a.offset_[n]);
  a.w_.resize(a.offset_[n]);
  std::vector<size_t> fill(a.offset_.begin(), a.offset_.end() - 1);
  // Pairs sorted by (i, j) fill every row in increasing neighbour order.
  for (const Edge& e : pairs) {
    a.to_[fill[e.i]] = e.j, a.w_[fill[e.i]++] = e.w;
    a.to_[fill[e.j]] = e.i, a.w_[fill[e.j]++] = e.w;
  }
  return a;
}

Affinity Affinity::from_edges(int n, std::vector<Edge> edges) {
  for (Edge& e : edges) {
    if (e.i < 0 || e.j < 0 || e.i >= n || e.j >= n) throw Error("internal: edge outside the matrix");
    if (e.i > e.j) std::swap(e.i, e.j);
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return a.i != b.i ? a.i < b.i : a.j < b.j;
  });
  std::vector<Edge> pairs;
  for (const Edge& e : edges) {
    if (e.i == e.j || e.w == 0) continue;
    if (!pairs.empty() && pairs.back().i == e.i && pairs.back().j == e.j) pairs.back().w += e.w;
    else pairs.push_back(e);
  }
  return from_pairs(n, pairs, 0);
}

Affinity Affinity::from_dense(const double* rows, int n) {
  auto at = [&](int i, int j) { return rows[static_cast<size_t>(i) * n + j] + rows[static_cast<size_t>(j) * n + i]; };
  double floor = n > 1 ? std::numeric_limits<double>::infinity() : 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) floor = std::min(floor, at(i, j));
  std::vector<Edge> pairs;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      double r = at(i, j) - floor;
      if (r > 0) pairs.push_back({i, j, r});
    }
  return from_pairs(n, pairs, floor);
}

Affinity Affinity::from_rows(const std::vector<std::vector<double>>& rows) {
  int n = static_cast<int>(rows.size());
  std::vector<double> dense(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i) std::copy(rows[i].begin(), rows[i].end(), dense.begin() + static_cast<size_t>(i) * n);
  return from_dense(dense.data(), n);
}

double Affinity::remainder(int i, int j) const {
  const int* b = to_.data() + offset_[i];
  const int* e = to_.data() + offset_[i + 1];
  const int* it = std::lower_bound(b, e, j);
  return it != e && *it == j ? w_[static_cast<size_t>(it - to_.data())] : 0.0;
}

double Affinity::operator()(int i, int j) const { return i == j ? 0.0 : floor_ + remainder(i, j); }

double Affinity::total() const {
  double s = 0;
  for (double x : w_) s += x;
  return s / 2 + floor_ * (static_cast<double>(n_) * (n_ - 1) / 2);
}

Affinity Affinity::between(const std::vector<std::vector<int>>& groups) const {
  std::vector<int> group_of(n_, -1);
  for (size_t g = 0; g < groups.size(); ++g)
    for (int x : groups[g]) group_of[x] = static_cast<int>(g);
  // One accumulator per group pair seen from group g: O(n + E) overall.
  std::vector<double> acc(groups.size(), 0);
  std::vector<int> touched;
  std::vector<Edge> pairs;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (int x : groups[g]) {
      Row r = row(x);
      for (size_t k = 0; k < r.size; ++k) {
        int h = group_of[r.to[k]];
        if (h <= static_cast<int>(g)) continue;
        if (acc[h] == 0) touched.push_back(h);
        acc[h] += r.w[k];
      }
    }
    std::sort(touched.begin(), touched.end());
    for (int h : touched) pairs.push_back({static_cast<int>(g), h, acc[h]}), acc[h] = 0;
    touched.clear();
  }
  return from_pairs(static_cast<int>(groups.size()), pairs, 0);
}

Affinity Affinity::subset(const std::vector<int>& items) const {
  std::vector<int> index(n_, -1);
  for (size_t k = 0; k < items.size(); ++k) index[items[k]] = static_cast<int>(k);
  std::vector<Edge> pairs;
  for (size_t k = 0; k < items.size(); ++k) {
    Row r = row(items[k]);
    for (size_t e = 0; e < r.size; ++e) {
      int m = index[r.to[e]];
      if (m > static_cast<int>(k)) pairs.push_back({static_cast<int>(k), m, r.w[e]});
    }
  }
  // Rows of a subset need not come in the items' order: sort for from_pairs.
  std::sort(pairs.begin(), pairs.end(), [](const Edge& a, const Edge& b) {
    return a.i != b.i ? a.i < b.i : a.j < b.j;
  });
  return from_pairs(static_cast<int>(items.size()), pairs, floor_);
}

std::vector<Edge> Affinity::edges() const {
  std::vector<Edge> out;
  for (int i = 0; i < n_; ++i) {
    Row r = row(i);
    for (size_t k = 0; k < r.size; ++k)
      if (r.to[k] > i) out.push_back({i, r.to[k], r.w[k]});
  }
  return out;
}

}  // namespace slurmpin
