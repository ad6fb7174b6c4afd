// SPDX-License-Identifier: GPL-2.0-or-later
// The profiler's analyzer on hand-written traces: eq. 5.1, eq. 6.1, working
// sets and DRR computed by hand, per region and for the whole run.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>

#include "error.hh"
#include "sharing/profile.hh"
#include "sharing.hh"
#include "sums.hh"
#include "test_support.hh"
#include "trace.hh"

using namespace slurmpin;

namespace {

std::string write_trace(const std::string& text) {
  std::string path = testing::TempDir() + "/trace-" + std::to_string(std::hash<std::string>()(text));
  std::ofstream(path) << text;
  return path;
}

// Three threads. Line 10: thread 0 reads 5 writes 1, thread 1 reads 2 writes 3
// (region 1). Line 11: thread 0 reads 4, thread 2 writes 6 (region 2).
// Line 12: thread 1 reads 1 (region 0), thread 2 reads 1 (region 0).
const char kTrace[] =
    "slurm-pin-trace 1\n"
    "tool test\n"
    "line_size 64\n"
    "threads 3\n"
    "region 0 serial\n"
    "region 1 main._omp_fn.0\n"
    "region 2 main._omp_fn.1\n"
    "a 0 1 10 5 1\n"
    "a 1 1 10 2 3\n"
    "a 0 2 11 4 0\n"
    "a 2 2 11 0 6\n"
    "a 1 0 12 1 0\n"
    "a 2 0 12 1 0\n"
    "end\n";

struct ErrorCase {
  const char* text;
  const char* expect;  // part of the one error reading `text` must give
};

template <size_t N>
void expect_errors(const ErrorCase (&cases)[N], const std::function<void(const char*)>& read) {
  for (const ErrorCase& c : cases) {
    std::string e = slurmpin::test::error_of([&] { read(c.text); });
    EXPECT_NE(e.find(c.expect), std::string::npos) << "reading: " << c.text << "\ngot: '" << e << "'";
  }
}

}  // namespace

TEST(Analyzer, SimpleAndReadWriteModels) {
  AnalysisInput whole;
  whole.exclude_serial = false;
  Profile p = analyze(read_trace(write_trace(kTrace)), whole);
  ASSERT_EQ(p.threads, 3);
  const Rows& s = p.matrices.at("simple");
  // line 10: min(6, 5) = 5; line 11: min(4, 6) = 4; line 12: min(1, 1) = 1.
  EXPECT_EQ(s[0][1], 5);
  EXPECT_EQ(s[0][2], 4);
  EXPECT_EQ(s[1][2], 1);
  EXPECT_EQ(s[1][0], 5);
  const Rows& rw = p.matrices.at("rw");
  // line 10: min(RD0=5, WR1=3) + min(WR0=1, RD1=2) + min(WR0=1, WR1=3) = 3 + 1 + 1.
  EXPECT_EQ(rw[0][1], 5);
  // line 11: min(4, 6) + min(0, 0) + min(0, 6) = 4.
  EXPECT_EQ(rw[0][2], 4);
  // line 12: two readers share nothing in the read/write model.
  EXPECT_EQ(rw[1][2], 0);
}

TEST(Analyzer, PerRegionMatrices) {
  Profile p = analyze(read_trace(write_trace(kTrace)), AnalysisInput());
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(p.regions[0].name, "main._omp_fn.0");
  EXPECT_EQ(p.regions[0].matrices.at("simple")[0][1], 5);
  EXPECT_EQ(p.regions[0].matrices.at("simple")[0][2], 0);
  EXPECT_EQ(p.regions[1].name, "main._omp_fn.1");
  EXPECT_EQ(p.regions[1].matrices.at("simple")[0][2], 4);
  EXPECT_EQ(p.regions[1].matrices.at("simple")[0][1], 0);
}

TEST(Analyzer, WorkingSetsAndDataReuseRatio) {
  Profile p = analyze(read_trace(write_trace(kTrace)), AnalysisInput());
  EXPECT_EQ(p.working_set_lines, 3);
  EXPECT_EQ(p.thread_working_set_lines, (std::vector<double>{2, 2, 2}));
  // The best pairing of the simple matrix is (0,1) (weight 5), thread 2 alone.
  // Lines(0,1) = {10}: 1 line, Access = 6 + 5 = 11 -> 11.
  // Threads: T0 lines {10,11}: 2 x 10 accesses; T1 {10,12}: 2 x 6; T2 {11,12}: 2 x 7 -> 46.
  EXPECT_NEAR(p.drr, 100.0 * 11 / 46, 1e-9);
  EXPECT_EQ(p.drr_class, "good");
  EXPECT_EQ(drr_class(0.5), "no");
  EXPECT_EQ(drr_class(2), "medium");
}

