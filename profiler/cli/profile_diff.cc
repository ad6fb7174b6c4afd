// SPDX-License-Identifier: GPL-2.0-or-later
#include "profile_diff.hh"

#include <cmath>
#include <cstdio>

#include "engine.hh"
#include "error.hh"
#include "strategies/score.hh"
#include "strategies/strategy.hh"

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

Result place(const SharingMatrix& w, const DiffInput& in) {
  Request r;
  r.topology.source = in.topology;
  std::string path;
  r.strategy = parse_strategy(in.strategy, &path);
  if (!path.empty()) throw Error("diff compares computed placements: give a strategy, not a file");
  r.threads = w.size();
  r.matrix = w;
  r.has_matrix = true;
  r.matrix_source = "the profile";
  return compute_placement(r);
}

std::vector<std::vector<int>> slots(const Result& r) {
  std::vector<std::vector<int>> out;
  for (const TaskPlace& t : r.tasks) {
    out.emplace_back();
    for (const ThreadPlace& p : t.threads) out.back().push_back(p.slot);
  }
  return out;
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
  Result ra = place(wa, in), rb = place(wb, in);
  // Each placement judged by each matrix: the sharing kept summed over the
  // machine's levels (the strategies' objective).
  auto kept = [&](const Result& r, const SharingMatrix& w) { return quality(score_levels(ra.tree, slots(r), &w)); };
  double aa = kept(ra, wa), ab = kept(rb, wa), bb = kept(rb, wb), ba = kept(ra, wb);
  bool same = slots(ra) == slots(rb);
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
