// SPDX-License-Identifier: GPL-2.0-or-later
// The thread x thread sharing matrix (seed 001 eq. 5.1): symmetric, zero
// diagonal, non-negative. A file may hold an asymmetric matrix (the
// read/write model weighs directions differently); w(i,j) = a(i,j) + a(j,i).
//
// Stored as a floor shared by every pair plus a sparse remainder (CSR, each
// pair in both rows): memory O(threads + pairs above the floor). Real sharing
// matrices are sparse (threads share with neighbours) or nearly uniform
// (everybody reads the same data); both are small this way. The floor never
// changes which balanced placement is best: every placement with the same
// number of threads per domain keeps the same amount of it, so the
// algorithms work on the remainder and only scores add the floor back.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

namespace slurmpin {

// Largest entry accepted from a user: sums over any number of pairs stay finite.
constexpr double kMaxWeight = 1e100;

struct Edge {
  int i, j;
  double w;
};

class SharingMatrix {
 public:
  struct Row {
    const int* to;
    const double* w;
    size_t size;
  };

  SharingMatrix() : SharingMatrix(0) {}
  explicit SharingMatrix(int n);
  // Entries (i, j, w) summed per unordered pair; the diagonal and zeros are
  // dropped. O(E + sum of each row's r log r).
  static SharingMatrix from_edges(int n, std::vector<Edge> edges);
  // A dense square matrix, row-major; symmetrised, diagonal dropped, floor
  // taken out. O(n^2) time, O(n + remainder) memory.
  static SharingMatrix from_dense(const double* rows, int n);
  static SharingMatrix from_rows(const std::vector<std::vector<double>>& rows);

  int size() const { return n_; }
  double floor() const { return floor_; }
  // Pairs stored above the floor.
  size_t pairs() const { return rows_->to.size() / 2; }
  Row row(int i) const {
    const Rows& r = *rows_;
    return {r.to.data() + r.offset[i], r.w.data() + r.offset[i], r.offset[i + 1] - r.offset[i]};
  }
  // The positions in row i of its k heaviest entries, heaviest first (ties:
  // lower column first), into `out`. One pass over the row with a k-entry
  // insertion list: a dense row costs one comparison per entry.
  // With `less` (potentials a, sharing/potentials.hh), ranked on
  // w(i,j) - a_i - a_j.
  void heaviest(int i, size_t k, std::vector<size_t>& out, const std::vector<double>* less = nullptr) const;
  // w(i,j) including the floor; O(log degree).
  double operator()(int i, int j) const;
  double remainder(int i, int j) const;
  // Sum over unordered pairs i<j, floor included. O(1): kept when built.
  double total() const;
  // The largest stored remainder, and whether every one is a whole number
  // (the matching's integer weights); O(1).
  double max_remainder() const { return rows_->max; }
  bool integral() const { return rows_->integral; }
  bool all_zero() const { return total() <= 0.0; }
  // The remainder between groups: W'(A,B) = sum of remainder(a,b). The floor
  // is dropped: it adds |A||B| floor, the same for every balanced cut.
  SharingMatrix between(const std::vector<std::vector<int>>& groups) const;
  // The matrix restricted to `items` (distinct), renumbered 0..k-1; keeps the
  // floor. All items in order share this matrix's rows.
  SharingMatrix subset(const std::vector<int>& items) const;
  // Each item's k heaviest pairs (heaviest()) and the pairs that chose it,
  // as remainders, floor 0: the strong structure of a dense matrix, each
  // row O(k) on average. O(E + n k^2). With potentials `less`, ranked and
  // weighed w(i,j) - a_i - a_j.
  SharingMatrix strongest(size_t k, const std::vector<double>& less = {}) const;
  // Every pair as (i < j, remainder), in row order.
  std::vector<Edge> edges() const;

 private:
  static SharingMatrix from_pairs(int n, const std::vector<Edge>& pairs, double floor);
  template <class Value>
  static void keep_heaviest(const Row& r, size_t k, std::vector<size_t>& out, Value value);
  template <class At>
  static SharingMatrix from_square(int n, At at);
  template <class Visit>
  static SharingMatrix with_rows(int n, double floor, Visit visit);
  // The same when each row's size is known (sizes[i] entries in row i):
  // visit runs once.
  template <class Visit>
  static SharingMatrix with_sized_rows(int n, double floor, const std::vector<size_t>& sizes, Visit visit);

  struct Rows {
    std::vector<size_t> offset;
    std::vector<int> to;
    std::vector<double> w;
    // Of `w`, gathered while it is filled: callers ask for them on every
    // placement, and a dense matrix of 1024 threads has a million entries.
    double sum = 0, max = 0;
    bool integral = true;
  };
  int n_ = 0;
  double floor_ = 0;
  // Shared by copies: an SharingMatrix never changes once built, and requests,
  // regions and callers copy a matrix of half a million pairs freely.
  std::shared_ptr<const Rows> rows_;
};

}  // namespace slurmpin
