// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/refine_placement.hh"

#include <algorithm>
#include <cmath>

namespace slurmpin {

namespace {

constexpr int kPasses = 8;
constexpr size_t kNeighboursTried = 16;
// Work per pass, in edge visits per stored edge: bounds a pass by O(E) even
// on dense matrices.
constexpr size_t kVisitsPerEdge = 32;
// With the connection table, the domains a thread's neighbours lead to are
// ranked by what the thread shares with each, and only the first few are
// searched: in a dense matrix the heaviest neighbours past a thread's own
// group are noise scattered over the whole machine.
constexpr size_t kDomainsTried = 4;
// Whole pairs are exchanged into fewer of them: each candidate domain costs
// an exchange evaluation per pair domain it holds, and the pair's strongest
// domains are where its threads' groups were cut to.
constexpr size_t kPairDomainsTried = 2;
// The connection table below is kept up to this many cells (1 MiB)
// whatever the matrix's size.
constexpr size_t kTableCells = size_t{1} << 17;
static_assert(kPairDomainsTried <= kDomainsTried, "strongest() keeps at most kDomainsTried domains");

// How much each thread shares with the threads inside each domain:
// conn(a, d) = sum of w(a, k) over the threads k placed under domain d (the
// domains between the root and the slots). A thread's part of the objective
// at slot s is then the sum of conn over s's domains, so a swap's gain costs
// O(depth) instead of a pass over two rows (as the boundary tables of
// Kernighan-Lin and METIS do); a swap updates the rows of the two threads'
// neighbours, O(degree x depth). Kept when it is no larger than the
// matrix's own storage (real, dense matrices: every pair shares a little,
// a row is as long as there are threads) or than kTableCells: on sparse
// traffic of 256 ranks over 36 domains, the row scans it spares were half
// the placing time (4.1 to 2.5 ms, as much kept).
// Per tree node: how many domains lie from below the root down to it (the
// root 0, its children 1, ...).
std::vector<int> node_depths(const Tree& t) {
  std::vector<int> depth(t.nodes.size(), 0);
  for (size_t n = 0; n < t.nodes.size(); ++n)
    for (int a = t.nodes[n].parent; a >= 0; a = t.nodes[a].parent) ++depth[n];
  return depth;
}

class Connections {
 public:
  Connections(const Tree& t, const SharingMatrix& w, const std::vector<int>& slot_of) : w_(w) {
    index_.assign(t.nodes.size(), -1);
    for (size_t n = 0; n < t.nodes.size(); ++n)
      if (static_cast<int>(n) != t.root && !t.nodes[n].is_slot()) index_[n] = domains_++;
    size_t cells = static_cast<size_t>(w.size()) * static_cast<size_t>(domains_);
    if (domains_ == 0 || cells > std::max(2 * w.pairs() + static_cast<size_t>(w.size()), kTableCells)) return;
    up_.resize(t.nodes.size());
    for (int s : t.slots())
      for (int n = t.nodes[s].parent; n >= 0 && n != t.root; n = t.nodes[n].parent) up_[s].push_back(index_[n]);
    // Each edge counts once, in the lowest domain above its far end; each
    // domain's sum then flows into its parent, children before parents:
    // O(E + n D) instead of O(E depth).
    std::vector<std::pair<int, int>> flow;  // (column, parent column), deepest first
    std::vector<int> depth = node_depths(t);
    for (size_t n = 0; n < t.nodes.size(); ++n) {
      int p = t.nodes[n].parent;
      if (index_[n] >= 0 && p >= 0 && index_[p] >= 0) flow.emplace_back(index_[n], index_[p]);
    }
    std::vector<int> col_depth(domains_);
    for (size_t n = 0; n < t.nodes.size(); ++n)
      if (index_[n] >= 0) col_depth[index_[n]] = depth[n];
    std::stable_sort(flow.begin(), flow.end(),
                     [&](const auto& x, const auto& y) { return col_depth[x.first] > col_depth[y.first]; });
    std::vector<int> lowest(slot_of.size());
    for (size_t k = 0; k < slot_of.size(); ++k) lowest[k] = up_[slot_of[k]].empty() ? -1 : up_[slot_of[k]][0];
    conn_.assign(cells, 0.0);
    for (int a = 0; a < w.size(); ++a) {
      SharingMatrix::Row r = w.row(a);
      double* row = &conn_[cell(a, 0)];
      for (size_t e = 0; e < r.size; ++e)
        if (lowest[r.to[e]] >= 0) row[lowest[r.to[e]]] += r.w[e];
      for (const auto& f : flow) row[f.second] += row[f.first];
    }
  }

