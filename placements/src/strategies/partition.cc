// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/partition.hh"

#include <metis.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>
#include <numeric>
#include <utility>

#include "error.hh"
#include "sharing/potentials.hh"

namespace slurmpin {

namespace {

constexpr int kKernighanLinMax = 16;
// Random starts of Kernighan-Lin on such sets, the best kept.
constexpr int kSmallSetStarts = 8;
// Sets up to this size first try a greedy cut (grown_start); up to the
// second, Kernighan-Lin passes improve it (O(n^3) per pass beyond).
constexpr int kGrownMax = 64;
constexpr int kGrownKernighanLinMax = 32;
// Dense sets above kGrownMax items (at least this share of their pairs
// above the floor: real profiles) are cut through a coarse graph of greedy
// groups, about kGroupsPerPart to a part (coarse_cut).
constexpr double kDenseShare = 0.5;
constexpr int kGroupsPerPart = 4;
constexpr int kSwapPartsTried = 2;
// Largest set whose swap search reads rows from a dense table (2 MB; at
// 1024 items the 8 MB table, out of the caches, was 4-7% slower than
// spreading each row out: dense 1024-thread gp and gplp).
constexpr int kSwapTableMax = 512;
// The greedy cut is kept when it keeps at least this share of keep_bound():
// METIS could then keep at most 1/0.95 - 1 = 5% more.
constexpr double kCloseToBound = 0.95;
// METIS is given at most this many of each item's heaviest edges: on a
// dense matrix (every pair shares a little) coarsening barely shrinks the
// graph and the first cut costs O(n^2) per level; the strongest edges carry
// the structure, and the refinement after METIS sees every edge.
constexpr size_t kMetisDegree = 16;

// Each item's kMetisDegree heaviest edges, and the edges that choose it:
// symmetric, as METIS wants. w itself when it is that sparse already. On a
// dense profile ranked and weighed less what each end shares with
// everybody (sharing/potentials.hh): else the few threads that share most
// with all are everybody's edges, and METIS cuts a star.
SharingMatrix strongest_edges(const SharingMatrix& w) {
  if (2 * w.pairs() <= kMetisDegree * static_cast<size_t>(w.size())) return SharingMatrix();
  return w.strongest(kMetisDegree, sharing_potentials<double>(w, [](double x) { return x; }));
}

// METIS wants integer edge weights whose sum fits idx_t: scale to <= 2^30 in
// total and 10^6 per edge, keeping every positive weight at least 1.
std::vector<int> metis_partition(const SharingMatrix& all, const std::vector<int>& weight,
                                 const std::vector<int>& target, uint64_t seed) {
  SharingMatrix sparse = strongest_edges(all);
  const SharingMatrix& w = sparse.size() ? sparse : all;
  idx_t n = w.size(), ncon = 1, nparts = static_cast<idx_t>(target.size());
  double total = 0, max = 0;
  for (int i = 0; i < n; ++i) {
    SharingMatrix::Row r = w.row(i);
    for (size_t k = 0; k < r.size; ++k) total += r.w[k], max = std::max(max, r.w[k]);
  }
  std::vector<int> part(n, 0);
  if (total <= 0) return part;  // no edge: nothing for METIS to cut
  double scale = std::min(1073741824.0 / total, 1e6 / max);

  std::vector<idx_t> xadj{0}, adjncy, adjwgt, vwgt(weight.begin(), weight.end()), out(n);
  adjncy.reserve(2 * w.pairs());
  adjwgt.reserve(2 * w.pairs());
  for (int i = 0; i < n; ++i) {
    SharingMatrix::Row r = w.row(i);
    for (size_t k = 0; k < r.size; ++k) {
      adjncy.push_back(r.to[k]);
      adjwgt.push_back(std::max<idx_t>(1, static_cast<idx_t>(std::llround(r.w[k] * scale))));
    }
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
  }
  double sum = std::accumulate(target.begin(), target.end(), 0.0);
  std::vector<real_t> tpwgts(nparts);
  for (idx_t p = 0; p < nparts; ++p) tpwgts[p] = static_cast<real_t>(target[p] / sum);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed & 0x7fffffff);
  options[METIS_OPTION_UFACTOR] = 1;
  idx_t cut = 0;
  // Recursive bisection for any number of parts: k-way stops coarsening at
  // 30 vertices per part (480 for 16 packages, barely below 1024 threads)
  // and bisects that graph recursively anyway; bisecting from the start
  // coarsens each half fully, and kept as much sharing on the bench's
  // dense, stencil and block matrices in half the time.
  auto fn = METIS_PartGraphRecursive;
  int rc;
  {
    // METIS draws from libc's rand(), seeded from options at each call: one
    // call at a time, so that regions placed in parallel (engine.cc) get the
    // same cuts as placed one by one.
    static std::mutex one_at_a_time;
    std::lock_guard<std::mutex> hold(one_at_a_time);
    rc = fn(&n, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr, adjwgt.data(), &nparts,
            tpwgts.data(), nullptr, options, &cut, out.data());
  }
  if (rc != METIS_OK) {
    // METIS declines degenerate graphs; the repair below then builds the parts.
    return part;
  }
  for (idx_t i = 0; i < n; ++i) part[i] = static_cast<int>(out[i]);
  return part;
}

// A random assignment for a restart; the repair step balances it.
// SplitMix64: a restart needs a few numbers, not a Mersenne Twister's state.
std::vector<int> shuffled_start(int n, int parts, uint64_t seed) {
  std::vector<int> part(n);
  for (int i = 0; i < n; ++i) {
    uint64_t z = (seed += 0x9E3779B97F4A7C15ull) * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    part[i] = static_cast<int>((z ^ (z >> 31)) % static_cast<uint64_t>(parts));
  }
  return part;
}

// Parts grown one after another, as EagerMap groups threads: each from the
// free item that shares most with the other free items, then the free item
// that shares most with the part so far, while it fits. The last part takes
// what is left (repair() balances it). O(k (n + E)).
std::vector<int> grown_start(const SharingMatrix& w, const std::vector<int>& weight, const std::vector<int>& target) {
  int n = w.size(), k = static_cast<int>(target.size());
  std::vector<int> part(n, k - 1);
  std::vector<char> taken(n, 0);
  std::vector<double> pull(n), free_share(n, 0);
  for (int i = 0; i < n; ++i) {
    SharingMatrix::Row r = w.row(i);
    for (size_t e = 0; e < r.size; ++e) free_share[i] += r.w[e];
  }
  auto take = [&](int i, int p) {
    taken[i] = 1, part[i] = p;
    SharingMatrix::Row r = w.row(i);
    for (size_t e = 0; e < r.size; ++e) pull[r.to[e]] += r.w[e], free_share[r.to[e]] -= r.w[e];
  };
  // The free item that fits and scores most, or -1.
  auto best_free = [&](const std::vector<double>& score, int room) {
    int best = -1;
    for (int i = 0; i < n; ++i)
      if (!taken[i] && weight[i] <= room && (best < 0 || score[i] > score[best])) best = i;
    return best;
  };
  for (int p = 0; p + 1 < k; ++p) {
    std::fill(pull.begin(), pull.end(), 0.0);
    int load = 0;
    for (int i = best_free(free_share, target[p]); i >= 0; i = best_free(pull, target[p] - load)) {
      take(i, p);
      load += weight[i];
    }
  }
  return part;
}

// What no cut into parts of at most `items` items can beat: each item keeps
// at most its heaviest items - 1 pairs. O(E + n items).
double keep_bound(const SharingMatrix& w, int items) {
  double bound = 0;
  std::vector<size_t> top;
  for (int i = 0; i < w.size(); ++i) {
    w.heaviest(i, static_cast<size_t>(std::max(0, items - 1)), top);
    SharingMatrix::Row r = w.row(i);
    for (size_t e : top) bound += r.w[e];
  }
  return bound / 2;
}

// The most items any part can hold: its target over the lightest item.
int most_items(const std::vector<int>& weight, const std::vector<int>& target) {
  int lightest = *std::min_element(weight.begin(), weight.end());
  return *std::max_element(target.begin(), target.end()) / lightest;
}

// Real profiles: every pair shares something (at least kDenseShare of the
// pairs above the floor).
bool dense(const SharingMatrix& w) {
  double all = static_cast<double>(w.size()) * (w.size() - 1) / 2;
  return static_cast<double>(w.pairs()) >= kDenseShare * all;
}

class Refiner {
 public:
  Refiner(const SharingMatrix& w, const std::vector<int>& weight, int k, std::vector<int>& part)
      : w_(w), weight_(weight), k_(k), part_(part), n_(w.size()) {
    conn_.assign(static_cast<size_t>(n_) * k_, 0.0);
    load_.assign(k_, 0);
    for (int i = 0; i < n_; ++i) {
      load_[part_[i]] += weight_[i];
      SharingMatrix::Row r = w_.row(i);
      for (size_t e = 0; e < r.size; ++e) conn(i, part_[r.to[e]]) += r.w[e];
    }
    // Kernighan-Lin weighs every pair: a small dense copy spares the lookups.
    if (n_ <= std::max(kKernighanLinMax, kGrownKernighanLinMax)) fill_dense();
  }

