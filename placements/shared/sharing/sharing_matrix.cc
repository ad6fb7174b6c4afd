// SPDX-License-Identifier: GPL-2.0-or-later
#include "sharing/sharing_matrix.hh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "error.hh"

namespace slurmpin {

SharingMatrix::SharingMatrix(int n) : n_(n) {
  auto r = std::make_shared<Rows>();
  r->offset.assign(static_cast<size_t>(n) + 1, 0);
  rows_ = std::move(r);
}

// visit(emit) calls emit(i, j, w) for every stored entry, each row's in
// increasing column order; it runs twice: once to count the rows, once to
// fill them in place.
template <class Visit>
SharingMatrix SharingMatrix::with_rows(int n, double floor, Visit visit) {
  std::vector<size_t> sizes(static_cast<size_t>(n), 0);
  visit([&sizes](int i, int, double) { ++sizes[i]; });
  return with_sized_rows(n, floor, sizes, visit);
}

namespace {
// w == floor(w) without a call into libm per entry (x86-64's baseline has no
// rounding instruction): every double from 2^53 up is whole.
bool is_whole(double w) { return std::fabs(w) >= 9007199254740992.0 || w == static_cast<double>(static_cast<int64_t>(w)); }
}  // namespace

template <class Visit>
SharingMatrix SharingMatrix::with_sized_rows(int n, double floor, const std::vector<size_t>& sizes, Visit visit) {
  SharingMatrix a;
  a.n_ = n;
  a.floor_ = floor;
  auto rows = std::make_shared<Rows>();
  Rows& r = *rows;
  r.offset.assign(static_cast<size_t>(n) + 1, 0);
  for (int i = 0; i < n; ++i) r.offset[i + 1] = r.offset[i] + sizes[i];
  r.to.resize(r.offset[n]);
  r.w.resize(r.offset[n]);
  std::vector<size_t> fill(r.offset.begin(), r.offset.end() - 1);
  // Plain pointers and local sums: stores through r's members would be
  // reloaded for every entry (a million in a dense matrix of 1024 threads).
  int* to = r.to.data();
  double* wt = r.w.data();
  size_t* next = fill.data();
  double sum = 0, max = 0;
  bool integral = true;
  visit([&](int i, int j, double w) {
    size_t at = next[i]++;
    to[at] = j, wt[at] = w;
    sum += w;
    max = std::max(max, w);
    integral = integral && is_whole(w);
  });
  r.sum = sum, r.max = max, r.integral = integral;
  a.rows_ = std::move(rows);
  return a;
}

SharingMatrix SharingMatrix::from_pairs(int n, const std::vector<Edge>& pairs, double floor) {
  // Pairs sorted by (i, j) fill every row in increasing neighbour order.
  return with_rows(n, floor, [&pairs](auto&& emit) {
    for (const Edge& e : pairs) emit(e.i, e.j, e.w), emit(e.j, e.i, e.w);
  });
}

namespace {

// Sorts pairs by (i, j): counted into rows by i, then each row sorted by j,
// O(E + sum of r log r) where one sort of every pair costs O(E log E).
void sort_by_row(int n, std::vector<Edge>& pairs) {
  std::vector<size_t> start(static_cast<size_t>(n) + 1, 0);
  for (const Edge& e : pairs) ++start[e.i + 1];
  for (int i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<size_t> fill(start.begin(), start.end() - 1);
  std::vector<Edge> out(pairs.size());
  for (const Edge& e : pairs) out[fill[e.i]++] = e;
  for (int i = 0; i < n; ++i)
    std::sort(out.begin() + start[i], out.begin() + start[i + 1], [](const Edge& a, const Edge& b) { return a.j < b.j; });
  pairs.swap(out);
}

}  // namespace

SharingMatrix SharingMatrix::from_edges(int n, std::vector<Edge> edges) {
  for (Edge& e : edges) {
    if (e.i < 0 || e.j < 0 || e.i >= n || e.j >= n) throw Error("internal: edge outside the matrix");
    if (e.i > e.j) std::swap(e.i, e.j);
  }
  sort_by_row(n, edges);
  std::vector<Edge> pairs;
  for (const Edge& e : edges) {
    if (e.i == e.j || e.w == 0) continue;
    if (!pairs.empty() && pairs.back().i == e.i && pairs.back().j == e.j) pairs.back().w += e.w;
    else pairs.push_back(e);
  }
  return from_pairs(n, pairs, 0);
}

namespace {

// Visits every (i, j != i) with at(i, j) + at(j, i), rows in blocks of kTile
// and, inside a block, each row's columns in increasing order: at(j, i)
// then comes from a kTile x kTile tile already in cache, not from a column
// read down the whole matrix (a dense matrix of 1024 threads is 8 MB).
constexpr int kTile = 64;

template <class At, class F>
void for_each_sym(int n, At at, F&& f) {
  for (int bi = 0; bi < n; bi += kTile) {
    int ei = std::min(n, bi + kTile);
    for (int bj = 0; bj < n; bj += kTile) {
      int ej = std::min(n, bj + kTile);
      for (int i = bi; i < ei; ++i)
        for (int j = bj; j < ej; ++j)
          if (j != i) f(i, j, at(i, j) + at(j, i));
    }
  }
}

// The smallest at(i, j) + at(j, i), i != j (the floor), in the same tiles,
// and how many entries of each row are not above it: they are the ones
// dropped, so the rows' sizes are known without another pass. A counter
// counts for the current smallest only when its stamp is the number of
// times the smallest went down: a new smallest resets every row at once.
template <class At>
double floor_and_sizes(int n, At at, std::vector<size_t>& sizes) {
  double m = std::numeric_limits<double>::infinity();
  std::vector<size_t> at_floor(static_cast<size_t>(n), 0), stamp(static_cast<size_t>(n), 0);
  size_t lowered = 0;
  auto count = [&](int k) {
    if (stamp[k] != lowered) stamp[k] = lowered, at_floor[k] = 0;
    ++at_floor[k];
  };
  for (int bi = 0; bi < n; bi += kTile)
    for (int bj = bi; bj < n; bj += kTile)
      for (int i = bi; i < std::min(n, bi + kTile); ++i)
        for (int j = std::max(bj, i + 1); j < std::min(n, bj + kTile); ++j) {
          double x = at(i, j) + at(j, i);
          if (x > m) continue;
          if (x < m) m = x, ++lowered;
          count(i), count(j);
        }
  sizes.assign(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) sizes[i] = static_cast<size_t>(n - 1) - (stamp[i] == lowered ? at_floor[i] : 0);
  return n > 1 ? m : 0;
}

}  // namespace

// Symmetrised, diagonal dropped, floor taken out, for any at(i, j) = a(i,j):
// the floor and row sizes in one pass over half the matrix, then rows
// filled in place in increasing column order, with no list of pairs in
// between (a dense matrix of 1024 threads has half a million).
template <class At>
SharingMatrix SharingMatrix::from_square(int n, At at) {
  std::vector<size_t> sizes;
  const double fl = floor_and_sizes(n, at, sizes);
  return with_sized_rows(n, fl, sizes, [n, &at, fl](auto&& emit) {
    for_each_sym(n, at, [&emit, fl](int i, int j, double x) {
      if (x > fl) emit(i, j, x - fl);
    });
  });
}

SharingMatrix SharingMatrix::from_dense(const double* rows, int n) {
  return from_square(n, [&](int i, int j) { return rows[static_cast<size_t>(i) * n + j]; });
}

SharingMatrix SharingMatrix::from_rows(const std::vector<std::vector<double>>& rows) {
  std::vector<const double*> row(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) row[i] = rows[i].data();
  return from_square(static_cast<int>(rows.size()), [&](int i, int j) { return row[i][j]; });
}

void SharingMatrix::heaviest(int i, size_t k, std::vector<size_t>& out, const std::vector<double>* less) const {
  Row r = row(i);
  if (less && !less->empty()) {
    // Ranked on w(i,j) - a_j (a_i is the same for the whole row).
    const double* a = less->data();
    return keep_heaviest(r, k, out, [&](size_t e) { return r.w[e] - a[r.to[e]]; });
  }
  keep_heaviest(r, k, out, [&](size_t e) { return r.w[e]; });
}

template <class Value>
void SharingMatrix::keep_heaviest(const Row& r, size_t k, std::vector<size_t>& out, Value value) {
  const size_t want = std::min(k, r.size);
  out.resize(want);
  if (want == 0) return;
  // Entries come in column order, so an equal weight never displaces one
  // already kept: ties keep the lower column, as the order above says.
  // The kept weights sit beside their positions (on the stack for the few
  // the callers ask): an insertion compares them without going through
  // the row, and most entries of a dense row only meet the lightest kept.
  constexpr size_t kOnStack = 32;
  double stack[kOnStack];
  std::vector<double> heap(want > kOnStack ? want : 0);
  double* kw = want > kOnStack ? heap.data() : stack;
  size_t* kept = out.data();
  size_t count = 0;
  // Many asked of a long row (METIS's 16 per item): each of `want` disjoint
  // blocks holds an entry at least the smallest of their maxima, so an
  // entry under it cannot be kept. One pass of maxima spares the insertions
  // of entries that later ones would push out.
  double least = -std::numeric_limits<double>::infinity();
  if (want >= 8 && r.size >= 4 * want) {
    size_t block = r.size / want;
    least = std::numeric_limits<double>::infinity();
    for (size_t b = 0; b < want; ++b) {
      double m = value(b * block);
      for (size_t e = b * block + 1; e < (b + 1) * block; ++e) m = std::max(m, value(e));
      least = std::min(least, m);
    }
  }
  for (size_t e = 0; e < r.size; ++e) {
    double x = value(e);
    if (x < least) continue;
    if (count == want) {
      if (x <= kw[want - 1]) continue;
    } else {
      ++count;
    }
    size_t at = count - 1;
    while (at > 0 && kw[at - 1] < x) kw[at] = kw[at - 1], kept[at] = kept[at - 1], --at;
    kw[at] = x, kept[at] = e;
  }
}

double SharingMatrix::remainder(int i, int j) const {
  Row r = row(i);
  // A full row (every other item, columns in order: dense profiles) holds
  // j at j, or j - 1 past the diagonal.
  if (r.size + 1 == static_cast<size_t>(n_) && i != j) return r.w[j < i ? j : j - 1];
  const int* it = std::lower_bound(r.to, r.to + r.size, j);
  return it != r.to + r.size && *it == j ? r.w[it - r.to] : 0.0;
}

double SharingMatrix::operator()(int i, int j) const { return i == j ? 0.0 : floor_ + remainder(i, j); }

namespace {
std::vector<int> flat(const std::vector<std::vector<int>>& groups) {
  std::vector<int> out;
  for (const auto& g : groups) out.insert(out.end(), g.begin(), g.end());
  return out;
}
}  // namespace

double SharingMatrix::total() const {
  return rows_->sum / 2 + floor_ * (static_cast<double>(n_) * (n_ - 1) / 2);
}

SharingMatrix SharingMatrix::between(const std::vector<std::vector<int>>& groups) const {
  // Single threads (gp, and gplp above its pairs): their rows, without
  // the floor.
  if (std::all_of(groups.begin(), groups.end(), [](const std::vector<int>& g) { return g.size() == 1; })) {
    SharingMatrix a = subset(flat(groups));
    a.floor_ = 0;
    return a;
  }
  std::vector<int> group_of(n_, -1);
  for (size_t g = 0; g < groups.size(); ++g)
    for (int x : groups[g]) group_of[x] = static_cast<int>(g);
  const size_t k = groups.size();
  if (k * k <= 2 * pairs() + static_cast<size_t>(n_)) {
    // As dense as the groups' own matrix (a dense profile cut into pairs):
    // one accumulator per group pair, each pair of items read once, from
    // its lower end. O(n + E + k^2), no more than the rows themselves.
    std::vector<double> sum(k * k, 0);
    for (int x = 0; x < n_; ++x) {
      int g = group_of[x];
      if (g < 0) continue;
      Row r = row(x);
      for (size_t e = static_cast<size_t>(std::upper_bound(r.to, r.to + r.size, x) - r.to); e < r.size; ++e) {
        int h = group_of[r.to[e]];
        if (h >= 0 && h != g) sum[static_cast<size_t>(std::min(g, h)) * k + static_cast<size_t>(std::max(g, h))] += r.w[e];
      }
    }
    std::vector<Edge> pairs;
    for (size_t g = 0; g < k; ++g)
      for (size_t h = g + 1; h < k; ++h)
        if (sum[g * k + h] > 0) pairs.push_back({static_cast<int>(g), static_cast<int>(h), sum[g * k + h]});
    return from_pairs(static_cast<int>(k), pairs, 0);
  }
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

SharingMatrix SharingMatrix::subset(const std::vector<int>& items) const {
  // Every item in order: the rows themselves, shared (a dense matrix of
  // 1024 threads has half a million pairs).
  bool identity = static_cast<int>(items.size()) == n_;
  for (size_t k = 0; identity && k < items.size(); ++k) identity = items[k] == static_cast<int>(k);
  if (identity) return *this;
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
  // Rows come in order, but their columns need not when the items are not
  // in increasing order: sort for from_pairs.
  if (!std::is_sorted(items.begin(), items.end())) sort_by_row(static_cast<int>(items.size()), pairs);
  return from_pairs(static_cast<int>(items.size()), pairs, floor_);
}

SharingMatrix SharingMatrix::strongest(size_t k, const std::vector<double>& less) const {
  if (k == 0) return SharingMatrix(n_);
  // Each row's choice (k at most; -1 past the row's end), as columns and
  // their weights.
  std::vector<int> to(static_cast<size_t>(n_) * k, -1);
  std::vector<double> w(to.size(), 0);
  std::vector<size_t> order;
  for (int i = 0; i < n_; ++i) {
    heaviest(i, k, order, &less);
    Row r = row(i);
    for (size_t c = 0; c < order.size(); ++c) {
      int j = r.to[order[c]];
      to[i * k + c] = j, w[i * k + c] = r.w[order[c]] - (less.empty() ? 0 : less[i] + less[j]);
    }
  }
  auto chose = [&](int x, int y) { return std::find(&to[x * k], &to[x * k] + k, y) != &to[x * k] + k; };
  // A pair chosen from both ends is taken from its lower one.
  std::vector<Edge> pairs;
  for (int i = 0; i < n_; ++i)
    for (size_t c = i * k; c < (i + 1) * k && to[c] >= 0; ++c)
      if (i < to[c] || !chose(to[c], i)) pairs.push_back({std::min(i, to[c]), std::max(i, to[c]), w[c]});
  sort_by_row(n_, pairs);
  return from_pairs(n_, pairs, 0);
}

std::vector<Edge> SharingMatrix::edges() const {
  std::vector<Edge> out;
  for (int i = 0; i < n_; ++i) {
    Row r = row(i);
    for (size_t k = 0; k < r.size; ++k)
      if (r.to[k] > i) out.push_back({i, r.to[k], r.w[k]});
  }
  return out;
}

}  // namespace slurmpin
