// SPDX-License-Identifier: GPL-2.0-or-later
#include "refine_placement.hh"

#include <algorithm>
#include <cmath>

namespace slurmpin {

namespace {

constexpr int kPasses = 8;
constexpr size_t kNeighboursTried = 16;
// Work per pass, in edge visits per stored edge: bounds a pass by O(E) even
// on dense matrices, where every gain costs a whole row.
constexpr size_t kVisitsPerEdge = 32;

class SwapSearch {
 public:
  SwapSearch(const Tree& t, const Affinity& w, std::vector<int>& slot_of, bool keep_pairs)
      : t_(t), w_(w), slot_of_(slot_of), keep_pairs_(keep_pairs), chain_(t.nodes.size()),
        occupant_(t.nodes.size(), -1) {
    for (int s : t.slots()) {
      for (int n = s; n != t.root && n >= 0; n = t.nodes[n].parent) chain_[s].push_back(n);
      std::reverse(chain_[s].begin(), chain_[s].end());
    }
    for (size_t i = 0; i < slot_of.size(); ++i) occupant_[slot_of[i]] = static_cast<int>(i);
  }

  void run() {
    size_t budget = kVisitsPerEdge * (2 * w_.pairs() + slot_of_.size());
    for (int pass = 0; pass < kPasses; ++pass) {
      visits_ = 0;
      bool improved = false;
      for (int a = 0; a < w_.size() && visits_ < budget; ++a) {
        size_t tried = heaviest_first(w_.row(a));
        improved |= improve(a, tried);
        if (keep_pairs_) improved |= improve_pair(a, tried);
      }
      if (!improved) break;
    }
  }

 private:
  // Levels below the root that two distinct slots share.
  int shared(int x, int y) const {
    const auto &cx = chain_[x], &cy = chain_[y];
    size_t k = 0;
    while (k < cx.size() && k < cy.size() && cx[k] == cy[k]) ++k;
    return static_cast<int>(k);
  }
  // Whether slot x's domain `k` levels below the root, shared with another
  // slot, holds a pair of slots only.
  bool paired(int x, int k) const { return k > 0 && t_.nodes[chain_[x][k - 1]].slots <= 2; }

  // Change of the objective (and of pair sharing) when a moves from its slot
  // to `to`, b (or nobody) from `to` to a's slot.
  void delta(int a, int to, int b, double& gain, double& pair_gain) {
    int from = slot_of_[a];
    Affinity::Row r = w_.row(a);
    for (size_t e = 0; e < r.size; ++e) {
      int k = r.to[e];
      if (k == b) continue;
      int sk = slot_of_[k], now = shared(from, sk), then = shared(to, sk);
      gain += r.w[e] * (then - now);
      if (keep_pairs_) pair_gain += r.w[e] * (paired(to, then) - paired(from, now));
    }
    visits_ += r.size;
  }

  const std::vector<int>& slots_of(int d) {
    if (below_.empty()) below_.resize(t_.nodes.size());
    if (below_[d].empty()) below_[d] = t_.slots_below(d);
    return below_[d];
  }

  // The smallest domain above slot s holding more than one slot.
  int domain_of(int s) const {
    int d = t_.nodes[s].parent;
    while (d >= 0 && t_.nodes[d].slots < 2) d = t_.nodes[d].parent;
    return d;
  }

  // Orders order_ (reused: this runs for every thread, every pass) so that
  // its first entries are row r's heaviest edges; returns how many of them
  // the searches try.
  size_t heaviest_first(const Affinity::Row& r) {
    order_.resize(r.size);
    for (size_t e = 0; e < r.size; ++e) order_[e] = e;
    size_t tried = std::min(kNeighboursTried, r.size);
    std::partial_sort(order_.begin(), order_.begin() + tried, order_.end(),
                      [&](size_t x, size_t y) { return r.w[x] != r.w[y] ? r.w[x] > r.w[y] : x < y; });
    return tried;
  }

