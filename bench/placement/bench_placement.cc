// SPDX-License-Identifier: GPL-2.0-or-later
// bench/placement: in-algorithm time and hop cost of the profile-guided
// strategies at 16..16384 threads on 4- and 5-level synthetic machines, with
// block, 2-D stencil (natural and shuffled), uniform and master-worker
// sharing; quality against the exhaustive optimum at 16 threads; the quality
// cases of fewer threads than cores and trees without a pair level; 16384
// threads with a sparse 3-D stencil. Every number is measured in this run.
//
//   bench_placement [--eagermap PATH] [--max THREADS] [--runs K]
//
// With --eagermap (a build of EagerMap's public maptool, which is not
// shipped here), every matrix is also written as EagerMap's CSV, EagerMap is
// run on the equivalent tree, and its own timer and mapping are read back,
// so both columns come from the same matrices in the same run.
#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "sharing/profile.hh"
#include "sharing/sharing_matrix.hh"
#include "strategies/orders.hh"
#include "slurm_pin_frontend.h"
#include "strategies/profile_guided.hh"
#include "strategies/score.hh"
#include "strategies/strategy.hh"
#include "strategies/task_traffic.hh"
#include "topology/topology.hh"

using namespace slurmpin;

namespace {

struct Options {
  std::string eagermap;
  std::string treematch;    // --treematch PATH: bench/placement/ranks' build of treematch_harness.c
  bool ranks_only = false;  // --ranks: the rank-traffic section alone
  int max_threads = 16384;
  int runs = 5;
  bool dense_only = false;  // --dense: the dense C API section alone
  std::string profiles;     // --profiles DIR: the profiler's profiles to place (bench/placement/run makes them)
};

// A regular machine: hwloc synthetic text and EagerMap's arities (root first).
struct Machine {
  int threads;
  const char* synthetic;
  const char* arities;
};

const Machine kFourLevel[] = {
    {16, "pack:2 l3:1 l2:4 core:2 pu:1", "1,2,4,2"},
    {64, "pack:4 l3:1 l2:8 core:2 pu:1", "1,4,8,2"},
    {256, "pack:8 l3:1 l2:16 core:2 pu:1", "1,8,16,2"},
    {1024, "pack:16 l3:1 l2:32 core:2 pu:1", "1,16,32,2"},
    {4096, "pack:32 l3:1 l2:64 core:2 pu:1", "1,32,64,2"},
};
const Machine kFiveLevel[] = {
    {16, "group:2 pack:2 l3:1 l2:2 core:2 pu:1", "1,2,2,2,2"},
    {64, "group:2 pack:2 l3:1 l2:8 core:2 pu:1", "1,2,2,8,2"},
    {256, "group:4 pack:4 l3:1 l2:8 core:2 pu:1", "1,4,4,8,2"},
    {1024, "group:4 pack:8 l3:1 l2:16 core:2 pu:1", "1,4,8,16,2"},
    {4096, "group:8 pack:8 l3:1 l2:32 core:2 pu:1", "1,8,8,32,2"},
};

const Strategy kGuided[] = {Strategy::kLpgp, Strategy::kGplp, Strategy::kGp};

// ---- matrices -------------------------------------------------------------

std::vector<int> permutation(int n, uint64_t seed) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

// Blocks of 8 threads share 100 with each other, 0 outside (halo exchange
// between groups of ranks, data blocks read by a team).
std::vector<Edge> block_matrix(int n) {
  std::vector<Edge> e;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n && j / 8 == i / 8; ++j) e.push_back({i, j, 100});
  return e;
}

// A 2-D grid of threads, each sharing 100 with its 4 neighbours; the rows
// as long as the columns or twice as long.
std::vector<Edge> stencil2d(int n) {
  int rows = 1 << static_cast<int>(std::log2(n) / 2), cols = n / rows;
  std::vector<Edge> e;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      int t = r * cols + c;
      if (c + 1 < cols) e.push_back({t, t + 1, 100});
      if (r + 1 < rows) e.push_back({t, t + cols, 100});
    }
  return e;
}

std::vector<Edge> shuffled(std::vector<Edge> e, int n, uint64_t seed) {
  std::vector<int> p = permutation(n, seed);
  for (Edge& x : e) x.i = p[x.i], x.j = p[x.j];
  return e;
}

std::vector<Edge> master_worker(int n) {
  std::vector<Edge> e;
  for (int j = 1; j < n; ++j) e.push_back({0, j, 100});
  return e;
}

// A 3-D grid (x fastest), 6 neighbours each.
std::vector<Edge> stencil3d(int n) {
  int side = static_cast<int>(std::lround(std::cbrt(n)));
  while (side * side * side > n) --side;
  int nx = side, ny = side, nz = n / (side * side);
  std::vector<Edge> e;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        int t = (z * ny + y) * nx + x;
        if (x + 1 < nx) e.push_back({t, t + 1, 100});
        if (y + 1 < ny) e.push_back({t, t + nx, 100});
        if (z + 1 < nz) e.push_back({t, t + nx * ny, 100});
      }
  return e;
}

struct Kind {
  const char* name;
  std::function<SharingMatrix(int)> make;
};

const Kind kKinds[] = {
    {"block", [](int n) { return SharingMatrix::from_edges(n, block_matrix(n)); }},
    {"stencil", [](int n) { return SharingMatrix::from_edges(n, stencil2d(n)); }},
    {"shuffled", [](int n) { return SharingMatrix::from_edges(n, shuffled(stencil2d(n), n, 11)); }},
    {"uniform", [](int n) {
       std::vector<double> d(static_cast<size_t>(n) * n, 50.0);
       return SharingMatrix::from_dense(d.data(), n);
     }},
    {"master", [](int n) { return SharingMatrix::from_edges(n, master_worker(n)); }},
};

// ---- measures -------------------------------------------------------------

Tree load(const char* synthetic, Granularity g = Granularity::kCore) {
  TopologySpec spec;
  spec.source = synthetic;
  spec.granularity = g;
  return load_topology(spec)->tree;
}

// Per slot, its ancestors from the slot up (the slot first).
std::vector<std::vector<int>> ancestors(const Tree& t) {
  std::vector<std::vector<int>> up(t.nodes.size());
  for (int s : t.slots())
    for (int n = s; n >= 0; n = t.nodes[n].parent) up[s].push_back(n);
  return up;
}

