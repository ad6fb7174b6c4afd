// SPDX-License-Identifier: GPL-2.0-or-later
#include "profile_diff.hh"

#include <cmath>
#include <cstdio>
#include <vector>

#include "error.hh"
#include "slurm_pin_frontend.h"

namespace slurmpin {

namespace {

// Comparing costs O(threads^2): profiles past this are compared as a whole
// by their placements only through `slurm-pin place`.
constexpr int kMaxDiffThreads = 4096;

// Cosine similarity of the two matrices over every pair of threads: 1 when
// one is a multiple of the other, 0 when no pair shares in both.
double similarity(const SharingMatrix& a, const SharingMatrix& b) {
  double ab = 0, aa = 0, bb = 0;
  for (int i = 0; i < a.size(); ++i)
    for (int j = i + 1; j < a.size(); ++j) {
      double x = a(i, j), y = b(i, j);
      ab += x * y, aa += x * x, bb += y * y;
    }
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : (aa == bb ? 1 : 0);
}

// One placement through the C API, as `slurm-pin place` computes it.
struct Placed {
  sp_placement_t* p = sp_init();
  Placed() = default;
  Placed(const Placed&) = delete;
  Placed& operator=(const Placed&) = delete;
  ~Placed() { sp_finalize(p); }
  void check(int rc) const {
    if (rc != 0) throw Error(sp_error(p));
  }
};

void place(Placed& out, const SharingMatrix& w, const DiffInput& in) {
  if (in.strategy.rfind("file:", 0) == 0)
    throw Error("diff compares computed placements: give a strategy, not a file");
  if (!out.p) throw Error("out of memory");
  int n = w.size();
  // The matrix with its floor, as the strategies and the scores see it:
  // every entry i != j, as a dense matrix's rows would give it.
  std::vector<int> from, to;
  std::vector<double> weight;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && w(i, j) > 0) from.push_back(i), to.push_back(j), weight.push_back(w(i, j));
  out.check(sp_set_topology(out.p, in.topology.c_str()));
  out.check(sp_set_strategy(out.p, in.strategy.c_str()));
  out.check(sp_set_threads(out.p, n));
  out.check(sp_set_edges(out.p, n, weight.size(), from.data(), to.data(), weight.data()));
  out.check(sp_compute(out.p));
}

// Each placement judged by the other's matrix: the sharing kept summed over
// the machine's levels (the strategies' objective).
double kept(const Placed& placement, const Placed& matrix) {
  double k = 0;
  if (sp_get_kept_sharing(placement.p, matrix.p, &k) != 0) throw Error("the two placements cannot be compared");
  return k;
}

// Every thread on the same CPUs: the API's CPU sets (hwloc bitmaps) compared.
bool same_placement(const Placed& a, const Placed& b) {
  int n = sp_get_nthreads(a.p);
  if (n != sp_get_nthreads(b.p)) return false;
  for (int t = 0; t < n; ++t)
    if (!hwloc_bitmap_isequal(sp_get_thread_cpuset(a.p, 0, t), sp_get_thread_cpuset(b.p, 0, t))) return false;
  return true;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::string diff_profiles(const Profile& a, const std::string& a_name, const Profile& b, const std::string& b_name,
                          const DiffInput& in) {
  if (a.threads != b.threads)
    throw Error(a_name + " has " + std::to_string(a.threads) + " threads and " + b_name + " " +
                std::to_string(b.threads) + ": compare profiles of one thread count");
  if (a.threads > kMaxDiffThreads)
    throw Error(std::to_string(a.threads) + " threads are too many to compare pair by pair (at most " +
                std::to_string(kMaxDiffThreads) + ")");
  SharingMatrix wa = a.affinity(in.model, in.region, a_name), wb = b.affinity(in.model, in.region, b_name);
  std::string what = in.model + " model" + (in.region.empty() ? "" : ", region " + in.region);
  std::string out = a_name + " and " + b_name + ": " + std::to_string(a.threads) + " threads, " + what + "\n";
  out += "  similarity of the matrices (cosine over every pair): " + fmt("%.3f", similarity(wa, wb)) + "\n";
  Placed ra, rb;
  place(ra, wa, in);
  place(rb, wb, in);
  double aa = kept(ra, ra), ab = kept(rb, ra), bb = kept(rb, rb), ba = kept(ra, rb);
  bool same = same_placement(ra, rb);
  out += "  " + in.strategy + " on " + in.topology + ": " +
         (same ? "the same placement" : "different placements") + "\n";
  if (!same) {
    out += "    " + b_name + "'s placement keeps " + fmt("%.1f%%", aa > 0 ? 100 * ab / aa : 100) + " of what " +
           a_name + "'s keeps of " + a_name + "'s sharing\n";
    out += "    " + a_name + "'s placement keeps " + fmt("%.1f%%", bb > 0 ? 100 * ba / bb : 100) + " of what " +
           b_name + "'s keeps of " + b_name + "'s sharing\n";
    bool equivalent = (aa <= 0 || ab >= 0.99 * aa) && (bb <= 0 || ba >= 0.99 * bb);
    out += std::string("  ") +
           (equivalent ? "either profile gives an equally good placement (within 1%)"
                       : "the profiles lead to placements that differ in quality: re-profile or keep the one "
                         "measured on the runs you care about") +
           "\n";
  }
  return out;
}

}  // namespace slurmpin