  // Best improving swap of a with a thread next to one of its `tried`
  // heaviest neighbours (heaviest_first); applied at once.
  bool improve(int a, size_t tried) {
    Affinity::Row r = w_.row(a);
    const std::vector<size_t>& order = order_;
    int from = slot_of_[a], best_b = -1;
    double best = 0;
    for (size_t o = 0; o < tried; ++o) {
      int d = domain_of(slot_of_[r.to[order[o]]]);
      if (d < 0 || d == t_.root) continue;
      if (std::find(chain_[from].begin(), chain_[from].end(), d) != chain_[from].end()) continue;
      for (int s : slots_of(d)) {
        int b = occupant_[s];
        if (b < 0 || b == a || b == r.to[order[o]]) continue;
        double gain = 0, pair_gain = 0;
        delta(a, s, b, gain, pair_gain);
        delta(b, from, a, gain, pair_gain);
        if (keep_pairs_ && pair_gain < -1e-9 * (1 + std::abs(gain))) continue;
        if (gain > best + 1e-9 * (1 + std::abs(best))) best = gain, best_b = b;
      }
    }
    if (best_b < 0) return false;
    int to = slot_of_[best_b];
    slot_of_[a] = to, slot_of_[best_b] = from;
    occupant_[to] = a, occupant_[from] = best_b;
    return true;
  }

  // Moving whole pairs keeps every pair's sharing, which single swaps under
  // keep_pairs cannot do: the best improving exchange of the contents of a's
  // two-slot domain with another two-slot domain near one of a's `tried`
  // heaviest neighbours. Edges inside either domain, or between the two, keep their
  // level, so only edges leaving them count.
  bool improve_pair(int a, size_t tried) {
    int p = domain_of(slot_of_[a]);
    if (p < 0 || t_.nodes[p].slots != 2) return false;
    Affinity::Row r = w_.row(a);
    const std::vector<size_t>& order = order_;
    int best_q = -1;
    double best = 0;
    for (size_t o = 0; o < tried; ++o) {
      int q = domain_of(slot_of_[r.to[order[o]]]);
      if (q < 0 || t_.nodes[q].slots != 2) continue;
      int d = t_.nodes[q].parent;  // the pair domains beside the neighbour's
      while (d >= 0 && t_.nodes[d].slots <= 2) d = t_.nodes[d].parent;
      if (d < 0 || d == t_.root || std::find(chain_[slot_of_[a]].begin(), chain_[slot_of_[a]].end(), d) !=
                                        chain_[slot_of_[a]].end())
        continue;
      for (int s : slots_of(d)) {
        int c = domain_of(s);
        if (c == q || c == p || t_.nodes[c].slots != 2 || slots_of(c)[0] != s) continue;
        double gain = exchange_gain(p, c) + exchange_gain(c, p);
        if (gain > best + 1e-9 * (1 + std::abs(best))) best = gain, best_q = c;
      }
    }
    if (best_q < 0) return false;
    const std::vector<int>&x = slots_of(p), &y = slots_of(best_q);
    for (size_t i = 0; i < 2; ++i) {
      int u = occupant_[x[i]], v = occupant_[y[i]];
      occupant_[x[i]] = v, occupant_[y[i]] = u;
      if (u >= 0) slot_of_[u] = y[i];
      if (v >= 0) slot_of_[v] = x[i];
    }
    return true;
  }

  // Gain of the threads of two-slot domain `from` moving slot by slot into
  // `to`, counting only their edges to threads outside both.
  double exchange_gain(int from, int to) {
    const std::vector<int>&x = slots_of(from), &y = slots_of(to);
    double gain = 0;
    for (size_t i = 0; i < 2; ++i) {
      int u = occupant_[x[i]];
      if (u < 0) continue;
      Affinity::Row r = w_.row(u);
      for (size_t e = 0; e < r.size; ++e) {
        int sk = slot_of_[r.to[e]];
        if (sk == x[0] || sk == x[1] || sk == y[0] || sk == y[1]) continue;
        gain += r.w[e] * (shared(y[i], sk) - shared(x[i], sk));
      }
      visits_ += r.size;
    }
    return gain;
  }

  const Tree& t_;
  const Affinity& w_;
  std::vector<int>& slot_of_;
  bool keep_pairs_;
  std::vector<std::vector<int>> chain_;  // per slot: its domains from below the root down to it
  std::vector<int> occupant_;
  std::vector<std::vector<int>> below_;  // slots of a domain, filled on first use
  std::vector<size_t> order_;
  size_t visits_ = 0;
};

}  // namespace

void refine_placement(const Tree& t, const Affinity& w, std::vector<int>& slot_of, bool keep_pairs) {
  if (w.pairs() == 0 || slot_of.size() < 3) return;
  SwapSearch(t, w, slot_of, keep_pairs).run();
}

}  // namespace slurmpin