// Sum over pairs of sharing x levels from the slot up to the lowest common
// ancestor (EagerMap's and the literature's hop cost; lower is better).
double hop_cost(const Tree& t, const std::vector<int>& slot, const SharingMatrix& w) {
  std::vector<std::vector<int>> up = ancestors(t);
  auto dist = [&](int a, int b) {
    const auto &x = up[a], &y = up[b];
    size_t k = 0;  // same depth on a regular tree: compare from the top
    while (k < x.size() && x[x.size() - 1 - k] == y[y.size() - 1 - k]) ++k;
    return static_cast<double>(x.size() - k);
  };
  double h = 0;
  for (int i = 0; i < w.size(); ++i) {
    SharingMatrix::Row r = w.row(i);
    for (size_t e = 0; e < r.size; ++e)
      if (r.to[e] > i) h += r.w[e] * dist(slot[i], slot[r.to[e]]);
  }
  if (w.floor() > 0)
    for (int i = 0; i < w.size(); ++i)
      for (int j = i + 1; j < w.size(); ++j) h += w.floor() * dist(slot[i], slot[j]);
  return h;
}

double median_ms(const std::function<void()>& f, int runs) {
  std::vector<double> ms;
  auto start = std::chrono::steady_clock::now();
  do {
    auto a = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  } while (static_cast<int>(ms.size()) < runs ||
           (ms.size() < 50 && std::chrono::steady_clock::now() - start < std::chrono::milliseconds(200)));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// ---- EagerMap -------------------------------------------------------------

struct Outside {
  bool ran = false;
  double ms = 0;
  std::vector<int> pu;  // per thread
};

// EagerMap's CSV lists the last task first.
void write_csv(const SharingMatrix& w, const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "w");
  std::string line;
  for (int i = w.size() - 1; i >= 0; --i) {
    line.clear();
    for (int j = 0; j < w.size(); ++j) {
      if (j) line += ',';
      line += std::to_string(static_cast<long long>(std::llround(w(i, j))));
    }
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), f);
  }
  std::fclose(f);
}

// One run of an outside mapper: `cmd`'s output holds its own time (ms)
// after `time_key` and its mapping (one PU per thread, separated by commas
// or spaces) after `map_key`, on one line; false when it failed or printed
// neither.
bool outside_once(const std::string& cmd, const char* time_key, const char* map_key, double& ms, std::vector<int>& pu) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return false;
  char buf[1 << 16];
  std::string text;
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, got);
  if (pclose(p) != 0) return false;
  const char* t = std::strstr(text.c_str(), time_key);
  const char* m = std::strstr(text.c_str(), map_key);
  if (!t || !m) return false;
  ms = std::atof(t + std::strlen(time_key));
  pu.clear();
  for (const char* c = m + std::strlen(map_key); *c && *c != '\n';) {
    char* end;
    long v = std::strtol(c, &end, 10);
    if (end == c) break;
    pu.push_back(static_cast<int>(v));
    c = end;
    if (*c == ',') ++c;
  }
  return true;
}

