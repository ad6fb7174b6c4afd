// SPDX-License-Identifier: GPL-2.0-or-later
// The thread x thread sharing matrix (seed 001 eq. 5.1): symmetric, zero
// diagonal, non-negative. A file may hold an asymmetric matrix (the
// read/write model weighs directions differently); w(i,j) = a(i,j) + a(j,i).
#pragma once
#include <cstddef>
#include <vector>

namespace slurmpin {

class Affinity {
 public:
  Affinity() = default;
  explicit Affinity(int n) : n_(n), w_(static_cast<size_t>(n) * n, 0.0) {}
  // From a square matrix (rows); symmetrises and drops the diagonal.
  static Affinity from_rows(const std::vector<std::vector<double>>& rows);

  int size() const { return n_; }
  double operator()(int i, int j) const { return w_[static_cast<size_t>(i) * n_ + j]; }
  void set(int i, int j, double v) {
    w_[static_cast<size_t>(i) * n_ + j] = v;
    w_[static_cast<size_t>(j) * n_ + i] = v;
  }
  // Sum over unordered pairs i<j.
  double total() const;
  bool all_zero() const { return total() <= 0.0; }
  // The matrix between groups: W'(A,B) = sum of w(a,b), a in A, b in B.
  Affinity between(const std::vector<std::vector<int>>& groups) const;
  // The matrix restricted to `items`, renumbered 0..k-1.
  Affinity subset(const std::vector<int>& items) const;

 private:
  int n_ = 0;
  std::vector<double> w_;
};

}  // namespace slurmpin
