// SPDX-License-Identifier: GPL-2.0-or-later
#include "matching.hh"

#include <lemon/matching.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace slurmpin {

namespace {

using Graph = lemon::SmartGraph;
using Weight = long long;
using Matcher = lemon::MaxWeightedMatching<Graph, Graph::EdgeMap<Weight>>;

constexpr double kScaleLimit = 1099511627776.0;  // 2^40

// Integer weights: as given when they already are integers in range, else
// scaled so the largest is 2^40.
std::vector<Weight> integer_weights(const Affinity& w) {
  int n = w.size();
  double max = 0;
  bool integral = true;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      max = std::max(max, w(i, j));
      if (w(i, j) != std::floor(w(i, j))) integral = false;
    }
  double scale = (integral && max <= kScaleLimit) || max == 0 ? 1.0 : kScaleLimit / max;
  std::vector<Weight> out(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) out[static_cast<size_t>(i) * n + j] = std::llround(w(i, j) * scale);
  return out;
}

// The heaviest few edges of every item: the optimum almost always lies here.
std::vector<std::pair<int, int>> candidate_edges(const std::vector<Weight>& iw, int n, int per_item) {
  std::vector<std::pair<int, int>> edges;
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) {
    order.clear();
    for (int j = 0; j < n; ++j)
      if (j != i && iw[static_cast<size_t>(i) * n + j] > 0) order.push_back(j);
    size_t k = std::min<size_t>(static_cast<size_t>(per_item), order.size());
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
      return iw[static_cast<size_t>(i) * n + a] > iw[static_cast<size_t>(i) * n + b];
    });
    for (size_t t = 0; t < k; ++t) edges.emplace_back(std::min(i, order[t]), std::max(i, order[t]));
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

struct Solution {
  std::vector<int> mate;                 // -1 when unmatched
  std::vector<std::pair<int, int>> violated;  // edges whose dual constraint fails
};

// Runs the blossom algorithm on `edges`, then checks the dual constraint
// y_u + y_v + sum_{B containing u,v} z_B >= 4 w(u,v) of every other edge of
// the complete graph. When none fails, the dual is feasible for the complete
// graph and the matching is optimal there too (LP duality).
Solution solve(const std::vector<Weight>& iw, int n, const std::vector<std::pair<int, int>>& edges) {
  Graph g;
  g.reserveNode(n);
  g.reserveEdge(static_cast<int>(edges.size()));
  std::vector<Graph::Node> node(n);
  for (int i = 0; i < n; ++i) node[i] = g.addNode();
  Graph::EdgeMap<Weight> weight(g);
  for (const auto& e : edges)
    weight[g.addEdge(node[e.first], node[e.second])] = iw[static_cast<size_t>(e.first) * n + e.second];
  Matcher m(g, weight);
  m.run();

  Solution s;
  s.mate.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    Graph::Node other = m.mate(node[i]);
    if (other != lemon::INVALID) s.mate[i] = g.id(other);
  }
  // Blossoms containing each item, as indices into the dual solution.
  std::vector<std::vector<int>> blossoms_of(n);
  for (int b = 0; b < m.blossomNum(); ++b)
    for (Matcher::BlossomIt it(m, b); it != lemon::INVALID; ++it) blossoms_of[g.id(it)].push_back(b);
  std::vector<char> in_graph(static_cast<size_t>(n) * n, 0);
  for (const auto& e : edges) in_graph[static_cast<size_t>(e.first) * n + e.second] = 1;
  for (int u = 0; u < n; ++u)
    for (int v = u + 1; v < n; ++v) {
      Weight w = iw[static_cast<size_t>(u) * n + v];
      if (w <= 0 || in_graph[static_cast<size_t>(u) * n + v]) continue;
      Weight slack = m.nodeValue(node[u]) + m.nodeValue(node[v]) - Matcher::dualScale * w;
      if (slack >= 0) continue;
      for (int b : blossoms_of[u])
        if (std::find(blossoms_of[v].begin(), blossoms_of[v].end(), b) != blossoms_of[v].end())
          slack += m.blossomValue(b);
      if (slack < 0) s.violated.emplace_back(u, v);
    }
  return s;
}

}  // namespace

Pairing max_weight_pairing(const Affinity& w, int candidates) {
  int n = w.size();
  Pairing p;
  std::vector<Weight> iw = integer_weights(w);
  std::vector<std::pair<int, int>> edges = candidate_edges(iw, n, candidates);
  Solution s;
  do {
    s = solve(iw, n, edges);
    ++p.rounds;
    edges.insert(edges.end(), s.violated.begin(), s.violated.end());
    std::sort(edges.begin(), edges.end());
  } while (!s.violated.empty());

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

double pairing_weight(const Affinity& w, const Pairing& p) {
  double s = 0;
  for (const auto& e : p.pairs) s += w(e.first, e.second);
  return s;
}

}  // namespace slurmpin
