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

// Integer weights per pair of w's remainder (the floor adds the same to
// every near-perfect pairing): as given when they already are integers in
// range, else scaled so the largest is 2^40.
struct IntEdge {
  int u, v;
  Weight w;
};

std::vector<IntEdge> integer_edges(const Affinity& w) {
  std::vector<Edge> edges = w.edges();
  double max = 0;
  bool integral = true;
  for (const Edge& e : edges) {
    max = std::max(max, e.w);
    if (e.w != std::floor(e.w)) integral = false;
  }
  double scale = (integral && max <= kScaleLimit) || max == 0 ? 1.0 : kScaleLimit / max;
  std::vector<IntEdge> out;
  out.reserve(edges.size());
  for (const Edge& e : edges) {
    Weight x = std::llround(e.w * scale);
    if (x > 0) out.push_back({e.i, e.j, x});
  }
  return out;
}

// The heaviest few edges of every item (indices into `all`): the optimum
// almost always lies here.
std::vector<size_t> candidate_edges(const std::vector<IntEdge>& all, int n, int per_item) {
  std::vector<std::vector<size_t>> of(n);
  for (size_t e = 0; e < all.size(); ++e) of[all[e].u].push_back(e), of[all[e].v].push_back(e);
  std::vector<size_t> chosen;
  for (auto& list : of) {
    size_t k = std::min<size_t>(static_cast<size_t>(per_item), list.size());
    std::partial_sort(list.begin(), list.begin() + k, list.end(),
                      [&](size_t a, size_t b) { return all[a].w != all[b].w ? all[a].w > all[b].w : a < b; });
    chosen.insert(chosen.end(), list.begin(), list.begin() + k);
  }
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  return chosen;
}

struct Solution {
  std::vector<int> mate;          // -1 when unmatched
  std::vector<size_t> violated;   // edges whose dual constraint fails
};

// Runs the blossom algorithm on the `used` edges, then checks the dual
// constraint y_u + y_v + sum_{B containing u,v} z_B >= 4 w(u,v) of every
// other edge. When none fails, the dual is feasible for the whole graph (and
// the complete graph: missing pairs weigh 0) and the matching is optimal
// there too (LP duality). O(E) beyond the matching itself.
Solution solve(const std::vector<IntEdge>& all, int n, const std::vector<size_t>& used) {
  Graph g;
  g.reserveNode(n);
  g.reserveEdge(static_cast<int>(used.size()));
  std::vector<Graph::Node> node(n);
  for (int i = 0; i < n; ++i) node[i] = g.addNode();
  Graph::EdgeMap<Weight> weight(g);
  for (size_t e : used) weight[g.addEdge(node[all[e].u], node[all[e].v])] = all[e].w;
  Matcher m(g, weight);
  m.run();

  Solution s;
  s.mate.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    Graph::Node other = m.mate(node[i]);
    if (other != lemon::INVALID) s.mate[i] = g.id(other);
  }
  std::vector<std::vector<int>> blossoms_of(n);  // blossoms holding each item
  for (int b = 0; b < m.blossomNum(); ++b)
    for (Matcher::BlossomIt it(m, b); it != lemon::INVALID; ++it) blossoms_of[g.id(it)].push_back(b);
  std::vector<char> in_graph(all.size(), 0);
  for (size_t e : used) in_graph[e] = 1;
  for (size_t e = 0; e < all.size(); ++e) {
    if (in_graph[e]) continue;
    int u = all[e].u, v = all[e].v;
    Weight slack = m.nodeValue(node[u]) + m.nodeValue(node[v]) - Matcher::dualScale * all[e].w;
    if (slack >= 0) continue;
    for (int b : blossoms_of[u])
      if (std::find(blossoms_of[v].begin(), blossoms_of[v].end(), b) != blossoms_of[v].end())
        slack += m.blossomValue(b);
    if (slack < 0) s.violated.push_back(e);
  }
  return s;
}

}  // namespace

Pairing max_weight_pairing(const Affinity& w, int candidates) {
  int n = w.size();
  Pairing p;
  std::vector<IntEdge> all = integer_edges(w);
  std::vector<size_t> edges = candidate_edges(all, n, candidates);
  Solution s;
  do {
    s = solve(all, n, edges);
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