  bool on() const { return !conn_.empty(); }
  const double* row(int a) const { return &conn_[cell(a, 0)]; }
  int index(int node) const { return index_[node]; }
  double at_node(int a, int node) const { return index_[node] < 0 ? 0.0 : conn_[cell(a, index_[node])]; }
  // What thread a shares with the threads placed under slot s's domains,
  // counted once per domain: its part of the objective were it at s.
  double kept(int a, int s) const {
    double k = 0;
    for (int d : up_[s]) k += conn_[cell(a, d)];
    return k;
  }
  // Thread x moved from slot `from` to `to`: its neighbours' counts follow.
  void moved(int x, int from, int to) {
    SharingMatrix::Row r = w_.row(x);
    for (size_t e = 0; e < r.size; ++e) {
      for (int d : up_[from]) at(r.to[e], d) -= r.w[e];
      for (int d : up_[to]) at(r.to[e], d) += r.w[e];
    }
  }

 private:
  size_t cell(int a, int d) const { return static_cast<size_t>(a) * static_cast<size_t>(domains_) + d; }
  double& at(int a, int d) { return conn_[cell(a, d)]; }

  const SharingMatrix& w_;
  int domains_ = 0;
  std::vector<int> index_;             // tree node -> column, -1 for the root and slots
  std::vector<std::vector<int>> up_;   // per slot: the columns of its domains
  std::vector<double> conn_;           // threads x domains
};

class SwapSearch {
 public:
  SwapSearch(const Tree& t, const SharingMatrix& w, std::vector<int>& slot_of, bool keep_pairs)
      : t_(t), w_(w), slot_of_(slot_of), keep_pairs_(keep_pairs), chain_(t.nodes.size()),
        occupant_(t.nodes.size(), -1), conn_(t, w, slot_of), mark_(t.nodes.size(), 0) {
    for (int s : t.slots()) {
      for (int n = s; n != t.root && n >= 0; n = t.nodes[n].parent) chain_[s].push_back(n);
      std::reverse(chain_[s].begin(), chain_[s].end());
    }
    for (size_t i = 0; i < slot_of.size(); ++i) occupant_[slot_of[i]] = static_cast<int>(i);
    std::vector<char> bottom(t.nodes.size(), 0), above_pair(t.nodes.size(), 0);
    for (int s : t.slots()) {
      int d = domain_of(s);
      if (d < 0 || d == t.root || bottom[d]) continue;
      bottom[d] = 1;
      bottoms_.push_back(d);
      int up = t.nodes[d].slots == 2 ? pair_parent(d) : -1;
      if (up >= 0 && up != t.root && !above_pair[up]) above_pair[up] = 1, pair_parents_.push_back(up);
    }
    levels_ = node_depths(t);
    for (int d : bottoms_) bottom_cols_.push_back(conn_.index(d));
    for (int d : pair_parents_) pair_parent_cols_.push_back(conn_.index(d));
  }