TEST(Analyzer, TheSerialPartIsLeftOutWhenRegionsExist) {
  // Line 12 is shared by threads 1 and 2 in serial code only.
  Analysis a = analyze_sums(sum_trace(read_trace(write_trace(kTrace))), AnalysisInput());
  EXPECT_TRUE(a.serial_excluded);
  EXPECT_EQ(a.profile.matrices.at("simple")[1][2], 0);
  EXPECT_EQ(a.profile.matrices.at("simple")[0][1], 5);
}

TEST(Analyzer, KeepsEveryThreadAndWarnsOfAMismatch) {
  // Asked for 2 or 4, the program created 3: all 3 are kept, with a warning.
  for (int asked : {2, 4}) {
    AnalysisInput in;
    in.threads = asked;
    Analysis a = analyze_sums(sum_trace(read_trace(write_trace(kTrace))), in);
    EXPECT_EQ(a.profile.threads, 3);
    ASSERT_FALSE(a.warnings.empty());
    EXPECT_NE(a.warnings[0].find("asked for " + std::to_string(asked) + " threads and created 3"), std::string::npos)
        << a.warnings[0];
  }
}

TEST(Analyzer, RepeatedRegionNamesBecomeUnique) {
  std::string text = kTrace;
  text.replace(text.find("main._omp_fn.1"), 14, "main._omp_fn.0");
  Profile p = analyze(read_trace(write_trace(text)), AnalysisInput());
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(p.regions[0].name, "main._omp_fn.0");
  EXPECT_EQ(p.regions[1].name, "main._omp_fn.0~2");
  // and the profile reads back (names are unique)
  EXPECT_EQ(parse_profile(format_profile(p), "p").regions.size(), 2u);
}

TEST(Analyzer, CallSitesOfOneSourceLineAreOneRegion) {
  // Regions 1 and 2 are two call sites of one construct (a.c:5): one region
  // with an alias, whose sharing is the sum of both.
  std::string text = kTrace;
  text.replace(text.find("region 1 main._omp_fn.0\n"), 24, "region 1 main+10\nsource 1 a.c:5\n");
  text.replace(text.find("region 2 main._omp_fn.1\n"), 24, "region 2 main+40\nsource 2 a.c:5\n");
  Profile p = analyze(read_trace(write_trace(text)), AnalysisInput());
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(p.regions[0].name, "main+10");
  EXPECT_EQ(p.regions[0].aliases, (std::vector<std::string>{"main+40"}));
  EXPECT_EQ(p.region_sources, (std::vector<std::string>{"a.c:5"}));
  EXPECT_DOUBLE_EQ(p.region_shares[0], 21.0 / 23);
  const Rows& m = p.regions[0].matrices.at("simple");
  EXPECT_EQ(m[0][1], 5);
  EXPECT_EQ(m[0][2], 4);
  // Read back, either name finds it.
  Profile q = parse_profile(format_profile(p), "p");
  EXPECT_EQ(&q.find_region("main+40", "p"), &q.regions[0]);
  EXPECT_EQ(q.affinity("simple", "main+40", "p")(0, 2), 8);
}

TEST(Analyzer, WarnsWhenEveryPairSharesTheSame) {
  std::string text = "slurm-pin-trace 1\nthreads 4\nregion 0 serial\n";
  for (int t = 0; t < 4; ++t) text += "a " + std::to_string(t) + " 0 7 10 0\n";
  text += "end\n";
  Analysis a = analyze_sums(sum_trace(read_trace(write_trace(text))), AnalysisInput());
  ASSERT_EQ(a.warnings.size(), 1u);
  EXPECT_NE(a.warnings[0].find("placement will matter little"), std::string::npos);
  EXPECT_TRUE(analyze_sums(sum_trace(read_trace(write_trace(kTrace))), AnalysisInput()).warnings.empty());
}