  // The matrix as a dense row-major table in dense_.
  void fill_dense() {
    dense_.assign(static_cast<size_t>(n_) * n_, 0.0);
    for (int i = 0; i < n_; ++i) {
      SharingMatrix::Row r = w_.row(i);
      for (size_t e = 0; e < r.size; ++e) dense_[static_cast<size_t>(i) * n_ + r.to[e]] = r.w[e];
    }
  }

  // Moves items out of over-full parts until every part holds exactly its
  // target; where no move fits (a pair where a single thread is missing),
  // swaps a larger item for a smaller one. Each step lowers the imbalance.
  void repair(const std::vector<int>& target) {
    while (!exact(target)) {
      bool moved = move_out(target);
      if (!exact(target) && !swap_toward(target) && !moved) break;
    }
    if (!exact(target)) throw Error("partition: item sizes cannot meet the part sizes");
  }

  // One sweep: items of over-full parts in order of their best gain, each to
  // the best part with room at the time it moves. O(n k + E).
  bool move_out(const std::vector<int>& target) {
    std::vector<std::pair<double, int>> order;
    for (int i = 0; i < n_; ++i) {
      int from = part_[i];
      if (load_[from] <= target[from]) continue;
      double best = -INFINITY;
      for (int to = 0; to < k_; ++to)
        if (to != from && load_[to] < target[to]) best = std::max(best, conn(i, to) - conn(i, from));
      order.emplace_back(-best, i);
    }
    std::sort(order.begin(), order.end());
    bool moved = false;
    for (const auto& o : order) {
      int i = o.second, from = part_[i];
      if (load_[from] <= target[from]) continue;
      int best_to = -1;
      double best_gain = -INFINITY;
      for (int to = 0; to < k_; ++to) {
        if (to == from || load_[to] + weight_[i] > target[to]) continue;
        double gain = conn(i, to) - conn(i, from);
        if (gain > best_gain) best_gain = gain, best_to = to;
      }
      if (best_to >= 0) move(i, best_to), moved = true;
    }
    return moved;
  }

