// SPDX-License-Identifier: GPL-2.0-or-later
// The profiler's analyzer on hand-written traces: eq. 5.1, eq. 6.1, working
// sets and DRR computed by hand, per region and for the whole run.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>

#include "error.hh"
#include "sharing.hh"
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

}  // namespace

TEST(Analyzer, SimpleAndReadWriteModels) {
  Profile p = analyze(read_trace(write_trace(kTrace)), AnalysisInput());
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

TEST(Analyzer, KeepsTheFirstThreadsAndRefusesTooFew) {
  AnalysisInput in;
  in.threads = 2;
  Profile p = analyze(read_trace(write_trace(kTrace)), in);
  EXPECT_EQ(p.threads, 2);
  EXPECT_EQ(p.matrices.at("simple")[0][1], 5);
  in.threads = 4;
  EXPECT_THROW(analyze(read_trace(write_trace(kTrace)), in), Error);
}

TEST(Trace, StrictErrors) {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"", "empty trace"},
      {"slurm-pin-trace 2\n", ":1: not a slurm-pin trace version 1"},
      {"slurm-pin-trace 1\nthreads 1\nregion 0 serial\na 1 0 5 1 1\n", ":4: thread 1 but the trace declares 1 threads"},
      {"slurm-pin-trace 1\nthreads 1\nregion 0 serial\na 0 3 5 1 1\n", ":4: region 3 was not declared"},
      {"slurm-pin-trace 1\nthreads 1\nregion 0 serial\na 0 0 5 x 1\n", ":4: reads 'x' is not a whole number"},
      {"slurm-pin-trace 1\nregion 1 x\n", ":2: regions are declared in order"},
      {"slurm-pin-trace 1\nwhat 1\n", ":2: unknown record 'what'"},
      // Cut short: no 'end' (a run killed or a node lost while writing).
      {"slurm-pin-trace 1\nthreads 1\nregion 0 serial\na 0 0 5 1 1\n", "the trace stops before its 'end' line"},
      {"slurm-pin-trace 1\nthreads 1\nend\na 0 0 5 1 1\n", ":4: records after 'end'"},
  };
  for (const auto& c : cases) {
    std::string path = write_trace(c.text);
    try {
      read_trace(path);
      ADD_FAILURE() << "no error for: " << c.text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
  }
}