// One run of EagerMap on `csv`: its own timer (ms) and mapping.
bool eagermap_once(const Options& o, const std::string& csv, const char* arities, double& ms, std::vector<int>& pu) {
  return outside_once("'" + o.eagermap + "' " + csv + " " + arities + " 2>&1", "Execution time of the algorithm: ",
                      "Mapping: ", ms, pu);
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median ms of `calls` calls of f.
double median_of_calls(const std::function<void()>& f, int calls) {
  std::vector<double> ms;
  for (int c = 0; c < calls; ++c) {
    auto a = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  return median_of(ms);
}

// EagerMap on w's CSV, and each of `ours` (may be empty), timed in turns:
// `rounds` rounds (at least 3), each one EagerMap run then every one of
// `ours` a few times (their median), so that both columns see the same
// moments of this VM, whose speed drifts within seconds. Medians over the
// rounds into `ours_ms`.
Outside eagermap_in_turns(const Options& o, const SharingMatrix& w, const char* arities,
                          const std::vector<std::function<void()>>& ours, std::vector<double>& ours_ms) {
  Outside out;
  std::vector<std::vector<double>> mine(ours.size());
  std::vector<double> times;
  char dir[] = "/tmp/bench-placement.XXXXXX";
  std::string csv;
  if (!o.eagermap.empty() && mkdtemp(dir)) write_csv(w, csv = std::string(dir) + "/m.csv");
  bool failed = false;
  for (int r = 0; r < std::max(3, o.runs); ++r) {
    double ms;
    if (!csv.empty() && !failed) {
      if (eagermap_once(o, csv, arities, ms, out.pu)) times.push_back(ms);
      else failed = true;
    }
    for (size_t k = 0; k < ours.size(); ++k) mine[k].push_back(median_of_calls(ours[k], 5));
  }
  if (!csv.empty()) {
    std::remove(csv.c_str());
    rmdir(dir);
  }
  ours_ms.clear();
  for (const auto& m : mine) ours_ms.push_back(median_of(m));
  if (failed || times.empty() || static_cast<int>(out.pu.size()) != w.size()) return Outside();
  out.ms = median_of(times);
  out.ran = true;
  return out;
}

Outside run_eagermap(const Options& o, const SharingMatrix& w, const char* arities) {
  std::vector<double> none;
  return o.eagermap.empty() ? Outside() : eagermap_in_turns(o, w, arities, {}, none);
}

// An outside mapper's mapping scored on `t`: EagerMap and TreeMatch number
// PUs in compact order (`order`).
double mapping_hop(const Tree& t, const std::vector<int>& order, const Outside& e, const SharingMatrix& w) {
  std::vector<int> slot(w.size());
  for (int i = 0; i < w.size(); ++i) slot[i] = order[e.pu[i]];
  return hop_cost(t, slot, w);
}

// Each PU's slot in `t`, for placements read back through the C API.
std::vector<int> slots_by_pu(const Tree& t) {
  std::vector<int> slot_of_pu(t.nodes[t.root].pus.back() + 1, -1);
  for (int slot : t.slots()) slot_of_pu[t.nodes[slot].pus.front()] = slot;
  return slot_of_pu;
}

// The hop cost of task 0's threads as the C API placed them.
double api_hop(const Tree& t, const std::vector<int>& slot_of_pu, sp_placement_t* p, const SharingMatrix& w) {
  std::vector<int> slot(w.size());
  for (int i = 0; i < w.size(); ++i) slot[i] = slot_of_pu[sp_get_thread_pu(p, 0, i)];
  return hop_cost(t, slot, w);
}

// ---- sections -------------------------------------------------------------

// Our strategies' columns of a table row on (t, w): median in-algorithm ms
// and hop cost, and against an outside mapper's, when it ran, the ratios
// printed with `ratio`; then the row's end.
void our_columns(const Options& o, const Tree& t, const SharingMatrix& w, const std::vector<Strategy>& strategies,
                 const Outside& other, double other_hop, const char* ratio) {
  for (Strategy s : strategies) {
    std::vector<int> slot;
    double ms = median_ms([&] { slot = place_profile_guided(t, w, s, 1); }, o.runs);
    double hop = hop_cost(t, slot, w);
    std::printf(" | %-5s %9.3f %12.0f", "", ms, hop);
    if (other.ran) std::printf(ratio, ms / other.ms, other_hop > 0 ? hop / other_hop : (hop > 0 ? INFINITY : 1.0));
  }
  std::printf("\n");
  std::fflush(stdout);
}

void scaling(const Options& o, const char* title, const Machine* machines, size_t count) {
  std::printf("\n%s: in-algorithm time (median ms) and hop cost (sum of sharing x levels to the\n"
              "lowest common ancestor, lower is better)%s\n",
              title, o.eagermap.empty() ? "" : "; ratios are slurm-pin / EagerMap (time <= 1 and hop <= 1: as fast, as good)");
  std::printf("%-6s %-9s", "thr", "matrix");
  if (!o.eagermap.empty()) std::printf(" %10s %12s", "eager ms", "eager hop");
  for (Strategy s : kGuided)
    std::printf(" | %-5s %9s %12s%s", strategy_info(s).name, "ms", "hop", o.eagermap.empty() ? "" : "  t/E   h/E");
  std::printf("\n");
  for (size_t m = 0; m < count; ++m) {
    const Machine& mc = machines[m];
    if (mc.threads > o.max_threads) continue;
    Tree t = load(mc.synthetic);
    std::vector<int> order = compact_order(t, t.root);
    for (const Kind& k : kKinds) {
      SharingMatrix w = k.make(mc.threads);
      Outside e = run_eagermap(o, w, mc.arities);
      std::printf("%-6d %-9s", mc.threads, k.name);
      double ehop = 0;
      if (!o.eagermap.empty()) {
        if (e.ran) {
          ehop = mapping_hop(t, order, e, w);
          std::printf(" %10.3f %12.0f", e.ms, ehop);
        } else {
          std::printf(" %10s %12s", "failed", "-");
        }
      }
      our_columns(o, t, w, {std::begin(kGuided), std::end(kGuided)}, e, ehop, "  %4.2f %5.3f");
    }
  }
}

// Exhaustive optimum of the hop cost of 16 threads on a regular tree: at
// each level, every way to cut a set into `arity` equal groups (memoised on
// subsets), the sharing between groups paying the levels above.
class Exhaustive {
 public:
  Exhaustive(const SharingMatrix& w, std::vector<int> arities) : w_(w), arity_(std::move(arities)) {}
  // Sharing kept below the root, summed over levels (maximal <=> minimal hop).
  double best_kept() { return solve((1u << w_.size()) - 1, 0); }

 private:
  double inside(unsigned set) const {
    double s = 0;
    for (int i = 0; i < w_.size(); ++i)
      if (set >> i & 1)
        for (int j = i + 1; j < w_.size(); ++j)
          if (set >> j & 1) s += w_(i, j);
    return s;
  }

  // Best kept sharing inside the groups of `set` at levels below `level`.
  double solve(unsigned set, size_t level) {
    if (level == arity_.size() || __builtin_popcount(set) <= 1) return 0;
    auto key = std::make_pair(set, level);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    int size = __builtin_popcount(set) / arity_[level];
    double best = split(set, size, level);
    return memo_[key] = best;
  }

  // Cuts `set` into groups of `size`, the group holding the lowest member first.
  double split(unsigned set, int size, size_t level) {
    if (!set) return 0;
    unsigned low = set & -set, rest = set & ~low;
    double best = -1;
    for (unsigned sub = rest;; sub = (sub - 1) & rest) {
      if (__builtin_popcount(sub) == size - 1) {
        unsigned g = sub | low;
        double v = (level + 1 < arity_.size() ? inside(g) : 0) + solve(g, level + 1) + split(set & ~g, size, level);
        best = std::max(best, v);
      }
      if (sub == 0) break;
    }
    return best;
  }

  const SharingMatrix& w_;
  std::vector<int> arity_;  // children per level, below the root
  std::map<std::pair<unsigned, size_t>, double> memo_;
};


void optimality(const Options& o) {
  const int kInstances = 6;
  const Machine& m = kFourLevel[0];
  Tree t = load(m.synthetic);
  std::printf("\noptimal hop cost / hop cost, 16 threads on '%s' (1 = optimal, found by\n"
              "exhaustive search); %d matrices of each kind, mean and worst\n",
              m.synthetic, kInstances);
  std::printf("%-10s", "matrix");
  for (Strategy s : kGuided) std::printf("   %-13s", strategy_info(s).name);
  if (!o.eagermap.empty()) std::printf("   %-13s", "EagerMap");
  std::printf("\n");
  std::vector<int> order = compact_order(t, t.root);
  for (const char* kind : {"shuffled", "block", "noisy", "random"}) {
    std::map<std::string, std::vector<double>> ratio;
    for (int k = 0; k < kInstances; ++k) {
      std::mt19937_64 rng(100 + k);
      SharingMatrix w;
      if (!std::strcmp(kind, "shuffled")) w = SharingMatrix::from_edges(16, shuffled(stencil2d(16), 16, 200 + k));
      else if (!std::strcmp(kind, "block")) w = SharingMatrix::from_edges(16, shuffled(block_matrix(16), 16, 300 + k));
      else {
        // noisy: hidden pairs and quads under noise; random: noise only.
        std::vector<int> p = permutation(16, 400 + k);
        std::vector<Edge> e;
        for (int i = 0; i < 16; ++i)
          for (int j = i + 1; j < 16; ++j) {
            double v = kind[0] == 'n' ? (i / 2 == j / 2 ? 400 : i / 4 == j / 4 ? 100 : 0) : 0;
            e.push_back({p[i], p[j], std::floor(v + static_cast<double>(rng() % 50))});
          }
        w = SharingMatrix::from_edges(16, e);
      }
      // Every pair pays 3 levels (core, L2, package) less one per level it shares.
      double opt = 3 * w.total() - Exhaustive(w, {2, 4, 2}).best_kept();
      for (Strategy s : kGuided)
        ratio[strategy_info(s).name].push_back(opt / hop_cost(t, place_profile_guided(t, w, s, 1), w));
      Outside e = run_eagermap(o, w, m.arities);
      if (e.ran) ratio["EagerMap"].push_back(opt / mapping_hop(t, order, e, w));
    }
    std::printf("%-10s", kind);
    for (const char* name : {"lpgp", "gplp", "gp", "EagerMap"}) {
      const auto& r = ratio[name];
      if (r.empty()) continue;
      std::printf("   %6.3f %6.3f", std::accumulate(r.begin(), r.end(), 0.0) / r.size(),
                  *std::min_element(r.begin(), r.end()));
    }
    std::printf("\n");
  }
}

double pair_level_kept(const Tree& t, const std::vector<int>& slot, const SharingMatrix& w, const char* kind) {
  for (const auto& l : score_levels(t, {slot}, &w))
    if (l.kind == kind) return l.kept;
  return 0;
}

void holes() {
  std::printf("\nfewer threads than cores on 'pack:2 l3:1 l2:4 core:2 pu:1': sharing kept inside L2s\n"
              "(each L2 holds a pair of cores) against lp-compact's optimal pairs\n%-8s", "threads");
  for (Strategy s : {Strategy::kLpCompact, Strategy::kLpgp, Strategy::kGplp, Strategy::kGp})
    std::printf(" %10s", strategy_info(s).name);
  std::printf("\n");
  Tree t = load("pack:2 l3:1 l2:4 core:2 pu:1");
  for (int n : {3, 5, 6, 7, 9, 11}) {
    std::mt19937_64 rng(n);
    std::vector<Edge> e;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) e.push_back({i, j, static_cast<double>(rng() % 1000)});
    SharingMatrix w = SharingMatrix::from_edges(n, e);
    std::printf("%-8d", n);
    for (Strategy s : {Strategy::kLpCompact, Strategy::kLpgp, Strategy::kGplp, Strategy::kGp})
      std::printf(" %10.0f", pair_level_kept(t, place_profile_guided(t, w, s, 1), w, "L2"));
    std::printf("\n");
  }
  std::printf("\nno level shared by two cores ('pack:2 core:4 pu:1', 8 threads): sharing kept inside\n"
              "packages, mean of 20 random matrices / best balanced cut\n");
  Tree flat = load("pack:2 core:4 pu:1");
  std::map<Strategy, double> sum;
  for (int k = 0; k < 20; ++k) {
    std::mt19937_64 rng(500 + k);
    std::vector<Edge> e;
    for (int i = 0; i < 8; ++i)
      for (int j = i + 1; j < 8; ++j) e.push_back({i, j, static_cast<double>(rng() % 1000)});
    SharingMatrix w = SharingMatrix::from_edges(8, e);
    double best = Exhaustive(w, {2, 4}).best_kept();
    for (Strategy s : {Strategy::kLpgp, Strategy::kGplp, Strategy::kGp})
      sum[s] += pair_level_kept(flat, place_profile_guided(flat, w, s, 1), w, "Package") / best / 20;
  }
  for (const auto& s : sum) std::printf("  %-5s %.3f\n", strategy_info(s.first).name, s.second);
}

long max_rss_kb() {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// In a child, so that its peak memory is its own.
void sparse_16k() {
  const char* machine = "group:8 pack:4 l3:2 l2:32 core:4 pu:2";
  std::printf("\n16384 threads, sparse 3-D stencil (6 neighbours), '%s', --granularity pu\n", machine);
  std::fflush(stdout);
  for (Strategy s : kGuided) {
    pid_t pid = fork();
    if (pid == 0) {
      Tree t = load(machine, Granularity::kPu);
      long before = max_rss_kb();
      auto a = std::chrono::steady_clock::now();
      SharingMatrix w = SharingMatrix::from_edges(16384, stencil3d(16384));
      std::vector<int> slot = place_profile_guided(t, w, s, 1);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
      std::printf("  %-5s %8.1f ms  peak memory +%.1f MB (topology loaded first: %.1f MB)  hop %.0f\n",
                  strategy_info(s).name, ms, (max_rss_kb() - before) / 1024.0, before / 1024.0,
                  hop_cost(t, slot, w));
      std::fflush(stdout);
      _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
  }
}

// ---- dense matrices through the C API, as slurmstepd pays them -----------

// Real sharing matrices are dense: every pair shares something (barriers,
// reductions, halo lines). Blocks of 8 threads share 1000 with each other,
// and every pair shares noise in [1, 100]: n^2 / 2 pairs above the floor.
std::vector<double> dense_blocks(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> d(static_cast<size_t>(n) * n, 0);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      double v = static_cast<double>(1 + rng() % 100) + (i / 8 == j / 8 ? 1000 : 0);
      d[static_cast<size_t>(i) * n + j] = d[static_cast<size_t>(j) * n + i] = v;
    }
  return d;
}

void write_dense(const std::vector<double>& d, int n, const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "w");
  std::string line;
  for (int i = 0; i < n; ++i) {
    line.clear();
    for (int j = 0; j < n; ++j) line += (j ? " " : "") + std::to_string(static_cast<long long>(d[static_cast<size_t>(i) * n + j]));
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), f);
  }
  std::fclose(f);
}

