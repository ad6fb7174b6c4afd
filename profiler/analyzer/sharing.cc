// SPDX-License-Identifier: GPL-2.0-or-later
#include "sharing.hh"

#include <algorithm>
#include <cmath>
#include <map>

#include "error.hh"
#include "sharing/matching.hh"

namespace slurmpin {

namespace {

// Profiles above this many threads hold edge lists (docs/formats.md).
constexpr int kDenseThreads = 512;

// Both models of one scope into `dense` (n x n, symmetric) or `edges`.
void put_models(const std::vector<PairSum>& pairs, int n, std::map<std::string, Rows>& dense,
                std::map<std::string, EdgeList>& edges) {
  if (n <= kDenseThreads) {
    Rows& s = dense["simple"];
    Rows& rw = dense["rw"];
    s.assign(n, std::vector<double>(n, 0));
    rw.assign(n, std::vector<double>(n, 0));
    for (const PairSum& p : pairs) s[p.i][p.j] = s[p.j][p.i] = p.a, rw[p.i][p.j] = rw[p.j][p.i] = p.b;
    return;
  }
  // An edge list weighs a pair in both directions summed: write half each way.
  EdgeList& s = edges["simple"];
  EdgeList& rw = edges["rw"];
  for (const PairSum& p : pairs) {
    s.push_back({p.i, p.j, 2 * p.a});
    if (p.b) rw.push_back({p.i, p.j, 2 * p.b});
  }
}

// Seed 001 section 5.2.3.2 over the pairs of the optimal matching of the
// run's simple matrix: sum of Lines(p) x Access(p), with Lines(p) the lines
// both threads of p touch and Access(p) their accesses to them, over the sum
// of Lines(t) x Access(t) per thread.
double data_reuse_ratio(const Sums& s) {
  int n = s.header.threads;
  std::vector<Edge> e;
  for (const PairSum& p : s.run) e.push_back({p.i, p.j, p.a});
  Pairing pairing = max_weight_pairing(SharingMatrix::from_edges(n, e));
  std::map<std::pair<int, int>, const PairSum*> shared;
  for (const PairSum& p : s.shared) shared[{p.i, p.j}] = &p;
  double num = 0, den = 0;
  for (const auto& m : pairing.pairs) {
    auto it = shared.find({std::min(m.first, m.second), std::max(m.first, m.second)});
    if (it != shared.end()) num += it->second->a * it->second->b;
  }
  for (int t = 0; t < n; ++t) den += s.thread_lines[t] * s.thread_accesses[t];
  return den > 0 ? 100.0 * num / den : 0.0;
}

std::string one_word(std::string s) {
  for (char& c : s)
    if (c == ' ' || c == '\t') c = '_';
  return s;
}

// Region names are one word in a profile, and unique: a repeated name (two
// call sites the backend could only name by function) gets "~2", "~3".
std::vector<std::string> region_names(const std::vector<std::string>& raw) {
  std::vector<std::string> out;
  std::map<std::string, int> seen;
  for (const std::string& word : raw) {
    std::string name = one_word(word);
    int k = ++seen[name];
    out.push_back(k == 1 ? name : name + "~" + std::to_string(k));
  }
  return out;
}

// How far the run's matrix is from uniform: the spread of the pair weights
// relative to their mean (0: every pair shares the same).
double spread(const std::vector<PairSum>& pairs, int n) {
  double pairs_n = n * (n - 1) / 2.0, sum = 0, sq = 0;
  for (const PairSum& p : pairs) sum += p.a, sq += p.a * p.a;
  if (pairs_n <= 0 || sum <= 0) return 0;
  double mean = sum / pairs_n;
  return std::sqrt(std::max(0.0, sq / pairs_n - mean * mean)) / mean;
}

// Regions that ran, in order; those at one known source line (a compiler's
// call sites of one construct, e.g. an unrolled loop) form one group, the
// sharing of the construct: the sum of its call sites'.
struct RegionGroup {
  std::string source;
  std::vector<size_t> members;
};

std::vector<RegionGroup> region_groups(const Sums& s) {
  std::vector<RegionGroup> groups;
  std::map<std::string, size_t> at_line;
  for (size_t r = 1; r < s.region.size(); ++r) {
    if (s.region_accesses[r] <= 0) continue;
    std::string source = r < s.header.sources.size() ? s.header.sources[r] : "";
    auto it = source.empty() ? at_line.end() : at_line.find(source);
    if (it != at_line.end()) {
      groups[it->second].members.push_back(r);
      continue;
    }
    if (!source.empty()) at_line[source] = groups.size();
    groups.push_back({source, {r}});
  }
  return groups;
}

void warn(Analysis& a, const Sums& s, const AnalysisInput& in) {
  int n = s.header.threads;
  if (in.threads && in.threads != n)
    a.warnings.push_back("the program was asked for " + std::to_string(in.threads) + " threads and created " +
                         std::to_string(n) + ": the profile keeps all " + std::to_string(n) +
                         " (run the job with that many CPUs per task to pin every one)");
  if (n > 2 && !s.run.empty() && spread(s.run, n) < 0.1)
    a.warnings.push_back("every pair of threads shares about the same: placement will matter little "
                         "(compact or scatter will do as well as a profile-guided strategy)");
}

}  // namespace

std::string drr_class(double drr) { return drr < 1 ? "no" : drr < 4 ? "medium" : "good"; }

Analysis analyze_sums(const Sums& s, const AnalysisInput& in) {
  int n = s.header.threads;
  Analysis a;
  Profile& p = a.profile;
  p.application = in.application;
  p.binary_sha256 = in.binary_sha256;
  p.tool = in.tool.empty() ? s.header.tool : in.tool;
  p.date = in.date;
  p.topology = in.topology;
  p.threads = n;
  p.line_size = s.header.line_size;

  bool has_regions = false;
  for (size_t r = 1; r < s.region_accesses.size(); ++r) has_regions |= s.region_accesses[r] > 0;
  a.serial_excluded = in.exclude_serial && has_regions && !s.par.empty();
  put_models(a.serial_excluded ? s.par : s.run, n, p.matrices, p.edges);
  p.working_set_lines = s.lines;
  p.thread_working_set_lines = s.thread_lines;
  p.thread_accesses = s.thread_accesses;
  p.drr = data_reuse_ratio(s);
  p.drr_class = drr_class(p.drr);

  for (const ThreadOrigin& o : s.header.origins) {
    p.thread_creators.push_back(o.creator);
    p.thread_starts.push_back(one_word(o.start.empty() ? "-" : o.start));
  }
  std::vector<std::string> names = region_names(s.header.regions);
  double all = 0;
  for (double v : s.region_accesses) all += v;
  for (const RegionGroup& g : region_groups(s)) {
    ProfileRegion region;
    region.name = names[g.members[0]];
    std::map<std::pair<int, int>, PairSum> merged;
    double accesses = 0;
    for (size_t r : g.members) {
      if (r != g.members[0]) region.aliases.push_back(names[r]);
      accesses += s.region_accesses[r];
      for (const PairSum& x : s.region[r]) {
        auto it = merged.emplace(std::make_pair(x.i, x.j), PairSum{x.i, x.j, 0, 0}).first;
        it->second.a += x.a, it->second.b += x.b;
      }
    }
    std::vector<PairSum> pairs;
    for (const auto& m : merged) pairs.push_back(m.second);
    put_models(pairs, n, region.matrices, region.edges);
    p.regions.push_back(region);
    p.region_shares.push_back(accesses / all);
    p.region_sources.push_back(g.source.empty() ? "-" : one_word(g.source));
  }
  if (std::all_of(p.region_sources.begin(), p.region_sources.end(), [](const std::string& x) { return x == "-"; }))
    p.region_sources.clear();
  warn(a, s, in);
  return a;
}

Profile analyze(const Trace& t, const AnalysisInput& in) { return analyze_sums(sum_trace(t), in).profile; }

}  // namespace slurmpin
