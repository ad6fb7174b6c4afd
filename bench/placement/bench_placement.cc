// SPDX-License-Identifier: GPL-2.0-or-later
// bench/placement: time of every strategy at 16..1024 threads on 4-level
// synthetic machines, and, at 16 threads, quality against the exhaustive
// optimum. All numbers are measured in this run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "affinity.hh"
#include "brute_pairing.hh"
#include "matching.hh"
#include "orders.hh"
#include "profile_guided.hh"
#include "score.hh"
#include "strategy.hh"
#include "topology.hh"

using namespace slurmpin;

namespace {

struct Machine {
  int threads;
  const char* synthetic;
};

const Machine kMachines[] = {
    {16, "pack:2 l3:2 l2:2 core:2 pu:1"},
    {64, "pack:2 l3:2 l2:8 core:2 pu:1"},
    {256, "pack:4 l3:2 l2:16 core:2 pu:1"},
    {1024, "pack:8 l3:4 l2:16 core:2 pu:1"},
};

const Strategy kStrategies[] = {Strategy::kCompact, Strategy::kScatter, Strategy::kRandom,
                                Strategy::kLpCompact, Strategy::kLpScatter, Strategy::kGp,
                                Strategy::kLpgp, Strategy::kGplp};

// Sharing with a hidden structure (pairs, groups of 4 and 8, shuffled thread
// ids) plus uniform noise: what profiles of structured codes look like.
Affinity structured(int n, std::mt19937_64& rng) {
  std::vector<int> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  std::uniform_real_distribution<double> noise(0, 20);
  Affinity w(n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      double v = i / 2 == j / 2 ? 400 : i / 4 == j / 4 ? 100 : i / 8 == j / 8 ? 30 : 0;
      w.set(perm[i], perm[j], std::floor(v + noise(rng)));
    }
  return w;
}

// No structure at all: the hardest case for every heuristic.
Affinity uniform(int n, std::mt19937_64& rng) {
  Affinity w(n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) w.set(i, j, static_cast<double>(rng() % 1000));
  return w;
}

std::vector<int> run(const Tree& t, Strategy s, const Affinity& w) {
  switch (s) {
    case Strategy::kCompact: return compact_order(t, t.root);
    case Strategy::kScatter: return scatter_order(t, t.root);
    case Strategy::kRandom: return random_order(compact_order(t, t.root), 7);
    default: return place_profile_guided(t, w, s, 1);
  }
}

// Sharing kept in the domains below the root (the root keeps everything).
double quality(const Tree& t, const std::vector<int>& slots, const Affinity& w) {
  double q = 0;
  for (const auto& l : score_levels(t, {std::vector<int>(slots.begin(), slots.begin() + w.size())}, &w))
    if (l.domains > 1) q += l.kept;
  return q;
}

double median_ms(const std::function<void()>& f) {
  std::vector<double> ms;
  auto start = std::chrono::steady_clock::now();
  do {
    auto a = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  } while (ms.size() < 5 || (ms.size() < 50 &&
                              std::chrono::steady_clock::now() - start < std::chrono::milliseconds(300)));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Exhaustive optimum of the quality on a regular binary tree of 16 slots:
// best(S) over every way of halving S at every level (memoised on subsets).
class Exhaustive {
 public:
  explicit Exhaustive(const Affinity& w) : w_(w) {}
  double best() { return solve((1u << w_.size()) - 1, true); }

 private:
  double inside(unsigned set) const {
    double s = 0;
    for (int i = 0; i < w_.size(); ++i)
      if (set >> i & 1)
        for (int j = i + 1; j < w_.size(); ++j)
          if (set >> j & 1) s += w_(i, j);
    return s;
  }

  double solve(unsigned set, bool root) {
    int size = __builtin_popcount(set);
    if (size == 1) return 0;
    auto it = memo_.find(set);
    if (it != memo_.end()) return it->second;
    unsigned low = set & -set, rest = set & ~low;
    double best = 0;
    // Halves containing the lowest member, so each split is seen once.
    for (unsigned sub = rest;; sub = (sub - 1) & rest) {
      unsigned half = sub | low;
      if (__builtin_popcount(half) == size / 2)
        best = std::max(best, solve(half, false) + solve(set & ~half, false));
      if (sub == 0) break;
    }
    double value = best + (root ? 0 : inside(set));
    memo_[set] = value;
    return value;
  }

  const Affinity& w_;
  std::map<unsigned, double> memo_;
};

// The best cut of 16 threads into four groups of four (GP's own objective
// at the L3 level of the 16-thread machine), by DP over subsets.
class BestGroups {
 public:
  explicit BestGroups(const Affinity& w) : w_(w) {}
  double best() { return solve((1u << w_.size()) - 1); }

 private:
  double solve(unsigned set) {
    if (!set) return 0;
    auto it = memo_.find(set);
    if (it != memo_.end()) return it->second;
    unsigned low = set & -set, rest = set & ~low;
    double best = 0;
    for (unsigned sub = rest;; sub = (sub - 1) & rest) {
      if (__builtin_popcount(sub) == 3) {
        unsigned g = sub | low;
        double in = 0;
        for (int i = 0; i < w_.size(); ++i)
          if (g >> i & 1)
            for (int j = i + 1; j < w_.size(); ++j)
              if (g >> j & 1) in += w_(i, j);
        best = std::max(best, in + solve(set & ~g));
      }
      if (sub == 0) break;
    }
    return memo_[set] = best;
  }

  const Affinity& w_;
  std::map<unsigned, double> memo_;
};

double kept_at(const Tree& t, const std::vector<int>& slots, const Affinity& w, const std::string& kind) {
  for (const auto& l : score_levels(t, {std::vector<int>(slots.begin(), slots.begin() + w.size())}, &w))
    if (l.kind == kind) return l.kept;
  return 0;
}

Tree load(const char* synthetic) {
  TopologySpec spec;
  spec.source = synthetic;
  return load_topology(spec).tree;
}

void timing() {
  std::printf("time per placement (median ms; matrix: hidden pairs/groups + noise)\n%-8s", "threads");
  for (Strategy s : kStrategies) std::printf(" %10s", strategy_info(s).name);
  std::printf("\n");
  std::mt19937_64 rng(1);
  for (const Machine& m : kMachines) {
    Tree t = load(m.synthetic);
    Affinity w = structured(m.threads, rng);
    std::printf("%-8d", m.threads);
    for (Strategy s : kStrategies) std::printf(" %10.3f", median_ms([&] { run(t, s, w); }));
    std::printf("\n");
  }
}

void optimality() {
  const int kInstances = 10;
  Tree t = load(kMachines[0].synthetic);
  std::printf("\nquality / exhaustive optimum at 16 threads on '%s', %d matrices each\n"
              "(quality: sharing kept inside Package, L3 and L2 domains, summed)\n",
              kMachines[0].synthetic, kInstances);
  std::mt19937_64 rng(2);
  std::map<std::string, std::map<Strategy, std::vector<double>>> ratio;
  std::map<std::string, std::vector<double>> pairs, cuts;
  const char* kinds[] = {"structured", "uniform"};
  for (const char* kind : kinds)
    for (int k = 0; k < kInstances; ++k) {
      Affinity w = kind[0] == 's' ? structured(16, rng) : uniform(16, rng);
      double opt = Exhaustive(w).best();
      for (Strategy s : kStrategies) ratio[kind][s].push_back(quality(t, run(t, s, w), w) / opt);
      pairs[kind].push_back(pairing_weight(w, max_weight_pairing(w)) / test::brute_force_pairing(w));
      cuts[kind].push_back(kept_at(t, run(t, Strategy::kGp, w), w, "L3") / BestGroups(w).best());
    }
  auto row = [&](const std::string& name, const std::map<std::string, std::vector<double>>& by_kind) {
    std::printf("%-34s", name.c_str());
    for (const char* kind : kinds) {
      const auto& r = by_kind.at(kind);
      std::printf("   %6.3f %6.3f", std::accumulate(r.begin(), r.end(), 0.0) / r.size(),
                  *std::min_element(r.begin(), r.end()));
    }
    std::printf("\n");
  };
  std::printf("%-34s   %-13s   %-13s\n%-34s   %6s %6s   %6s %6s\n", "", "structured", "uniform", "",
              "mean", "min", "mean", "min");
  for (Strategy s : kStrategies) {
    std::map<std::string, std::vector<double>> by_kind;
    for (const char* kind : kinds) by_kind[kind] = ratio[kind][s];
    row(strategy_info(s).name, by_kind);
  }
  row("LP pairing / brute-force pairing", pairs);
  row("GP kept in L3s / best 4x4 cut", cuts);
}

}  // namespace

int main() {
  timing();
  optimality();
  return 0;
}