// The synthetic machine as hwloc XML: what `topology_cache=` holds on a node.
std::string write_xml(const char* synthetic, const std::string& path) {
  hwloc_topology_t t;
  hwloc_topology_init(&t);
  hwloc_topology_set_synthetic(t, synthetic);
  hwloc_topology_load(t);
  hwloc_topology_export_xml(t, path.c_str(), 0);
  hwloc_topology_destroy(t);
  return path;
}

// One C API call sequence, timed: what the caller runs, as a function.
double timed_ms(const std::function<void()>& f, int runs) { return median_ms(f, runs); }

void check(sp_placement_t* p, int rc, const char* what) {
  if (rc != 0) {
    std::fprintf(stderr, "bench_placement: %s: %s\n", what, sp_error(p));
    std::exit(1);
  }
}

// A handle with topology, strategy, thread count and (unless empty) matrix set.
sp_placement_t* handle(const std::string& topology, const char* strategy, int threads, const std::string& matrix) {
  sp_placement_t* p = sp_init();
  check(p, sp_set_topology(p, topology.c_str()), "topology");
  check(p, sp_set_strategy(p, strategy), "strategy");
  check(p, sp_set_threads(p, threads), "threads");
  if (!matrix.empty()) check(p, sp_load_matrix(p, matrix.c_str()), "matrix");
  return p;
}