  // Items of two sizes (pairs and a single thread) can leave a part one
  // over while another is one under, each holding the wrong size: swap a
  // larger item of the first for a smaller one of the second, best gain
  // first. Rare and local, so a plain scan.
  bool swap_toward(const std::vector<int>& target) {
    int bi = -1, bj = -1;
    double best = -INFINITY;
    for (int i = 0; i < n_; ++i) {
      int p = part_[i], over = load_[p] - target[p];
      if (over <= 0) continue;
      for (int j = 0; j < n_; ++j) {
        int q = part_[j], under = target[q] - load_[q], d = weight_[i] - weight_[j];
        if (q == p || under <= 0 || d <= 0 || d > over || d > under) continue;
        double g = swap_gain(i, j);
        if (g > best) best = g, bi = i, bj = j;
      }
    }
    if (bi < 0) return false;
    swap(bi, bj);
    return true;
  }

  // Swaps of equal-weight items, each item against every item of the
  // kSwapPartsTried parts it shares most with, its best swap applied: a
  // wider search than refine()'s pairing of best movers, which leaves the
  // whole-tree refinement (refine_placement) several passes of exchanges
  // to find on CG's flat profiles (2.7 ms of a 256-thread lpgp placement;
  // 0.6 ms after this). O(n^2 + n (n / k) kSwapPartsTried) per pass.
  void swap_search() {
    std::vector<std::vector<int>> members(k_);
    // Rows read whole, pass after pass: on a dense set (at most twice its
    // pairs' storage) of at most kSwapTableMax items as one table; else
    // each row spread out per item.
    if (dense_.empty() && n_ <= kSwapTableMax && dense(w_)) fill_dense();
    bool table = !dense_.empty();
    if (!table) row_.assign(n_, 0.0);
    for (int pass = 0; pass < 16; ++pass) {
      for (auto& m : members) m.clear();
      for (int i = 0; i < n_; ++i) members[part_[i]].push_back(i);
      bool improved = false;
      for (int i = 0; i < n_; ++i) {
        int from = part_[i], best_j = -1;
        double best = 1e-9 * (1 + std::abs(conn(i, from)));
        int tried[kSwapPartsTried];
        size_t ntried = strongest_parts(i, tried);
        if (ntried == 0) continue;
        // i's row, from the table or spread out once: every candidate reads it.
        SharingMatrix::Row r = w_.row(i);
        if (!table)
          for (size_t e = 0; e < r.size; ++e) row_[r.to[e]] = r.w[e];
        const double* wi = table ? &dense_[static_cast<size_t>(i) * n_] : row_.data();
        for (size_t t = 0; t < ntried; ++t) {
          int to = tried[t];
          const double i_part = moving_gain(i, to);  // once per part, not per candidate
          for (int j : members[to]) {
            if (part_[j] != to || weight_[j] != weight_[i]) continue;
            double g = swap_gain(i_part, from, j, wi[j]);
            if (g > best) best = g, best_j = j;
          }
        }
        if (!table)
          for (size_t e = 0; e < r.size; ++e) row_[r.to[e]] = 0;
        if (best_j < 0) continue;
        int to = part_[best_j];
        swap(i, best_j);
        std::replace(members[to].begin(), members[to].end(), best_j, i);
        std::replace(members[from].begin(), members[from].end(), i, best_j);
        improved = true;
      }
      if (!improved) break;
    }
  }

