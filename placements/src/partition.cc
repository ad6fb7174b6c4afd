// SPDX-License-Identifier: GPL-2.0-or-later
#include "partition.hh"

#include <metis.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "error.hh"

namespace slurmpin {

namespace {

constexpr int kKernighanLinMax = 64;

// METIS wants integer edge weights whose sum fits idx_t: scale to <= 2^30 in
// total and 10^6 per edge, keeping every positive weight at least 1.
std::vector<int> metis_partition(const Affinity& w, const std::vector<int>& weight,
                                 const std::vector<int>& target, uint64_t seed) {
  idx_t n = w.size(), ncon = 1, nparts = static_cast<idx_t>(target.size());
  double total = 0, max = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) total += w(i, j), max = std::max(max, w(i, j));
  std::vector<int> part(n, 0);
  if (total <= 0) return part;  // no edge: nothing for METIS to cut
  double scale = std::min(1073741824.0 / total, 1e6 / max);

  std::vector<idx_t> xadj{0}, adjncy, adjwgt, vwgt(weight.begin(), weight.end()), out(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      if (i != j && w(i, j) > 0) {
        adjncy.push_back(j);
        adjwgt.push_back(std::max<idx_t>(1, static_cast<idx_t>(std::llround(w(i, j) * scale))));
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
  // Recursive bisection is better for few parts, k-way for many (METIS docs).
  auto fn = nparts <= 8 ? METIS_PartGraphRecursive : METIS_PartGraphKway;
  int rc = fn(&n, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr, adjwgt.data(), &nparts,
              tpwgts.data(), nullptr, options, &cut, out.data());
  if (rc != METIS_OK) {
    // METIS declines degenerate graphs; the repair below then builds the parts.
    return part;
  }
  for (idx_t i = 0; i < n; ++i) part[i] = static_cast<int>(out[i]);
  return part;
}

// A random assignment for a restart; the repair step balances it.
std::vector<int> shuffled_start(int n, int parts, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> part(n);
  for (int i = 0; i < n; ++i) part[i] = static_cast<int>(rng() % static_cast<uint64_t>(parts));
  return part;
}

class Refiner {
 public:
  Refiner(const Affinity& w, const std::vector<int>& weight, int k, std::vector<int>& part)
      : w_(w), weight_(weight), k_(k), part_(part), n_(w.size()) {
    conn_.assign(static_cast<size_t>(n_) * k_, 0.0);
    load_.assign(k_, 0);
    for (int i = 0; i < n_; ++i) {
      load_[part_[i]] += weight_[i];
      for (int j = 0; j < n_; ++j)
        if (j != i) conn(i, part_[j]) += w_(i, j);
    }
  }

  // Moves items out of over-full parts, best gain first, until every part
  // holds exactly its target.
  void repair(const std::vector<int>& target) {
    while (true) {
      int best_i = -1, best_to = -1;
      double best_gain = -INFINITY;
      for (int i = 0; i < n_; ++i) {
        int from = part_[i];
        if (load_[from] <= target[from]) continue;
        for (int to = 0; to < k_; ++to) {
          if (to == from || load_[to] + weight_[i] > target[to]) continue;
          double gain = conn(i, to) - conn(i, from);
          if (gain > best_gain) best_gain = gain, best_i = i, best_to = to;
        }
      }
      if (best_i < 0) break;
      move(best_i, best_to);
    }
    for (int p = 0; p < k_; ++p)
      if (load_[p] != target[p]) throw Error("partition: item sizes cannot meet the part sizes");
  }

  // Kernighan-Lin passes over swaps: tentatively apply the best swap of
  // unlocked items even when it loses, lock both, and keep the best prefix of
  // the pass. Escapes the local optima greedy swapping stops in; O(n^3) per
  // pass, so used on small sets only.
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

  // Swaps equal-weight items across parts while a swap keeps more sharing.
  void refine() {
    for (int pass = 0; pass < 8; ++pass) {
      bool improved = false;
      for (int i = 0; i < n_; ++i) {
        int best_j = -1;
        double best_gain = 1e-9 * (1 + std::abs(conn(i, part_[i])));
        for (int j = i + 1; j < n_; ++j) {
          if (part_[j] == part_[i] || weight_[j] != weight_[i]) continue;
          double gain = swap_gain(i, j);
          if (gain > best_gain) best_gain = gain, best_j = j;
        }
        if (best_j >= 0) {
          swap(i, best_j);
          improved = true;
        }
      }
      if (!improved) break;
    }
  }

 private:
  double& conn(int i, int p) { return conn_[static_cast<size_t>(i) * k_ + p]; }

  double swap_gain(int i, int j) {
    return conn(i, part_[j]) - conn(i, part_[i]) + conn(j, part_[i]) - conn(j, part_[j]) - 2 * w_(i, j);
  }

  void swap(int i, int j) {
    int pi = part_[i], pj = part_[j];
    move(i, pj);
    move(j, pi);
  }

  void move(int i, int to) {
    int from = part_[i];
    for (int j = 0; j < n_; ++j) {
      if (j == i) continue;
      double x = w_(i, j);
      if (x == 0) continue;
      conn(j, from) -= x;
      conn(j, to) += x;
    }
    load_[from] -= weight_[i];
    load_[to] += weight_[i];
    part_[i] = to;
  }

  const Affinity& w_;
  const std::vector<int>& weight_;
  int k_;
  std::vector<int>& part_;
  int n_;
  std::vector<double> conn_;
  std::vector<int> load_;
};

}  // namespace

std::vector<int> partition_items(const Affinity& w, const std::vector<int>& weight,
                                 const std::vector<int>& target, uint64_t seed) {
  int k = static_cast<int>(target.size());
  if (k == 1) return std::vector<int>(w.size(), 0);
  // Parts with a zero target take nothing: partition among the others.
  std::vector<int> live, live_target;
  for (int p = 0; p < k; ++p)
    if (target[p] > 0) live.push_back(p), live_target.push_back(target[p]);
  int n = w.size(), parts = static_cast<int>(live.size());
  // No part can take two items: nothing can be kept together, so any
  // assignment that fits is optimal; skip METIS and the refinement.
  int lightest = n ? *std::min_element(weight.begin(), weight.end()) : 1;
  if (std::all_of(live_target.begin(), live_target.end(), [&](int t) { return t < 2 * lightest; })) {
    std::vector<int> part(n, 0);
    Refiner r(w, weight, parts, part);
    r.repair(live_target);
    for (int& p : part) p = live[p];
    return part;
  }
  // Small sets are cheap: refine from several METIS seeds, keep the best.
  int starts = n <= 16 ? 16 : n <= kKernighanLinMax ? 4 : 1;
  std::vector<int> best;
  double best_kept = -1;
  for (int s = 0; s < starts; ++s) {
    std::vector<int> part = s == 0 && parts > 1 && n > parts
                                ? metis_partition(w, weight, live_target, seed)
                                : shuffled_start(n, parts, seed + s);
    Refiner r(w, weight, parts, part);
    r.repair(live_target);
    r.refine();
    if (n <= kKernighanLinMax) r.kernighan_lin();
    double kept = kept_weight(w, part);
    if (kept > best_kept) best_kept = kept, best = part;
  }
  for (int& p : best) p = live[p];
  return best;
}

double kept_weight(const Affinity& w, const std::vector<int>& part) {
  double s = 0;
  for (int i = 0; i < w.size(); ++i)
    for (int j = i + 1; j < w.size(); ++j)
      if (part[i] == part[j]) s += w(i, j);
  return s;
}

}  // namespace slurmpin