// The whole C API path, timed: init, the topology, the matrix, sp_compute,
// finalize. `bench_placement --fresh ...` prints it for a fresh process.
double whole_path_ms(const std::string& topology, const char* strategy, int threads, const std::string& matrix) {
  auto a = std::chrono::steady_clock::now();
  sp_placement_t* q = handle(topology, strategy, threads, matrix);
  check(q, sp_compute(q), strategy);
  sp_finalize(q);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
}

// Median of whole_path_ms over `runs` fresh processes (this program again): the
// engine keeps what it loaded for the process's later calls, as slurmstepd
// places several tasks and regions on one machine, so a timing in this
// process would see that instead of a first load.
double fresh_ms(const std::string& topology, const char* strategy, int threads, const std::string& matrix, int runs) {
  std::vector<double> ms;
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) {
    std::fprintf(stderr, "bench_placement: cannot find its own program\n");
    std::exit(1);
  }
  self[len] = 0;
  std::string cmd = "'" + std::string(self) + "' --fresh '" + topology + "' " + strategy + " " + std::to_string(threads) + " '" +
                    (matrix.empty() ? std::string("-") : matrix) + "'";
  for (int r = 0; r < runs; ++r) {
    FILE* f = popen(cmd.c_str(), "r");
    double x = -1;
    if (!f || std::fscanf(f, "%lf", &x) != 1 || pclose(f) != 0 || x < 0) {
      std::fprintf(stderr, "bench_placement: a fresh run of %s failed\n", strategy);
      std::exit(1);
    }
    ms.push_back(x);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void dense(const Options& o) {
  std::printf("\ndense matrices (blocks of 8 sharing 1000, every pair 1-100 besides) through the C API,\n"
              "4-level trees: median ms of what a caller pays. topo: init and sp_compute with compact\n"
              "in a fresh process (hwloc's start, topology load and placement), from the synthetic\n"
              "string and from its XML; load: sp_load_matrix of the text file; compute: sp_compute\n"
              "alone with topology, matrix and threads set; whole: init, XML topology, matrix load,\n"
              "compute, finalize, in a process that placed on this machine before (a step's later\n"
              "tasks and regions); fresh: the same as a fresh process's first call (hwloc's start,\n"
              "its plugins and the XML parsed: a step's first task).%s\n",
              o.eagermap.empty() ? "" : " t/E, w/E, f/E: compute, whole, fresh / EagerMap's\n"
              "algorithm time; h/E: hop cost / EagerMap's (<= 1: as good). EagerMap, compute and whole\n"
              "are timed in turns (each round one EagerMap run, then each of ours 5 times), medians\n"
              "over the rounds");
  char dir[] = "/tmp/bench-dense.XXXXXX";
  if (!mkdtemp(dir)) return;
  std::printf("%-6s %8s %8s %8s %8s", "thr", "topo-syn", "topo-xml", "load", "eager");
  for (Strategy s : kGuided)
    std::printf(" | %-5s %7s %7s %7s%s", strategy_info(s).name, "compute", "whole", "fresh",
                o.eagermap.empty() ? "" : "  t/E  w/E  f/E   h/E");
  std::printf("\n");
  for (const Machine& mc : kFourLevel) {
    if (mc.threads > o.max_threads || mc.threads < 64 || mc.threads > 1024) continue;
    int n = mc.threads;
    std::vector<double> d = dense_blocks(n, 7);
    std::string matrix = std::string(dir) + "/m.txt", xml = write_xml(mc.synthetic, std::string(dir) + "/t.xml");
    write_dense(d, n, matrix);
    SharingMatrix w = SharingMatrix::from_dense(d.data(), n);
    Tree t = load(mc.synthetic);
    std::vector<int> order = compact_order(t, t.root), slot_of_pu = slots_by_pu(t);
    double topo_syn = fresh_ms(mc.synthetic, "compact", n, "", o.runs), topo_xml = fresh_ms(xml, "compact", n, "", o.runs);
    sp_placement_t* loader = sp_init();
    double load_ms = timed_ms([&] { check(loader, sp_load_matrix(loader, matrix.c_str()), "load"); }, o.runs);
    sp_finalize(loader);
    // compute and whole of every strategy, in turns with EagerMap.
    std::vector<sp_placement_t*> handles;
    std::vector<std::function<void()>> ours;
    for (Strategy s : kGuided) handles.push_back(handle(mc.synthetic, strategy_info(s).name, n, matrix));
    for (size_t k = 0; k < handles.size(); ++k)
      ours.push_back([&, k] { check(handles[k], sp_compute(handles[k]), strategy_info(kGuided[k]).name); });
    for (Strategy s : kGuided) ours.push_back([&, s] { whole_path_ms(xml, strategy_info(s).name, n, matrix); });
    std::vector<double> ms;
    Outside e = eagermap_in_turns(o, w, mc.arities, ours, ms);
    double ehop = e.ran ? mapping_hop(t, order, e, w) : 0;
    std::printf("%-6d %8.2f %8.2f %8.2f %8s", n, topo_syn, topo_xml, load_ms,
                e.ran ? std::to_string(e.ms).substr(0, 8).c_str() : "-");
    for (size_t k = 0; k < handles.size(); ++k) {
      const char* name = strategy_info(kGuided[k]).name;
      double compute = ms[k], whole = ms[handles.size() + k];
      double hop = api_hop(t, slot_of_pu, handles[k], w);
      sp_finalize(handles[k]);
      double fresh = fresh_ms(xml, name, n, matrix, o.runs);
      std::printf(" | %-5s %7.2f %7.2f %7.2f", "", compute, whole, fresh);
      if (e.ran)
        std::printf("  %4.2f %4.2f %4.2f %5.3f", compute / e.ms, whole / e.ms, fresh / e.ms, ehop > 0 ? hop / ehop : 1.0);
    }
    std::printf("\n");
    std::fflush(stdout);
    std::remove(matrix.c_str());
    std::remove(xml.c_str());
  }
  rmdir(dir);
}

// The profiles in `dir`, in name order.
std::vector<std::string> profile_files(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 8 && name.compare(name.size() - 8, 8, ".profile") == 0) out.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Profiles the profiler made of the project's workloads (bench/placement/run
// builds them for the compiler backend and profiles them at 16, 64 and 256
// threads): the whole-run matrix placed through the C API (given as its
// edges for compute; read from the file by sp_compute, as slurmstepd gives
// it with sp_set_profile, for whole), on the 4-level machine of as many
// cores, beside EagerMap on the same matrix.
void profiled(const Options& o) {
  std::vector<std::string> files = profile_files(o.profiles);
  if (files.empty()) return;
  std::printf("\nprofiles made by the profiler (compiler backend) from the project's workloads, the\n"
              "whole-run matrix placed through the C API on the 4-level machine of as many cores:\n"
              "median ms of reading the profile (load), of sp_compute (compute), and of both with\n"
              "the topology from its XML (whole); pairs: the share of pairs above the floor%s\n",
              o.eagermap.empty() ? "" : "; t/E, w/E: compute, whole / EagerMap's algorithm time (timed in turns with it);\nh/E: hop cost / EagerMap's");
  std::printf("%-20s %6s %5s %8s %8s", "profile", "thr", "pairs", "load", "eager");
  for (Strategy s : kGuided)
    std::printf(" | %-5s %7s %7s%s", strategy_info(s).name, "compute", "whole", o.eagermap.empty() ? "" : "  t/E  w/E   h/E");
  std::printf("\n");
  char dir[] = "/tmp/bench-profiled.XXXXXX";
  if (!mkdtemp(dir)) return;
  for (const std::string& file : files) {
    SharingMatrix w = read_profile(file).affinity("simple", "", file);
    int n = w.size();
    const Machine* mc = nullptr;
    for (const Machine& m : kFourLevel)
      if (m.threads == n) mc = &m;
    if (!mc || n > o.max_threads) continue;
    std::string xml = write_xml(mc->synthetic, std::string(dir) + "/t.xml");
    Tree t = load(mc->synthetic);
    std::vector<int> order = compact_order(t, t.root), slot_of_pu = slots_by_pu(t);
    double load_ms = timed_ms([&] { read_profile(file).affinity("simple", "", file); }, o.runs);
    struct { std::vector<int> from, to; std::vector<double> w; } edges;  // each pair once, floor taken out
    for (int i = 0; i < n; ++i)
      for (SharingMatrix::Row r = w.row(i); r.size--; ++r.to, ++r.w)
        if (*r.to > i) edges.from.push_back(i), edges.to.push_back(*r.to), edges.w.push_back(*r.w);
    // compute and whole of every strategy, in turns with EagerMap.
    std::vector<sp_placement_t*> handles;
    std::vector<std::function<void()>> ours;
    for (Strategy s : kGuided) {
      handles.push_back(handle(mc->synthetic, strategy_info(s).name, n, ""));
      check(handles.back(), sp_set_edges(handles.back(), n, edges.w.size(), edges.from.data(), edges.to.data(), edges.w.data()), "edges");
    }
    for (size_t k = 0; k < handles.size(); ++k)
      ours.push_back([&, k] { check(handles[k], sp_compute(handles[k]), strategy_info(kGuided[k]).name); });
    for (Strategy s : kGuided)
      ours.push_back([&, s] {
        const char* strategy = strategy_info(s).name;
        sp_placement_t* q = handle(xml, strategy, n, "");
        check(q, sp_set_profile(q, file.c_str(), nullptr, "simple", nullptr), "profile");
        check(q, sp_compute(q), strategy);
        sp_finalize(q);
      });
    std::vector<double> ms;
    Outside e = eagermap_in_turns(o, w, mc->arities, ours, ms);
    double ehop = e.ran ? mapping_hop(t, order, e, w) : 0;
    std::string name = file.substr(file.rfind('/') + 1);
    double share = static_cast<double>(w.pairs()) / (static_cast<double>(n) * (n - 1) / 2);
    std::printf("%-20s %6d %5.2f %8.2f %8s", name.substr(0, name.size() - 8).c_str(), n, share, load_ms,
                e.ran ? std::to_string(e.ms).substr(0, 8).c_str() : "-");
    for (size_t k = 0; k < handles.size(); ++k) {
      double compute = ms[k], whole = ms[handles.size() + k];
      double hop = api_hop(t, slot_of_pu, handles[k], w);
      sp_finalize(handles[k]);
      std::printf(" | %-5s %7.2f %7.2f", "", compute, whole);
      if (e.ran) std::printf("  %4.2f %4.2f %5.3f", compute / e.ms, whole / e.ms, ehop > 0 ? hop / ehop : 1.0);
    }
    std::printf("\n");
    std::fflush(stdout);
    std::remove(xml.c_str());
  }
  rmdir(dir);
}


// ---- ranks by traffic, against TreeMatch ----------------------------------

// Rank-to-rank traffic of the shapes MPI codes have, rank numbers shuffled
// (as an application's own numbering rarely follows the machine).
std::vector<Edge> ring(int n) {
  std::vector<Edge> e;
  for (int i = 0; i < n; ++i) e.push_back({i, (i + 1) % n, 100});
  return e;
}

// Random partners: each rank sends to 4 others, 1-100 each.
std::vector<Edge> random_partners(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Edge> e;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 4; ++k) {
      int j = static_cast<int>(rng() % static_cast<uint64_t>(n));
      if (j != i) e.push_back({i, j, static_cast<double>(1 + rng() % 100)});
    }
  return e;
}