TEST(Sums, TheBackendsFileGivesTheSameProfileAsTheTrace) {
  // What a backend writes for kTrace, by hand: the same sums, the same profile.
  const char text[] =
      "slurm-pin-sharing 1\ntool test\nline_size 64\nthreads 3\n"
      "thread 0 - main\nthread 1 0 worker\nthread 2 0 worker\n"
      "region 0 serial\nregion 1 main._omp_fn.0\nregion 2 main._omp_fn.1\n"
      "lines 3\nt 0 2 10\nt 1 2 6\nt 2 2 7\nr 0 2\nr 1 11\nr 2 10\n"
      "p run 0 1 5 5\np run 0 2 4 4\np run 1 2 1 0\np par 0 1 5 5\np par 0 2 4 4\n"
      "p 1 0 1 5 5\np 2 0 2 4 4\np 0 1 2 1 0\n"
      "s 0 1 1 11\ns 0 2 1 10\ns 1 2 1 2\nend\n";
  std::istringstream in(text);
  Sums s = parse_sums(in, "sums");
  ASSERT_EQ(s.header.origins.size(), 3u);
  EXPECT_EQ(s.header.origins[1].creator, 0);
  EXPECT_EQ(s.header.origins[2].start, "worker");
  Sums from_trace = sum_trace(read_trace(write_trace(kTrace)));
  EXPECT_EQ(s.lines, from_trace.lines);
  EXPECT_EQ(s.thread_accesses, from_trace.thread_accesses);
  EXPECT_EQ(s.region_accesses, from_trace.region_accesses);
  from_trace.header.origins = s.header.origins;  // the hand-written trace has none
  Profile a = analyze_sums(s, AnalysisInput()).profile, b = analyze_sums(from_trace, AnalysisInput()).profile;
  EXPECT_EQ(a.thread_starts, (std::vector<std::string>{"main", "worker", "worker"}));
  EXPECT_EQ(a.thread_creators, (std::vector<int>{-1, 0, 0}));
  ASSERT_EQ(a.region_shares.size(), 2u);
  EXPECT_DOUBLE_EQ(a.region_shares[0], 11.0 / 23);
  EXPECT_EQ(format_profile(a), format_profile(b));
}

namespace {

// The sums straight from their definitions (seed 001 eq. 5.1, 6.1), line
// by line over a map of every (line, region, thread): the reference the
// backends' paged, sorted, fast-pathed code must equal.
struct Reference {
  double lines = 0;
  std::vector<double> thread_lines, thread_accesses, region_accesses;
  std::map<std::pair<int, int>, std::pair<double, double>> run, par, shared;
  std::vector<std::map<std::pair<int, int>, std::pair<double, double>>> region;
};

using Use = std::map<uint32_t, std::pair<uint64_t, uint64_t>>;  // thread -> reads, writes

void reference_pairs(const Use& use, std::map<std::pair<int, int>, std::pair<double, double>>& m,
                     std::map<std::pair<int, int>, std::pair<double, double>>* shared) {
  for (auto x = use.begin(); x != use.end(); ++x)
    for (auto y = std::next(x); y != use.end(); ++y) {
      auto [ri, wi] = x->second;
      auto [rj, wj] = y->second;
      auto& p = m[{static_cast<int>(x->first), static_cast<int>(y->first)}];
      p.first += static_cast<double>(std::min(ri + wi, rj + wj));
      p.second += static_cast<double>(std::min(ri, wj) + std::min(wi, rj) + std::min(wi, wj));
      if (shared) {
        auto& s = (*shared)[{static_cast<int>(x->first), static_cast<int>(y->first)}];
        s.first += 1, s.second += static_cast<double>(ri + wi + rj + wj);
      }
    }
}

Reference reference_sums(const Trace& t) {
  size_t threads = static_cast<size_t>(t.header.threads), regions = t.header.regions.size();
  Reference r;
  r.thread_lines.assign(threads, 0), r.thread_accesses.assign(threads, 0), r.region_accesses.assign(regions, 0);
  r.region.resize(regions);
  std::map<uint64_t, std::map<uint32_t, Use>> by_line;  // line -> region -> thread
  for (const Access& a : t.accesses) {
    if (!a.reads && !a.writes) continue;  // touched nothing
    auto& u = by_line[a.line][a.region][a.thread];
    u.first += a.reads, u.second += a.writes;
  }
  for (const auto& [line, by_region] : by_line) {
    Use all, parallel;
    for (const auto& [region, use] : by_region) {
      reference_pairs(use, r.region[region], nullptr);
      for (const auto& [thread, rw] : use) {
        r.region_accesses[region] += static_cast<double>(rw.first + rw.second);
        all[thread].first += rw.first, all[thread].second += rw.second;
        if (region != 0) parallel[thread].first += rw.first, parallel[thread].second += rw.second;
      }
    }
    r.lines++;
    for (const auto& [thread, rw] : all)
      r.thread_lines[thread]++, r.thread_accesses[thread] += static_cast<double>(rw.first + rw.second);
    reference_pairs(all, r.run, &r.shared);
    reference_pairs(parallel, r.par, nullptr);
  }
  return r;
}

std::map<std::pair<int, int>, std::pair<double, double>> totals_of(const std::vector<PairSum>& pairs) {
  std::map<std::pair<int, int>, std::pair<double, double>> m;
  for (const PairSum& p : pairs) m[{p.i, p.j}] = {p.a, p.b};
  return m;
}

// A pair the reference met on lines that gave it nothing is not written.
std::map<std::pair<int, int>, std::pair<double, double>> nonzero(
    std::map<std::pair<int, int>, std::pair<double, double>> m) {
  for (auto i = m.begin(); i != m.end();) i = i->second.first == 0 && i->second.second == 0 ? m.erase(i) : std::next(i);
  return m;
}

}  // namespace