  bool exact(const std::vector<int>& target) const {
    for (int p = 0; p < k_; ++p)
      if (load_[p] != target[p]) return false;
    return true;
  }

  // Kernighan-Lin passes over swaps: tentatively apply the best swap of
  // unlocked items even when it loses, lock both, and keep the best prefix of
  // the pass. Escapes the local optima greedy swapping stops in; O(n^2 log d)
  // per step, so used on small sets only.
  void kernighan_lin() {
    for (int pass = 0; pass < 10; ++pass) {
      std::vector<char> locked(n_, 0);
      std::vector<std::pair<int, int>> done;
      double sum = 0, best_sum = 0;
      size_t best_len = 0;
      while (true) {
        int bi = -1, bj = -1;
        double bg = -INFINITY;
        for (int i = 0; i < n_; ++i) {
          if (locked[i]) continue;
          for (int j = i + 1; j < n_; ++j) {
            if (locked[j] || part_[j] == part_[i] || weight_[j] != weight_[i]) continue;
            double g = swap_gain(i, j);
            if (g > bg) bg = g, bi = i, bj = j;
          }
        }
        if (bi < 0) break;
        swap(bi, bj);
        locked[bi] = locked[bj] = 1;
        done.emplace_back(bi, bj);
        sum += bg;
        if (sum > best_sum + 1e-9 * (1 + std::abs(best_sum))) best_sum = sum, best_len = done.size();
      }
      for (size_t k = done.size(); k > best_len; --k) swap(done[k - 1].first, done[k - 1].second);
      if (best_len == 0) break;
    }
  }