// NPB CG's pattern: ranks in a grid of rows x cols (cols = rows or twice
// as many), each reducing along its row by recursive doubling (partners at
// distances 1, 2, 4, ... in the row) and swapping with its transpose partner.
std::vector<Edge> cg_like(int n) {
  int rows = 1 << static_cast<int>(std::log2(n) / 2), cols = n / rows;
  std::vector<Edge> e;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      int t = r * cols + c;
      for (int d = 1; d < cols; d *= 2)
        if ((c ^ d) > c) e.push_back({t, r * cols + (c ^ d), 100});
      int partner = (c % rows) * cols + r * (cols / rows) + c / rows;  // the transpose
      if (partner > t) e.push_back({t, partner, 100});
    }
  return e;
}

// NPB MG's pattern: a periodic 3-D grid of ranks exchanging faces, the
// axes' faces of different sizes (a grid longer in x than in z).
std::vector<Edge> mg_like(int n) {
  int side = static_cast<int>(std::lround(std::cbrt(n)));
  while (side * side * side > n) --side;
  int nx = side, ny = side, nz = n / (side * side);
  std::vector<Edge> e;
  auto at = [&](int x, int y, int z) { return ((z + nz) % nz * ny + (y + ny) % ny) * nx + (x + nx) % nx; };
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        int t = at(x, y, z);
        if (nx > 1) e.push_back({t, at(x + 1, y, z), 100});
        if (ny > 1) e.push_back({t, at(x, y + 1, z), 70});
        if (nz > 1) e.push_back({t, at(x, y, z + 1), 40});
      }
  return e;
}

