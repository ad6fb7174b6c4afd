// SPDX-License-Identifier: GPL-2.0-or-later
#include "sharing.hh"

#include <algorithm>
#include <unordered_map>

#include "error.hh"
#include "matching.hh"

namespace slurmpin {

namespace {

struct Use {
  uint32_t thread;
  uint64_t reads, writes;
  uint64_t all() const { return reads + writes; }
};

using Matrix = std::vector<std::vector<double>>;

// Adds one line's contribution to both models: for every pair of threads
// that touched it, min(A_i, A_j) (eq. 5.1) and min(RD_i, WR_j) +
// min(WR_i, RD_j) + min(WR_i, WR_j) (eq. 6.1).
void add_line(const std::vector<Use>& users, Matrix& simple, Matrix& rw) {
  for (size_t a = 0; a < users.size(); ++a)
    for (size_t b = a + 1; b < users.size(); ++b) {
      const Use &x = users[a], &y = users[b];
      double s = static_cast<double>(std::min(x.all(), y.all()));
      double r = static_cast<double>(std::min(x.reads, y.writes) + std::min(x.writes, y.reads) +
                                     std::min(x.writes, y.writes));
      simple[x.thread][y.thread] += s, simple[y.thread][x.thread] += s;
      rw[x.thread][y.thread] += r, rw[y.thread][x.thread] += r;
    }
}

// Per line, the threads that touched it (records merged over the regions
// selected by `keep`).
std::unordered_map<uint64_t, std::vector<Use>> by_line(const Trace& t, int threads, int region) {
  std::unordered_map<uint64_t, std::vector<Use>> lines;
  for (const Access& a : t.accesses) {
    if (static_cast<int>(a.thread) >= threads || (region >= 0 && static_cast<int>(a.region) != region)) continue;
    auto& users = lines[a.line];
    auto it = std::find_if(users.begin(), users.end(), [&](const Use& u) { return u.thread == a.thread; });
    if (it == users.end()) users.push_back({a.thread, a.reads, a.writes});
    else it->reads += a.reads, it->writes += a.writes;
  }
  return lines;
}

void matrices(const std::unordered_map<uint64_t, std::vector<Use>>& lines, int n, Matrix& simple, Matrix& rw) {
  simple.assign(n, std::vector<double>(n, 0));
  rw.assign(n, std::vector<double>(n, 0));
  for (const auto& l : lines) add_line(l.second, simple, rw);
}

// Seed 001 section 5.2.3.2, with Lines(p) the lines both threads of pair p
// touch and Access(p) their accesses to those lines (the shared part, which
// is what the metric's thresholds measure), over the pairs of the optimal
// matching.
double data_reuse_ratio(const std::unordered_map<uint64_t, std::vector<Use>>& lines, const Matrix& simple, int n) {
  Pairing p = max_weight_pairing(Affinity::from_rows(simple));
  std::vector<int> mate(n, -1);
  for (const auto& e : p.pairs) mate[e.first] = e.second, mate[e.second] = e.first;
  std::vector<double> pair_lines(n, 0), pair_access(n, 0), lines_of(n, 0), access_of(n, 0);
  for (const auto& l : lines) {
    for (const Use& u : l.second) lines_of[u.thread] += 1, access_of[u.thread] += static_cast<double>(u.all());
    for (const Use& u : l.second) {
      int m = mate[u.thread];
      if (m < static_cast<int>(u.thread)) continue;  // count each pair once, at its lower thread
      auto other = std::find_if(l.second.begin(), l.second.end(),
                                [&](const Use& v) { return static_cast<int>(v.thread) == m; });
      if (other == l.second.end()) continue;
      pair_lines[u.thread] += 1;
      pair_access[u.thread] += static_cast<double>(u.all() + other->all());
    }
  }
  double num = 0, den = 0;
  for (int i = 0; i < n; ++i) num += pair_lines[i] * pair_access[i], den += lines_of[i] * access_of[i];
  return den > 0 ? 100.0 * num / den : 0.0;
}

}  // namespace

std::string drr_class(double drr) { return drr < 1 ? "no" : drr < 4 ? "medium" : "good"; }

Profile analyze(const Trace& t, const AnalysisInput& in) {
  int n = in.threads ? in.threads : t.threads;
  if (t.threads < n)
    throw Error("the trace has " + std::to_string(t.threads) + " threads but " + std::to_string(n) +
                " were asked for: did the program run with " + std::to_string(n) + " threads?");
  Profile p;
  p.application = in.application;
  p.binary_sha256 = in.binary_sha256;
  p.tool = in.tool.empty() ? t.tool : in.tool;
  p.date = in.date;
  p.topology = in.topology;
  p.threads = n;
  p.line_size = t.line_size;

  auto all = by_line(t, n, -1);
  matrices(all, n, p.matrices["simple"], p.matrices["rw"]);
  p.working_set_lines = static_cast<double>(all.size());
  p.thread_working_set_lines.assign(n, 0);
  for (const auto& l : all)
    for (const Use& u : l.second) p.thread_working_set_lines[u.thread] += 1;
  p.drr = data_reuse_ratio(all, p.matrices["simple"], n);
  p.drr_class = drr_class(p.drr);

  for (size_t r = 1; r < t.regions.size(); ++r) {
    auto lines = by_line(t, n, static_cast<int>(r));
    if (lines.empty()) continue;
    ProfileRegion region;
    region.name = t.regions[r];  // one word in the profile format
    for (char& c : region.name)
      if (c == ' ' || c == '\t') c = '_';
    matrices(lines, n, region.matrices["simple"], region.matrices["rw"]);
    p.regions.push_back(region);
  }
  return p;
}

}  // namespace slurmpin