  // Swaps of equal-weight items across parts while they keep more sharing.
  // Each pass ranks every item by its best move, then pairs an item of part
  // a that wants b with an item of b that wants a, best first: O(n k + E)
  // per pass, whatever the number of parts.
  void refine() {
    for (int pass = 0; pass < 16; ++pass) {
      // (from, to, item weight) -> items by gain, best first
      std::map<std::tuple<int, int, int>, std::vector<std::pair<double, int>>> want;
      for (int i = 0; i < n_; ++i) {
        int from = part_[i], to = -1;
        double best = -INFINITY;
        for (int p = 0; p < k_; ++p)
          if (p != from && conn(i, p) > best) best = conn(i, p), to = p;
        if (to < 0 || best <= 0) continue;
        want[{from, to, weight_[i]}].emplace_back(best - conn(i, from), i);
      }
      bool improved = false;
      for (auto& entry : want) {
        int a, b, wt;
        std::tie(a, b, wt) = entry.first;
        if (a > b) continue;
        auto other = want.find({b, a, wt});
        if (other == want.end()) continue;
        auto& xs = entry.second;
        auto& ys = other->second;
        std::sort(xs.begin(), xs.end(), std::greater<>());
        std::sort(ys.begin(), ys.end(), std::greater<>());
        for (size_t x = 0, y = 0; x < xs.size() && y < ys.size(); ++x, ++y) {
          int i = xs[x].second, j = ys[y].second;
          if (part_[i] != a || part_[j] != b) continue;
          double g = swap_gain(i, j);
          if (g <= 1e-9 * (1 + std::abs(conn(i, a)) + std::abs(conn(j, b)))) break;
          swap(i, j);
          improved = true;
        }
      }
      if (!improved) break;
    }
  }

 private:
  double& conn(int i, int p) { return conn_[static_cast<size_t>(i) * k_ + p]; }
  double conn(int i, int p) const { return conn_[static_cast<size_t>(i) * k_ + p]; }

  // The kSwapPartsTried parts other than its own that item i shares most
  // with, and shares anything with; returns how many.
  size_t strongest_parts(int i, int* out) {
    const size_t most = kSwapPartsTried;
    size_t got = 0;
    for (int p = 0; p < k_; ++p) {
      double v = conn(i, p);
      if (p == part_[i] || v <= 0 || (got == most && v <= conn(i, out[most - 1]))) continue;
      size_t at = got < most ? got++ : most - 1;
      while (at > 0 && conn(i, out[at - 1]) < v) out[at] = out[at - 1], --at;
      out[at] = p;
    }
    return got;
  }

  double swap_gain(int i, int j) {
    return swap_gain(i, j, dense_.empty() ? w_.remainder(i, j) : dense_[static_cast<size_t>(i) * n_ + j]);
  }
  // The same when the caller has w(i, j) at hand.
  double swap_gain(int i, int j, double wij) { return swap_gain(moving_gain(i, part_[j]), part_[i], j, wij); }
  // i's part of a swap into part `to`: what it would share there less what
  // it shares in its own.
  double moving_gain(int i, int to) const { return conn(i, to) - conn(i, part_[i]); }
  // The swap of an item of part `from`, its part of the gain known, with j
  // (the sums in the order above: the same gain to the last bit).
  double swap_gain(double i_part, int from, int j, double wij) const {
    return i_part + conn(j, from) - conn(j, part_[j]) - 2 * wij;
  }

  void swap(int i, int j) {
    int pi = part_[i], pj = part_[j];
    move(i, pj);
    move(j, pi);
  }

  void move(int i, int to) {
    int from = part_[i];
    SharingMatrix::Row r = w_.row(i);
    for (size_t e = 0; e < r.size; ++e) {
      conn(r.to[e], from) -= r.w[e];
      conn(r.to[e], to) += r.w[e];
    }
    load_[from] -= weight_[i];
    load_[to] += weight_[i];
    part_[i] = to;
  }