const Kind kRankKinds[] = {
    {"ring", [](int n) { return SharingMatrix::from_edges(n, shuffled(ring(n), n, 5)); }},
    {"halo2d", [](int n) { return SharingMatrix::from_edges(n, shuffled(stencil2d(n), n, 11)); }},
    {"halo3d", [](int n) { return SharingMatrix::from_edges(n, shuffled(stencil3d(n), n, 13)); }},
    {"cg", [](int n) { return SharingMatrix::from_edges(n, shuffled(cg_like(n), n, 23)); }},
    {"mg", [](int n) { return SharingMatrix::from_edges(n, shuffled(mg_like(n), n, 29)); }},
    {"alltoall8", [](int n) { return SharingMatrix::from_edges(n, shuffled(block_matrix(n), n, 17)); }},
    {"random", [](int n) { return SharingMatrix::from_edges(n, random_partners(n, 19)); }},
};

// Trees ranks are placed on, with TreeMatch's arities (the root's children
// first): cores paired under an L2, cores without, one L3 per package.
const Machine kRankTrees[] = {
    {16, "pack:2 l3:2 l2:2 core:2 pu:1", "1,2,2,2,2"},   {32, "pack:2 l3:2 l2:4 core:2 pu:1", "1,2,2,4,2"},
    {64, "pack:2 l3:4 l2:4 core:2 pu:1", "1,2,4,4,2"},   {256, "pack:4 l3:4 l2:8 core:2 pu:1", "1,4,4,8,2"},
    {1024, "pack:8 l3:8 l2:8 core:2 pu:1", "1,8,8,8,2"}, {16, "pack:2 l3:2 core:4 pu:1", "1,2,2,4"},
    {64, "pack:2 l3:4 core:8 pu:1", "1,2,4,8"},          {256, "pack:4 l3:8 core:8 pu:1", "1,4,8,8"},
    {1024, "pack:8 l3:8 core:16 pu:1", "1,8,8,16"},      {64, "pack:4 l3:1 l2:8 core:2 pu:1", "1,4,8,2"},
    {1024, "pack:16 l3:1 l2:32 core:2 pu:1", "1,16,32,2"},
};

// TreeMatch on w (its harness, `runs` times): its own median time and
// mapping (sigma: each rank's leaf in compact order).
Outside run_treematch(const Options& o, const SharingMatrix& w, const char* arities) {
  Outside out;
  char dir[] = "/tmp/bench-treematch.XXXXXX";
  if (o.treematch.empty() || !mkdtemp(dir)) return out;
  std::string file = std::string(dir) + "/m.txt";
  FILE* f = std::fopen(file.c_str(), "w");
  for (int i = 0; i < w.size(); ++i)
    for (int j = 0; j < w.size(); ++j) std::fprintf(f, "%g%c", i == j ? 0.0 : w(i, j), j + 1 < w.size() ? ' ' : '\n');
  std::fclose(f);
  std::string cmd = "'" + o.treematch + "' " + file + " " + arities + " 2>&1";
  std::vector<double> times;
  for (int r = 0; r < std::max(3, o.runs); ++r) {
    double ms;
    if (!outside_once(cmd, "ms ", "sigma", ms, out.pu)) break;
    times.push_back(ms);
  }
  std::remove(file.c_str());
  rmdir(dir);
  if (times.empty() || static_cast<int>(out.pu.size()) != w.size()) return Outside();
  out.ms = median_of(times);
  out.ran = true;
  return out;
}

// The share of w each level above the cores keeps inside one domain.
std::vector<double> level_fractions(const Tree& t, const std::vector<int>& slot, const SharingMatrix& w) {
  std::vector<double> out;
  for (const LevelScore& l : score_levels(t, {slot}, &w))
    if (l.kind != "Core" && l.kind != "PU" && l.kind != "Machine" && l.domains > 1) out.push_back(l.fraction());
  return out;
}

// The worst ratio of `ours` to `theirs` over the levels (1: as much kept
// everywhere); a level TreeMatch keeps nothing of counts as 1 when we do too.
double worst_level_ratio(const std::vector<double>& ours, const std::vector<double>& theirs) {
  double worst = INFINITY;
  for (size_t k = 0; k < ours.size() && k < theirs.size(); ++k)
    worst = std::min(worst, theirs[k] > 0 ? ours[k] / theirs[k] : 1.0);
  return worst;
}

