// SPDX-License-Identifier: GPL-2.0-or-later
#include "sharing/matching.hh"

#include <lemon/matching.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "sharing/potentials.hh"

namespace slurmpin {

namespace {

using Graph = lemon::SmartGraph;
using Weight = long long;
using Matcher = lemon::MaxWeightedMatching<Graph, Graph::EdgeMap<Weight>>;

constexpr double kScaleLimit = 1099511627776.0;  // 2^40

// Integer weights of w's remainder (the floor adds the same to every
// near-perfect pairing): as given when they already are integers in range,
// else scaled so the largest is 2^40. Read from w's rows where needed: a
// dense matrix of 1024 threads has half a million pairs, none copied.
struct IntEdge {
  int u, v;
  Weight w;
};

class IntWeights {
 public:
  explicit IntWeights(const SharingMatrix& w) {
    double max = w.max_remainder();
    scale_ = (w.integral() && max <= kScaleLimit) || max == 0 ? 1.0 : kScaleLimit / max;
  }
  // Whole numbers in range are taken as they are (no rounding call per pair).
  Weight operator()(double x) const { return scale_ == 1.0 ? static_cast<Weight>(x) : std::llround(x * scale_); }
  bool whole() const { return scale_ == 1.0; }
  double unscaled(Weight x) const { return static_cast<double>(x) / scale_; }

 private:
  double scale_ = 1.0;
};

// The weights the blossom algorithm sees: w(u,v) - a_u - a_v
// (sharing/potentials.hh). Every item is in one pair, so every pairing loses
// the same sum of a and the optimum is the same; no pair is below zero, so
// a maximum matching still pairs what is left at no loss. With an odd count
// one item stays single and the loss would depend on which: none there.
// Pairs at the floor are not stored, so neither candidates nor the
// certificate would see one that weighs something here: walked too.
class ReducedWeights {
 public:
  ReducedWeights(const SharingMatrix& w, const IntWeights& iw)
      : w_(w), iw_(iw), a_(w.size() % 2 ? std::vector<Weight>() : sharing_potentials<Weight>(w, iw)) {
    if (a_.empty()) a_.assign(w.size(), 0);
    else
      for (Weight x : a_) less_.push_back(iw.unscaled(x));
  }
  // The potentials in w's units, for ranking a row; null when there are none.
  const std::vector<double>* less() const { return less_.empty() ? nullptr : &less_; }
  Weight operator()(int u, int v, double x) const { return iw_(x) - a_[u] - a_[v]; }
  // The potentials, in the blossom algorithm's units (0 when none).
  Weight a(int u) const { return a_[u]; }
  const IntWeights& integer() const { return iw_; }
  // Calls f(v, weight) for u's pairs at the floor, v > u, that weigh more
  // than zero here.
  template <class F>
  void missing_above(int u, F f) const {
    if (less_.empty()) return;
    for_each_missing_above(w_, u, [&](int v) {
      if (-a_[u] - a_[v] > 0) f(v, -a_[u] - a_[v]);
    });
  }