  const SharingMatrix& w_;
  const std::vector<int>& weight_;
  int k_;
  std::vector<int>& part_;
  int n_;
  std::vector<double> conn_;
  std::vector<int> load_;
  std::vector<double> dense_;  // remainder, row-major, for small sets only
  std::vector<double> row_;    // swap_search: the current item's row, spread out
};

// The greedy cut, refined. A sparse set's is kept when it keeps nearly
// what any cut could (kCloseToBound); else empty, and METIS cuts. METIS
// grows several bisections with FM passes at each of its levels (0.15 ms
// for 32 pairs into 4 packages, most of a 64-thread placement); on
// stencils, where the greedy cut keeps less, the bound sends the set to
// METIS. A dense set's (real profiles) is kept after a swap search: the
// bound is loose there (on CG's flat profiles no cut comes near it, and
// METIS after the greedy cut doubled a 64-thread placement's time for the
// same sharing kept), and on the profiler's CG, MG and stencil profiles
// this cut keeps as much or more than METIS did.
std::vector<int> grown_cut(const SharingMatrix& w, const std::vector<int>& weight, const std::vector<int>& target) {
  std::vector<int> part = grown_start(w, weight, target);
  Refiner r(w, weight, static_cast<int>(target.size()), part);
  r.repair(target);
  r.refine();
  if (w.size() <= kGrownKernighanLinMax) r.kernighan_lin();
  if (dense(w)) {
    r.swap_search();
    return part;
  }
  if (kept_weight(w, part) < kCloseToBound * keep_bound(w, most_items(weight, target))) return {};
  return part;
}

// Each part's target split into up to kGroupsPerPart near-equal groups.
std::vector<int> group_targets(const std::vector<int>& target) {
  std::vector<int> groups;
  for (int t : target) {
    int q = std::max(1, std::min(kGroupsPerPart, t / 2));
    for (int i = 0; i < q; ++i) groups.push_back(t / q + (i < t % q ? 1 : 0));
  }
  return groups;
}

// A dense set of many items cut as a multilevel partitioner would, with
// EagerMap's greedy grouping as the coarsening: items grown into small
// groups (grown_start), the groups' graph cut by partition_items (at most
// kGroupsPerPart x parts items: the small-set paths), then every item
// repaired and refined in its part. On dense profiles METIS's bisections
// cost O(E) per coarsening level and several initial cuts at each of its
// log k levels (1-2 ms of a 256-thread placement); the groups' graph is a
// sixteenth of the pairs. Empty when the groups would not shrink the set.
std::vector<int> coarse_cut(const SharingMatrix& w, const std::vector<int>& weight, const std::vector<int>& target,
                            uint64_t seed) {
  int n = w.size();
  std::vector<int> fine = group_targets(target);
  if (2 * fine.size() > static_cast<size_t>(n)) return {};
  std::vector<int> group_of = grown_start(w, weight, fine);
  std::vector<std::vector<int>> groups(fine.size());
  for (int i = 0; i < n; ++i) groups[group_of[i]].push_back(i);
  groups.erase(std::remove_if(groups.begin(), groups.end(), [](const std::vector<int>& g) { return g.empty(); }),
               groups.end());
  std::vector<int> group_weight;
  for (const auto& g : groups) {
    int sum = 0;
    for (int i : g) sum += weight[i];
    group_weight.push_back(sum);
  }
  // Group sizes need not add up to the targets: the repair below moves
  // items, not groups.
  SharingMatrix between = w.between(groups);
  std::vector<int> group_part;
  try {
    group_part = partition_items(between, group_weight, target, seed);
  } catch (const Error&) {
    group_part = metis_partition(between, group_weight, target, seed);
  }
  std::vector<int> part(n);
  for (size_t g = 0; g < groups.size(); ++g)
    for (int i : groups[g]) part[i] = group_part[g];
  Refiner r(w, weight, static_cast<int>(target.size()), part);
  r.repair(target);
  r.refine();
  r.swap_search();
  return part;
}

// Parts numbered among the live ones, as the caller numbers them.
std::vector<int> relabel(std::vector<int> part, const std::vector<int>& live) {
  for (int& p : part) p = live[p];
  return part;
}

}  // namespace