// Ranks placed by their traffic (what slurm-pin place --task-matrix does on
// a node: shares_by_traffic, one core per rank here) against TreeMatch, on
// the same matrices and balanced trees: the traffic each level keeps inside
// one domain, hop cost and in-algorithm time, 16 to 1024 ranks.
void ranks(const Options& o) {
  const std::vector<Strategy> ours = {Strategy::kLpgp, Strategy::kGplp, Strategy::kGp};
  std::printf("\nranks by traffic (shuffled rank numbers): in-algorithm time (median ms), the worst level's traffic kept\n"
              "inside one domain relative to TreeMatch's (kept; >= 1: at least as much at every level) and hop cost\n"
              "relative to TreeMatch's (hop; <= 1: as good)%s; 'default' is what --task-matrix and rank profiles use\n",
              o.treematch.empty() ? "; TreeMatch absent (bench/placement/ranks --treematch-src DIR, Open MPI's "
                                    "3rd-party/treematch): the ratios are against lpgp"
                                  : "");
  std::printf("%-5s %-30s %-9s %8s", "ranks", "tree", "traffic", o.treematch.empty() ? "" : "TM ms");
  for (Strategy s : ours) std::printf(" | %-5s %7s %5s %5s", strategy_info(s).name, "ms", "kept", "hop");
  std::printf(" | %-7s %7s %5s %5s\n", "default", "ms", "kept", "hop");
  std::map<std::string, double> worst_kept, worst_hop, worst_time_256;
  for (const Machine& mc : kRankTrees) {
    if (mc.threads > std::min(o.max_threads, 1024)) continue;
    Tree t = load(mc.synthetic);
    std::vector<int> order = compact_order(t, t.root);
    const char* arities = std::strchr(mc.arities, ',') + 1;  // TreeMatch's root is the first level
    for (const Kind& k : kRankKinds) {
      SharingMatrix w = k.make(mc.threads);
      Outside tm = run_treematch(o, w, arities);
      std::vector<int> ref_slot;
      double ref_ms = 0;
      if (tm.ran) {
        for (int i = 0; i < w.size(); ++i) ref_slot.push_back(order[tm.pu[i]]);
        ref_ms = tm.ms;
      } else {
        ref_ms = median_ms([&] { ref_slot = place_profile_guided(t, w, Strategy::kLpgp, 1); }, o.runs);
      }
      std::vector<double> ref_levels = level_fractions(t, ref_slot, w);
      double ref_hop = hop_cost(t, ref_slot, w);
      std::printf("%-5d %-30s %-9s %8s", mc.threads, mc.synthetic, k.name,
                  tm.ran ? std::to_string(tm.ms).substr(0, 7).c_str() : (o.treematch.empty() ? "" : "failed"));
      auto column = [&](const std::string& name, const std::function<std::vector<int>()>& place) {
        std::vector<int> slot;
        double ms = median_ms([&] { slot = place(); }, o.runs);
        double kept = worst_level_ratio(level_fractions(t, slot, w), ref_levels);
        double hop = ref_hop > 0 ? hop_cost(t, slot, w) / ref_hop : 1.0;
        std::printf(" | %-5s %7.3f %5.3f %5.3f", "", ms, kept, hop);
        worst_kept[name] = worst_kept.count(name) ? std::min(worst_kept[name], kept) : kept;
        worst_hop[name] = std::max(worst_hop[name], hop);
        if (mc.threads >= 256 && tm.ran) {
          std::string trees = std::strstr(mc.synthetic, "l2:") ? "time, L2 pairs" : "time, no pairs";
          worst_time_256[name + "/" + trees] = std::max(worst_time_256[name + "/" + trees], ms / ref_ms);
        }
      };
      for (Strategy s : ours) column(strategy_info(s).name, [&] { return place_profile_guided(t, w, s, 1); });
      column("default", [&] { return place_by_traffic(t, w, 1); });
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  std::printf("\nworst case over every row (kept: lowest, hop: highest; time at 256 ranks and above: highest ratio to "
              "TreeMatch's)\n");
  for (const auto& [name, kept] : worst_kept) {
    std::printf("%-8s kept %.3f  hop %.3f", name.c_str(), kept, worst_hop[name]);
    for (const char* trees : {"time, L2 pairs", "time, no pairs"}) {
      auto it = worst_time_256.find(name + "/" + trees);
      if (it != worst_time_256.end()) std::printf("  %s %.2f", trees, it->second);
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--eagermap" && i + 1 < argc) o.eagermap = argv[++i];
    else if (a == "--treematch" && i + 1 < argc) o.treematch = argv[++i];
    else if (a == "--ranks") o.ranks_only = true;
    else if (a == "--max" && i + 1 < argc) o.max_threads = std::atoi(argv[++i]);
    else if (a == "--runs" && i + 1 < argc) o.runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--dense") o.dense_only = true;
    else if (a == "--profiles" && i + 1 < argc) o.profiles = argv[++i];
    else if (a == "--fresh" && i + 4 < argc) {  // one whole_path_ms, for fresh_ms
      std::string matrix = argv[i + 4];
      std::printf("%.4f\n", whole_path_ms(argv[i + 1], argv[i + 2], std::atoi(argv[i + 3]), matrix == "-" ? "" : matrix));
      return 0;
    }
    else {
      std::fprintf(stderr, "usage: bench_placement [--eagermap PATH] [--treematch PATH] [--max THREADS] [--runs K] [--dense] "
                   "[--ranks] [--profiles DIR]\n");
      return 2;
    }
  }
  if (o.ranks_only) {
    ranks(o);
    return 0;
  }
  if (o.dense_only) {
    dense(o);
    profiled(o);
    return 0;
  }
  dense(o);
  profiled(o);
  scaling(o, "4-level trees (pack:P l3:1 l2:L core:2)", kFourLevel, std::size(kFourLevel));
  scaling(o, "5-level trees (group:G pack:P l3:1 l2:L core:2)", kFiveLevel, std::size(kFiveLevel));
  ranks(o);
  optimality(o);
  holes();
  if (o.max_threads >= 16384) sparse_16k();
  return 0;
}