TEST(Sums, EqualTheirDefinitionsOnRandomTraces) {
  // Threads and regions enough for pages of more than 32 entries (sorted,
  // not inserted, by thread), lines few and many per page (sparse and
  // dense counters), counts past the 16-bit counters (spills), private and
  // shared lines.
  std::mt19937 rng(59);
  for (int round = 0; round < 60; ++round) {
    Trace t;
    t.header.threads = 1 + static_cast<int>(rng() % 8);
    size_t regions = 1 + rng() % 9;
    for (size_t i = 0; i < regions; ++i) t.header.regions.push_back(i ? "r" + std::to_string(i) : "serial");
    uint64_t span = 1 + rng() % 5000;
    for (int n = static_cast<int>(rng() % 20000); n > 0; --n) {
      Access a;
      a.thread = static_cast<uint32_t>(rng() % t.header.threads);
      a.region = static_cast<uint32_t>(rng() % regions);
      a.line = rng() % 4 ? rng() % span + (rng() % 3 ? 0 : 100000) : a.thread * 3000 + rng() % 200;
      a.reads = rng() % 3 + (rng() % 500 ? 0 : 40000), a.writes = rng() % 2;
      t.accesses.push_back(a);
    }
    Sums s = sum_trace(t);
    Reference r = reference_sums(t);
    SCOPED_TRACE("round " + std::to_string(round));
    EXPECT_EQ(s.lines, r.lines);
    EXPECT_EQ(s.thread_lines, r.thread_lines);
    EXPECT_EQ(s.thread_accesses, r.thread_accesses);
    EXPECT_EQ(s.region_accesses, r.region_accesses);
    EXPECT_EQ(totals_of(s.run), nonzero(r.run));
    EXPECT_EQ(totals_of(s.par), nonzero(r.par));
    EXPECT_EQ(totals_of(s.shared), nonzero(r.shared));
    for (size_t g = 0; g < regions; ++g) EXPECT_EQ(totals_of(s.region[g]), nonzero(r.region[g])) << "region " << g;
  }
}

TEST(Sums, StrictErrors) {
  const ErrorCase cases[] = {
      {"slurm-pin-trace 1\nend\n", ":1: not a slurm-pin-sharing file version 1"},
      {"slurm-pin-sharing 1\nlines 1\nend\n", ":2: 'threads N' must come before the sums"},
      {"slurm-pin-sharing 1\nthreads 2\nlines 1\np run 1 0 1 1\nend\n", ":4: a pair is written once"},
      {"slurm-pin-sharing 1\nthreads 2\nlines 1\np 3 0 1 1 1\nend\n", ":4: scope 3 is neither run, par"},
      {"slurm-pin-sharing 1\nthreads 2\nlines 1\nt 2 1 1\nend\n", ":4: thread 2 but the file declares 2"},
      {"slurm-pin-sharing 1\nthreads 2\nthread 0 - main\nthread 1 5 f\nend\n", ":4: creator 5 is not a thread"},
      {"slurm-pin-sharing 1\nthreads 2\nthread 0 - main\nlines 1\nend\n", "1 'thread' lines for 2 threads"},
      {"slurm-pin-sharing 1\nthreads 2\nend\n", "no 'lines N' line"},
      {"slurm-pin-sharing 1\nthreads 2\nlines 1\n", "stops before its 'end' line"},
      {"slurm-pin-sharing 1\nthreads 2\nlines 1\nq 1\nend\n", ":4: unknown or malformed record 'q'"},
  };
  expect_errors(cases, [](const char* text) {
    std::istringstream in(text);
    parse_sums(in, "sums");
  });
}