std::vector<int> partition_greedily(const SharingMatrix& w, const std::vector<int>& weight,
                                    const std::vector<int>& target) {
  // Grown over each item's strongest edges, as METIS is given them: each
  // part's growth then reads O(n kMetisDegree), not every pair of a dense
  // matrix; the refinement sees every edge.
  SharingMatrix sparse = strongest_edges(w);
  std::vector<int> part = grown_start(sparse.size() ? sparse : w, weight, target);
  Refiner r(w, weight, static_cast<int>(target.size()), part);
  r.repair(target);
  r.refine();
  r.swap_search();
  return part;
}

std::vector<int> partition_items(const SharingMatrix& w, const std::vector<int>& weight,
                                 const std::vector<int>& target, uint64_t seed) {
  int k = static_cast<int>(target.size());
  if (k == 1) return std::vector<int>(w.size(), 0);
  // Parts with a zero target take nothing: partition among the others.
  std::vector<int> live, live_target;
  for (int p = 0; p < k; ++p)
    if (target[p] > 0) live.push_back(p), live_target.push_back(target[p]);
  int n = w.size(), parts = static_cast<int>(live.size());
  // Any assignment that fits is optimal: skip METIS and the refinement.
  if (nothing_to_keep(weight, live_target)) {
    std::vector<int> part(n, 0);
    Refiner r(w, weight, parts, part);
    r.repair(live_target);
    return relabel(std::move(part), live);
  }
  if (n > kGrownMax && parts > 1 && dense(w)) {
    std::vector<int> part = coarse_cut(w, weight, live_target, seed);
    if (!part.empty()) return relabel(std::move(part), live);
  }
  if (n > kKernighanLinMax && n <= kGrownMax) {
    std::vector<int> part = grown_cut(w, weight, live_target);
    if (!part.empty()) return relabel(std::move(part), live);
  }
  // Small sets are cheap: Kernighan-Lin from a few random starts, keep the
  // best. No METIS start there: its bisections try several growths each
  // however small the graph (a third of a 128-thread placement went to the
  // cuts of 16 threads), and the exchanges keep as much sharing without it.
  // The starts end at one that keeps the bound: a 16-thread set of two
  // 8-thread blocks (the cut of a NUMA node onto its two L3s) needed one
  // start of 8 there (a fifth of 100 regions' placing time).
  bool small = n <= kKernighanLinMax;
  auto start = [&](int s) {
    std::vector<int> part = !small && parts > 1 && n > parts ? metis_partition(w, weight, live_target, seed)
                                                             : shuffled_start(n, parts, seed + s);
    Refiner r(w, weight, parts, part);
    r.repair(live_target);
    r.refine();
    if (small) r.kernighan_lin();
    return part;
  };
  if (!small) return relabel(start(0), live);  // one start: nothing to compare it with
  double bound = keep_bound(w, most_items(weight, live_target));
  return relabel(best_of_starts(kSmallSetStarts, bound, start, [&](const std::vector<int>& part) {
                   return kept_weight(w, part);
                 }),
                 live);
}

bool nothing_to_keep(const std::vector<int>& weight, const std::vector<int>& target) {
  int lightest = weight.empty() ? 1 : *std::min_element(weight.begin(), weight.end());
  return std::all_of(target.begin(), target.end(), [&](int t) { return t < 2 * lightest; });
}

double kept_weight(const SharingMatrix& w, const std::vector<int>& part) {
  double s = 0;
  for (int i = 0; i < w.size(); ++i) {
    SharingMatrix::Row r = w.row(i);
    for (size_t e = 0; e < r.size; ++e)
      if (r.to[e] > i && part[i] == part[r.to[e]]) s += r.w[e];
  }
  return s;
}

}  // namespace slurmpin