 private:
  const SharingMatrix& w_;
  const IntWeights& iw_;
  std::vector<Weight> a_;
  std::vector<double> less_;  // empty: no potentials
};

// The heaviest few edges of every item (reduced weights): the optimum
// almost always lies here. Each pair with its lower end first.
std::vector<IntEdge> candidate_edges(const SharingMatrix& w, const ReducedWeights& rw, int per_item) {
  std::vector<IntEdge> chosen;
  std::vector<size_t> order;
  for (int u = 0; u < w.size(); ++u) {
    w.heaviest(u, static_cast<size_t>(per_item), order, rw.less());
    SharingMatrix::Row r = w.row(u);
    for (size_t e : order) {
      Weight x = rw(u, r.to[e], r.w[e]);
      if (x > 0) chosen.push_back({std::min(u, r.to[e]), std::max(u, r.to[e]), x});
    }
  }
  return chosen;
}

void sort_unique(std::vector<IntEdge>& edges) {
  std::sort(edges.begin(), edges.end(), [](const IntEdge& a, const IntEdge& b) {
    return a.u != b.u ? a.u < b.u : a.v < b.v;
  });
  edges.erase(std::unique(edges.begin(), edges.end(),
                          [](const IntEdge& a, const IntEdge& b) { return a.u == b.u && a.v == b.v; }),
              edges.end());
}

// The blossom algorithm's result for every item: the matching and its
// dual (y per item, z per blossom, the blossoms holding each item).
struct Solution {
  explicit Solution(int n) : mate(n, -1), y(n, 0), blossoms_of(n) {}
  std::vector<int> mate;  // -1 when unmatched
  std::vector<Weight> y, z;
  std::vector<std::vector<int>> blossoms_of;
  std::vector<IntEdge> violated;  // pairs whose dual constraint fails
  std::vector<Weight> shortfall;  // by how much, per violated pair
};

// Runs the blossom algorithm on `items` (ascending) and the `used` edges
// between them, and writes their matching and dual into s. Items of other
// components keep theirs: the dual of disjoint graphs is the union of
// their duals.
void run_matching(const std::vector<int>& items, const std::vector<IntEdge>& used, Solution& s) {
  int k = static_cast<int>(items.size());
  std::vector<int> local(s.mate.size(), -1);
  for (int i = 0; i < k; ++i) local[items[i]] = i;
  Graph g;
  g.reserveNode(k);
  g.reserveEdge(static_cast<int>(used.size()));
  std::vector<Graph::Node> node(k);
  for (int i = 0; i < k; ++i) node[i] = g.addNode();
  // Edges first, then their map: a map made before grows with every edge.
  for (const IntEdge& e : used) g.addEdge(node[local[e.u]], node[local[e.v]]);
  Graph::EdgeMap<Weight> weight(g);
  for (size_t e = 0; e < used.size(); ++e) weight[g.edgeFromId(static_cast<int>(e))] = used[e].w;
  Matcher m(g, weight);
  m.run();
  for (int i = 0; i < k; ++i) {
    Graph::Node other = m.mate(node[i]);
    s.mate[items[i]] = other != lemon::INVALID ? items[g.id(other)] : -1;
    s.y[items[i]] = m.nodeValue(node[i]);
    s.blossoms_of[items[i]].clear();
  }
  int first = static_cast<int>(s.z.size());
  for (int b = 0; b < m.blossomNum(); ++b) {
    s.z.push_back(m.blossomValue(b));
    for (Matcher::BlossomIt it(m, b); it != lemon::INVALID; ++it) s.blossoms_of[items[g.id(it)]].push_back(first + b);
  }
}

// Adds (u, v) to s.violated when its dual constraint fails.
void check_pair(Solution& s, int u, int v, Weight x) {
  Weight slack = s.y[u] + s.y[v] - Matcher::dualScale * x;
  if (slack >= 0 || x <= 0) return;
  for (int b : s.blossoms_of[u])
    if (std::find(s.blossoms_of[v].begin(), s.blossoms_of[v].end(), b) != s.blossoms_of[v].end()) slack += s.z[b];
  if (slack < 0) s.violated.push_back({u, v, x}), s.shortfall.push_back(-slack);
}

// Checks the dual constraint y_u + y_v + sum_{B containing u,v} z_B >=
// 4 w(u,v) of every pair of w into s.violated. The edges run meet it (the
// dual is feasible there); when no other fails, the dual is feasible for
// the whole graph (and the complete graph: missing pairs weigh 0) and the
// matching is optimal there too (LP duality). O(E).
// With b_u = y_u + 4 a_u, a pair's slack before blossoms is b_u + b_v -
// 4 iw(w(u,v)): one subtraction per pair, and check_pair only for the few
// it leaves below zero (a dense matrix of 256 threads has 32,640 pairs,
// checked after every run).
void check_dual(const SharingMatrix& w, const ReducedWeights& rw, Solution& s) {
  s.violated.clear();
  s.shortfall.clear();
  std::vector<Weight> b(w.size());
  for (int u = 0; u < w.size(); ++u) b[u] = s.y[u] + Matcher::dualScale * rw.a(u);
  auto rows = [&](auto iw) {
    for (int u = 0; u < w.size(); ++u) {
      SharingMatrix::Row r = w.row(u);
      // Each pair once, from its lower end: the row's columns above u.
      for (size_t e = static_cast<size_t>(std::upper_bound(r.to, r.to + r.size, u) - r.to); e < r.size; ++e) {
        Weight x = iw(r.w[e]);
        if (b[u] + b[r.to[e]] < Matcher::dualScale * x) check_pair(s, u, r.to[e], x - rw.a(u) - rw.a(r.to[e]));
      }
      rw.missing_above(u, [&](int v, Weight x) { check_pair(s, u, v, x); });
    }
  };
  // The weights' conversion chosen once, not per pair.
  if (rw.integer().whole()) rows([](double x) { return static_cast<Weight>(x); });
  else rows([&](double x) { return rw.integer()(x); });
}

// Keeps the `room` pairs of s.violated whose constraint fails by most
// (ties: the earlier found): those the run's dual is furthest from
// covering, so the next run's dual moves most.
void keep_most_violated(Solution& s, size_t room) {
  if (s.violated.size() <= room) return;
  std::vector<size_t> order(s.violated.size());
  std::iota(order.begin(), order.end(), 0);
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(room), order.end(), [&](size_t a, size_t b) {
    return s.shortfall[a] != s.shortfall[b] ? s.shortfall[a] > s.shortfall[b] : a < b;
  });
  order.resize(room);
  std::vector<IntEdge> kept;
  kept.reserve(room);
  for (size_t i : order) kept.push_back(s.violated[i]);
  s.violated = std::move(kept);
}

int find_root(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// The items of the components (under `edges`) that hold an end of a
// failing pair, ascending, and the edges between them: only those need
// another run, the others' matching and dual stand.
std::vector<int> components_touched(int n, const std::vector<IntEdge>& edges, const std::vector<IntEdge>& failing,
                                    std::vector<IntEdge>& inside) {
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (const IntEdge& e : edges) parent[find_root(parent, e.u)] = find_root(parent, e.v);
  std::vector<char> touched(n, 0);
  for (const IntEdge& e : failing) touched[find_root(parent, e.u)] = 1;
  std::vector<int> items;
  for (int i = 0; i < n; ++i)
    if (touched[find_root(parent, i)]) items.push_back(i);
  inside.clear();
  for (const IntEdge& e : edges)
    if (touched[find_root(parent, e.u)]) inside.push_back(e);
  return items;
}

}  // namespace

Pairing max_weight_pairing(const SharingMatrix& w, int candidates) {
  int n = w.size();
  Pairing p;
  IntWeights iw(w);
  ReducedWeights rw(w, iw);
  std::vector<IntEdge> edges = candidate_edges(w, rw, candidates), inside;
  sort_unique(edges);
  Solution s(n);
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  run_matching(all, edges, s);
  for (;;) {
    check_dual(w, rw, s);
    ++p.rounds;
    if (s.violated.empty()) break;
    // The most violated of them, as many as the first run had per item: on
    // a matrix where few of the optimum's pairs were candidates, nearly
    // every pair can fail the check, and the next run would see them all.
    // (Chosen by weight instead, one of MG's 256-thread profiles took a
    // third run for the one pair the second left failing.)
    keep_most_violated(s, static_cast<size_t>(n) * static_cast<size_t>(candidates));
    edges.insert(edges.end(), s.violated.begin(), s.violated.end());
    sort_unique(edges);
    // A failing pair inside a block of a dense profile touches one block's
    // component of the candidate graph: run that again, not the whole.
    std::vector<int> items = components_touched(n, edges, s.violated, inside);
    run_matching(items, inside, s);
  }

  // Items left unmatched share nothing with each other (else the matching
  // would not be maximum), so pairing them in index order keeps the optimum.
  std::vector<int> left;
  for (int i = 0; i < n; ++i) {
    if (s.mate[i] < 0) left.push_back(i);
    else if (i < s.mate[i]) p.pairs.emplace_back(i, s.mate[i]);
  }
  for (size_t k = 0; k + 1 < left.size(); k += 2) p.pairs.emplace_back(left[k], left[k + 1]);
  if (left.size() % 2) p.single = left.back();
  std::sort(p.pairs.begin(), p.pairs.end());
  return p;
}

double pairing_weight(const SharingMatrix& w, const Pairing& p) {
  double s = 0;
  for (const auto& e : p.pairs) s += w(e.first, e.second);
  return s;
}

}  // namespace slurmpin