TEST(Trace, StrictErrors) {
  const ErrorCase cases[] = {
      {"", "empty file"},
      {"slurm-pin-trace 2\n", ":1: not a slurm-pin-trace file version 1"},
      {"slurm-pin-trace 1\nthreads 1\nregion 0 serial\na 1 0 5 1 1\n", ":4: thread 1 but the trace declares 1 threads"},
      {"slurm-pin-trace 1\nthreads 1\nregion 0 serial\na 0 3 5 1 1\n", ":4: region 3 was not declared"},
      {"slurm-pin-trace 1\nthreads 1\nregion 0 serial\na 0 0 5 x 1\n", ":4: reads 'x' is not a whole number"},
      {"slurm-pin-trace 1\nregion 1 x\n", ":2: regions are declared in order"},
      {"slurm-pin-trace 1\nwhat 1\n", ":2: unknown record 'what'"},
      // Cut short: no 'end' (a run killed or a node lost while writing).
      {"slurm-pin-trace 1\nthreads 1\nregion 0 serial\na 0 0 5 1 1\n", "the file stops before its 'end' line"},
      {"slurm-pin-trace 1\nthreads 1\nend\na 0 0 5 1 1\n", ":4: records after 'end'"},
      {"slurm-pin-trace 1\nregion 0 serial\nsource 1 a.c:3\n", ":3: a region's source follows it"},
      {"slurm-pin-trace 1\nregion 0 serial\ncode 0 /bin/x 12\n", ":3: a region's code follows it"},
  };
  expect_errors(cases, [](const char* text) { read_trace(write_trace(text)); });
}

TEST(Sums, RanksMergeThreadByThreadWithRegionsMatchedByName) {
  // Two ranks of kTrace's program, the second numbering its regions in the
  // other order. Merged: every sum twice, each region's with its own.
  Sums one = sum_trace(read_trace(write_trace(kTrace)));
  std::string swapped = kTrace;
  swapped.replace(swapped.find("region 1 main._omp_fn.0\nregion 2 main._omp_fn.1"), 47,
                  "region 1 main._omp_fn.1\nregion 2 main._omp_fn.0");
  for (size_t at = swapped.find("\na "); at != std::string::npos; at = swapped.find("\na ", at + 1)) {
    char& region = swapped[at + 5];  // "\na T R ...": the same accesses, regions 1 and 2 renumbered
    if (region == '1' || region == '2') region = region == '1' ? '2' : '1';
  }
  Sums two = sum_trace(read_trace(write_trace(swapped)));
  Sums both = merge_sums({one, two});
  EXPECT_EQ(both.header.threads, 3);
  EXPECT_EQ(both.header.regions, one.header.regions);
  EXPECT_DOUBLE_EQ(both.lines, 2 * one.lines);
  for (size_t t = 0; t < 3; ++t) EXPECT_DOUBLE_EQ(both.thread_accesses[t], 2 * one.thread_accesses[t]);
  for (size_t r = 0; r < 3; ++r) EXPECT_DOUBLE_EQ(both.region_accesses[r], 2 * one.region_accesses[r]);
  Profile a = analyze_sums(one, AnalysisInput()).profile, b = analyze_sums(both, AnalysisInput()).profile;
  EXPECT_DOUBLE_EQ(b.affinity("simple", "", "p")(0, 1), 2 * a.affinity("simple", "", "p")(0, 1));
  EXPECT_DOUBLE_EQ(b.affinity("simple", "main._omp_fn.1", "p")(0, 2), 2 * a.affinity("simple", "main._omp_fn.1", "p")(0, 2));
}

TEST(Profile, DropThreadsRenumbersTheRest) {
  Profile p = analyze_sums(sum_trace(read_trace(write_trace(kTrace))), AnalysisInput()).profile;
  double w02 = p.affinity("simple", "", "p")(0, 2);
  p.thread_starts = {"main", "libucs.so.0+0x10", "worker"};
  p.thread_creators = {-1, 0, 1};
  drop_threads(p, {false, true, false});
  EXPECT_EQ(p.threads, 2);
  EXPECT_EQ(p.thread_starts, (std::vector<std::string>{"main", "worker"}));
  EXPECT_EQ(p.thread_creators, (std::vector<int>{-1, -1}));  // its creator left
  EXPECT_DOUBLE_EQ(p.affinity("simple", "", "p")(0, 1), w02);
  for (const ProfileRegion& r : p.regions)
    for (const auto& m : r.matrices) EXPECT_EQ(m.second.size(), 2u) << r.name;
  parse_profile(format_profile(p), "again");  // still a valid profile
}