  void run() {
    size_t budget = kVisitsPerEdge * (2 * w_.pairs() + slot_of_.size());
    pair_pass_.assign(t_.nodes.size(), -1);
    for (int pass = 0; pass < kPasses; ++pass) {
      pass_ = pass;
      visits_ = 0;
      bool improved = false;
      for (int a = 0; a < w_.size() && visits_ < budget; ++a) {
        size_t tried = conn_.on() ? 0 : heaviest_first(a);
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
  // Slot x's smallest domain shared with another slot when it holds two
  // slots only (what paired() names), or -1.
  int pair_domain(int x) const {
    int d = domain_of(x);
    return d >= 0 && d != t_.root && t_.nodes[d].slots <= 2 ? d : -1;
  }
  // The domains of slot x (the slot itself excluded).
  int depth(int x) const { return static_cast<int>(chain_[x].size()) - 1; }

  // Change of the objective (and of pair sharing) when a, at its slot,
  // and b, at `to`, swap. Edges of a and b to each other keep their level.
  void swap_gain(int a, int to, int b, double& gain, double& pair_gain) {
    int from = slot_of_[a];
    if (!conn_.on()) {
      delta(a, to, b, gain, pair_gain);
      delta(b, from, a, gain, pair_gain);
      return;
    }
    double ab = w_.remainder(a, b);
    int common = shared(from, to);
    gain += conn_.kept(a, to) - conn_.kept(a, from) - ab * (depth(to) - common);
    gain += conn_.kept(b, from) - conn_.kept(b, to) - ab * (depth(from) - common);
    if (keep_pairs_) {
      // The partner each would have in its pair domain, before and after.
      int pf = pair_domain(from), pt = pair_domain(to);
      bool same = pf >= 0 && pf == pt;
      double a_before = pf < 0 ? 0 : conn_.at_node(a, pf) - (same ? ab : 0);
      double a_after = pt < 0 ? 0 : conn_.at_node(a, pt) - ab;
      double b_before = pt < 0 ? 0 : conn_.at_node(b, pt) - (same ? ab : 0);
      double b_after = pf < 0 ? 0 : conn_.at_node(b, pf) - ab;
      pair_gain += a_after - a_before + b_after - b_before;
    }
    visits_ += 2 * chain_[from].size();
  }

  // Row scan (sparse matrices): a moves from its slot to `to`, b (or
  // nobody) from `to` to a's slot.
  void delta(int a, int to, int b, double& gain, double& pair_gain) {
    int from = slot_of_[a];
    SharingMatrix::Row r = w_.row(a);
    for (size_t e = 0; e < r.size; ++e) {
      int k = r.to[e];
      if (k == b) continue;
      int sk = slot_of_[k], now = shared(from, sk), then = shared(to, sk);
      gain += r.w[e] * (then - now);
      if (keep_pairs_) pair_gain += r.w[e] * (paired(to, then) - paired(from, now));
    }
    visits_ += r.size;
  }

  void swap(int a, int b) {
    int x = slot_of_[a], y = slot_of_[b];
    slot_of_[a] = y, slot_of_[b] = x;
    occupant_[y] = a, occupant_[x] = b;
    if (conn_.on()) {
      conn_.moved(a, x, y);
      conn_.moved(b, y, x);
      visits_ += (w_.row(a).size + w_.row(b).size) * chain_[x].size();
    }
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

  // Fills order_ (reused: this runs for every thread, every pass) with the
  // positions of row a's kNeighboursTried heaviest edges, heaviest first;
  // returns how many there are.
  size_t heaviest_first(int a) {
    w_.heaviest(a, kNeighboursTried, order_);
    return order_.size();
  }

  // Whether domain d holds slot s.
  bool inside(int d, int s) const { return std::find(chain_[s].begin(), chain_[s].end(), d) != chain_[s].end(); }

  // The domain above pair domain q whose other pair domains an exchange
  // with q's contents visits.
  int pair_parent(int q) const {
    int d = t_.nodes[q].parent;
    while (d >= 0 && t_.nodes[d].slots <= 2) d = t_.nodes[d].parent;
    return d;
  }

  // With the table: domains_ = the kDomainsTried domains of `among` (not
  // holding slot s) that a (and its partner b, when b >= 0) share most with,
  // strongest first; one pass over `among`, the table's columns read
  // directly instead of a sort of a's row.
  void strongest(const std::vector<int>& among, const std::vector<int>& cols, int s, int a, int b,
                 size_t tries = kDomainsTried) {
    // s's own domains marked once: most of `among` is tested against them.
    ++stamp_;
    for (int d : chain_[s]) mark_[d] = stamp_;
    const double *ra = conn_.row(a), *rb = b >= 0 ? conn_.row(b) : nullptr;
    if (rb) keep_strongest(among, cols, tries, [&](int c) { return ra[c] + rb[c]; });
    else keep_strongest(among, cols, tries, [&](int c) { return ra[c]; });
  }

  // The top `tries` of `among` by pull(column), unmarked, in locals (the
  // loop reads nothing it writes), then into domains_.
  template <class Pull>
  void keep_strongest(const std::vector<int>& among, const std::vector<int>& cols, size_t tries, Pull pull_of) {
    double pull[kDomainsTried];
    int which[kDomainsTried];
    size_t kept = 0;
    double floor = 0;  // what a domain must beat: 0, then the weakest kept once full
    const int *dom = among.data(), *col = cols.data();
    const unsigned* mark = mark_.data();
    const unsigned stamp = stamp_;
    for (size_t k = 0, m = among.size(); k < m; ++k) {
      double v = pull_of(col[k]);
      if (v <= floor || mark[dom[k]] == stamp) continue;
      size_t at = kept < tries ? kept++ : kept - 1;
      while (at > 0 && pull[at - 1] < v) pull[at] = pull[at - 1], which[at] = which[at - 1], --at;
      pull[at] = v, which[at] = dom[k];
      if (kept == tries) floor = pull[kept - 1];
    }
    domains_.assign(which, which + kept);
  }

  // Best improving swap of a with a thread next to one of its `tried`
  // heaviest neighbours (heaviest_first); applied at once.
  bool improve(int a, size_t tried) {
    SharingMatrix::Row r = w_.row(a);
    int from = slot_of_[a], best_b = -1;
    double best = 0;
    domains_.clear();
    if (conn_.on()) {
      strongest(bottoms_, bottom_cols_, from, a, -1);
    } else {
      // Each domain once, however many of the neighbours it holds.
      for (size_t o = 0; o < tried; ++o) {
        int d = domain_of(slot_of_[r.to[order_[o]]]);
        if (d < 0 || d == t_.root || inside(d, from)) continue;
        if (std::find(domains_.begin(), domains_.end(), d) == domains_.end()) domains_.push_back(d);
      }
    }
    for (int d : domains_) {
      for (int s : slots_of(d)) {
        int b = occupant_[s];
        if (b < 0 || b == a) continue;
        double gain = 0, pair_gain = 0;
        swap_gain(a, s, b, gain, pair_gain);
        if (keep_pairs_ && pair_gain < -1e-9 * (1 + std::abs(gain))) continue;
        if (gain > best + 1e-9 * (1 + std::abs(best))) best = gain, best_b = b;
      }
    }
    if (best_b < 0) return false;
    swap(a, best_b);
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
    // Once per pair domain and pass: its partner searched the same exchanges.
    if (pair_pass_[p] == pass_) return false;
    pair_pass_[p] = pass_;
    SharingMatrix::Row r = w_.row(a);
    int best_q = -1;
    double best = 0;
    domains_.clear();
    const std::vector<int>& own = slots_of(p);
    if (conn_.on()) {
      strongest(pair_parents_, pair_parent_cols_, slot_of_[a], a, occupant_[own[0]] == a ? occupant_[own[1]] : occupant_[own[0]],
                kPairDomainsTried);
    } else {
      // The domains above the neighbours' pair domains, each once.
      for (size_t o = 0; o < tried; ++o) {
        int q = domain_of(slot_of_[r.to[order_[o]]]);
        if (q < 0 || t_.nodes[q].slots != 2) continue;
        int d = pair_parent(q);
        if (d < 0 || d == t_.root || inside(d, slot_of_[a])) continue;
        if (std::find(domains_.begin(), domains_.end(), d) == domains_.end()) domains_.push_back(d);
      }
    }
    for (int d : domains_) {
      for (int s : slots_of(d)) {
        int c = domain_of(s);
        if (c == p || t_.nodes[c].slots != 2 || slots_of(c)[0] != s) continue;
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
      if (conn_.on() && u >= 0) conn_.moved(u, x[i], y[i]);
      if (conn_.on() && v >= 0) conn_.moved(v, y[i], x[i]);
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
      if (conn_.on()) {
        // Every edge, less those to the (at most three) threads inside both
        // domains, read from the table too: u's partner shares `from` with
        // it (levels_[from]) and would share what the two domains share
        // (common); the threads of `to` share common with u now, and at y[i]
        // the levels down to `to` with both, and the single-slot domains
        // below `to` with the one at y[i].
        int common = shared(x[0], y[0]);
        double partner = conn_.at_node(u, from), inside_to = conn_.at_node(u, to);
        double below = 0;
        for (int d = t_.nodes[y[i]].parent; d != to; d = t_.nodes[d].parent) below += conn_.at_node(u, d);
        gain += conn_.kept(u, y[i]) - conn_.kept(u, x[i]) - partner * (common - levels_[from]) -
                inside_to * (levels_[to] - common) - below;
        visits_ += 2 * chain_[x[i]].size();
        continue;
      }
      SharingMatrix::Row r = w_.row(u);
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
  const SharingMatrix& w_;
  std::vector<int>& slot_of_;
  bool keep_pairs_;
  std::vector<std::vector<int>> chain_;  // per slot: its domains from below the root down to it
  std::vector<int> levels_;              // per node: the domains from below the root down to it
  std::vector<int> occupant_;
  Connections conn_;
  std::vector<std::vector<int>> below_;  // slots of a domain, filled on first use
  std::vector<size_t> order_;
  std::vector<int> domains_;  // the domains a search visits (reused)
  std::vector<int> bottoms_;       // every slot's smallest shared domain, once
  std::vector<int> pair_parents_;  // the domains above pair domains, once
  // Their columns in the table, read for every thread and pass.
  std::vector<int> bottom_cols_, pair_parent_cols_;
  std::vector<int> pair_pass_;  // per pair domain: the pass that searched its exchanges
  std::vector<unsigned> mark_;  // per node: stamp_ when it holds the slot strongest() searches from
  unsigned stamp_ = 0;
  int pass_ = 0;
  size_t visits_ = 0;
};

}  // namespace

void refine_placement(const Tree& t, const SharingMatrix& w, std::vector<int>& slot_of, bool keep_pairs) {
  if (w.pairs() == 0 || slot_of.size() < 3) return;
  SwapSearch(t, w, slot_of, keep_pairs).run();
}

}  // namespace slurmpin
