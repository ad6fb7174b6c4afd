// SPDX-License-Identifier: GPL-2.0-or-later
// The matrix, profile and placement-file parsers: round trips and errors
// that name the file, the line and the fix.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>

#include "error.hh"
#include "sharing/matrix_file.hh"
#include "strategies/placement_file.hh"
#include "sharing/profile.hh"
#include "test_support.hh"

using namespace slurmpin;
using slurmpin::test::error_of;

namespace {

// Files written by a test, removed when the test binary exits.
struct TempFiles {
  std::vector<std::string> paths;
  ~TempFiles() {
    for (const auto& p : paths) std::remove(p.c_str());
  }
} temp_files;

std::string write_temp(const std::string& text) {
  char name[] = "/tmp/slurm-pin-test-XXXXXX";
  int fd = mkstemp(name);
  temp_files.paths.push_back(name);
  EXPECT_GE(fd, 0);
  FILE* f = fdopen(fd, "w");
  fputs(text.c_str(), f);
  fclose(f);
  return name;
}

}  // namespace

TEST(MatrixFile, ReadsCommentsCommasAndBlanks) {
  std::string p = write_temp("# sharing\n0, 5, 1\n5 0 2  # row 2\n\n1 2 0\n");
  SharingMatrix a = read_matrix_file(p);
  EXPECT_EQ(a.size(), 3);
  EXPECT_EQ(a(0, 1), 10);  // symmetrised: a(i,j) + a(j,i)
  EXPECT_EQ(a(1, 2), 4);
}

TEST(MatrixFile, ErrorsNameFileLineAndFix) {
  std::string p = write_temp("0 1\n1 0 3\n");
  EXPECT_EQ(error_of([&] { read_matrix_file(p); }),
            p + ":2: row has 3 values, expected 2 (the matrix must be square: one row and one column per thread)");
  p = write_temp("0 x\n1 0\n");
  EXPECT_NE(error_of([&] { read_matrix_file(p); }).find(p + ":1: 'x' is not a number"), std::string::npos);
  p = write_temp("0 -1\n1 0\n");
  EXPECT_NE(error_of([&] { read_matrix_file(p); }).find(":1: negative entry -1"), std::string::npos);
  p = write_temp("0 1 2\n1 0 2\n");
  EXPECT_NE(error_of([&] { read_matrix_file(p); }).find("matrix has 2 rows of 3 values"), std::string::npos);
  EXPECT_NE(error_of([&] { read_matrix_file("/nonexistent/m.txt"); }).find("No such file"), std::string::npos);
}

TEST(Profile, RoundTripsEveryField) {
  Profile p;
  p.application = "stream pairs";
  p.binary_sha256 = "ab12";
  p.tool = "valgrind 3.19";
  p.date = "2026-11-21T10:00:00Z";
  p.topology = "Package:2 Core:8 PU:8";
  p.threads = 2;
  p.line_size = 64;
  p.working_set_lines = 100;
  p.thread_working_set_lines = {60, 70};
  p.thread_creators = {-1, 0};
  p.thread_starts = {"main", "worker"};
  p.region_shares = {0.75};
  p.drr = 0.3;
  p.drr_class = "medium";
  p.matrices["simple"] = {{0, 5}, {5, 0}};
  p.matrices["rw"] = {{0, 2}, {3, 0}};
  p.regions.push_back({"main._omp_fn.0", {{"simple", {{0, 1}, {1, 0}}}}, {}, {}, {}});
  std::string path = write_temp(format_profile(p));
  Profile q = read_profile(path);
  EXPECT_EQ(format_profile(q), format_profile(p));
  EXPECT_EQ(q.affinity("rw", "", path)(0, 1), 5);
  EXPECT_EQ(q.affinity("simple", "main._omp_fn.0", path)(0, 1), 2);
  EXPECT_NE(error_of([&] { q.affinity("rw", "main._omp_fn.0", path); }).find("no 'rw' matrix in region"),
            std::string::npos);
  EXPECT_NE(error_of([&] { q.affinity("simple", "other", path); }).find("regions: main._omp_fn.0"),
            std::string::npos);
}

// A load for one model parses only that model's matrices (the other's
// lines are passed over): a broken rw matrix stops an rw load, naming its
// line, and not a simple one; a matrix given twice is found either way.
TEST(Profile, ModelAskedForIsTheOneParsed) {
  std::string text = "slurm-pin-profile 1\nthreads 2\nmatrix rw\n0 x\n1 0\nmatrix simple\n0 5\n5 0\n";
  std::string path = write_temp(text);
  ProfileNeeds simple, rw;
  simple.model = "simple", rw.model = "rw";
  EXPECT_EQ(read_profile(path, simple).affinity("simple", "", path)(0, 1), 10);  // a(0,1) + a(1,0)
  EXPECT_NE(error_of([&] { read_profile(path, rw); }).find(":4: 'x' is not a number"), std::string::npos);
  EXPECT_NE(error_of([&] { read_profile(path, simple).affinity("rw", "", path); }).find("no 'rw' matrix"),
            std::string::npos);
  std::string twice = write_temp(text + "matrix rw\n0 1\n1 0\n");
  EXPECT_NE(error_of([&] { read_profile(twice, simple); }).find(":9: matrix rw given twice"), std::string::npos);
  std::string no_simple = write_temp("slurm-pin-profile 1\nthreads 2\nmatrix rw\n0 1\n1 0\n");
  EXPECT_NE(error_of([&] { read_profile(no_simple, rw); }).find("no 'matrix simple' section"), std::string::npos);
}

TEST(Profile, RegionNamesAreBoundedWhateverTheFileHolds) {
  std::string text = "slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 1\n1 0\nregion r\naliases";
  for (size_t i = 1; i < kMaxRegionNames; ++i) text += " a" + std::to_string(i);
  std::string at_limit = write_temp(text + "\nmatrix simple\n0 1\n1 0\n");
  EXPECT_EQ(read_profile(at_limit).regions[0].aliases.size(), kMaxRegionNames - 1);
  std::string e = error_of([&] { read_profile(write_temp(text + " one_more\nmatrix simple\n0 1\n1 0\n")); });
  EXPECT_NE(e.find(":7: more than 4096 regions and aliases"), std::string::npos) << e;
}

// Regions' rows left as text (defer_region_rows) give the same matrices
// when asked for, outlive the bytes the caller held, and name a bad value
// with the words and line an eager read names; a region short of rows is
// still named at load.
TEST(Profile, RegionRowsLeftAsTextReadTheSameWhenAskedFor) {
  std::string head = "slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 5\n5 0\n";
  std::string text = head + "region a\nmatrix simple\n0 3\n3 0\nmatrix rw\n0 1\n2 0\nregion b\nmatrix simple\n0 z\n1 0\n";
  ProfileNeeds later;
  later.defer_region_rows = true;
  Profile p;
  {
    FileBytes bytes(text);
    p = parse_profile(bytes, "p", later);
  }
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_TRUE(p.regions[0].matrices.empty());
  EXPECT_EQ(p.regions[0].deferred.size(), 2u);
  EXPECT_EQ(p.affinity("simple", p.regions[0], "p")(0, 1), 6);
  EXPECT_EQ(p.affinity("rw", p.regions[0], "p")(0, 1), 3);
  std::string e = error_of([&] { p.affinity("simple", p.regions[1], "p"); });
  EXPECT_NE(e.find("p:15: 'z' is not a number"), std::string::npos) << "got: " << e;
  EXPECT_EQ(e, error_of([&] { parse_profile(text, "p"); }));
  EXPECT_NE(error_of([&] { p.check_matrix("rw", p.regions[1], "p"); }).find("no 'rw' matrix in region b"),
            std::string::npos);
  // Read whole unless the caller keeps the text (a string_view) or asks.
  std::string good = head + "region a\nmatrix simple\n0 3\n3 0\n";
  EXPECT_FALSE(parse_profile(std::string_view(good), "p", later).regions[0].matrices.empty());
  EXPECT_FALSE(parse_profile(FileBytes(good), "p").regions[0].matrices.empty());
  std::string shorter = write_temp(head + "region a\nmatrix simple\n0 1\nregion b\n");
  EXPECT_NE(error_of([&] { read_profile(shorter, later); }).find(":8: matrix has 1 rows, expected 2"), std::string::npos);
  std::string file = write_temp(text);
  Profile q = read_profile(file, later);
  EXPECT_EQ(q.affinity("simple", "a", file)(0, 1), 6);
}

// Regions' rows left as text to read where each region is placed (the
// engine's per-region placements).
ProfileNeeds region_rows_left() {
  ProfileNeeds n;
  n.defer_region_rows = true;
  return n;
}

// A matrix short of rows is named at its first row, not at the file's last
// line, whether its rows are read as they come or later.
TEST(Profile, ShortMatrixIsNamedAtItsFirstRow) {
  std::string p = write_temp(
      "slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 5\n5 0\nregion a\nmatrix simple\n\n0 1\nregion b\n"
      "matrix simple\n0 3\n3 0\n");
  for (const ProfileNeeds& n : {ProfileNeeds(), region_rows_left()}) {
    std::string e = error_of([&] { read_profile(p, n); });
    EXPECT_NE(e.find(":9: matrix has 1 rows, expected 2"), std::string::npos) << "got: " << e;
  }
}

TEST(Profile, StrictErrors) {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"", "empty profile"},
      {"slurm-pin-profile 2\n", ":1: profile format version 2 is not supported"},
      {"hello\n", ":1: not a profile"},
      {"slurm-pin-profile 1\nthreads two\n", ":2: threads must be an integer"},
      {"slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 1\n", "matrix has 1 rows, expected 2"},
      {"slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 1\n1 0\nmatrix simple\n0 1\n1 0\n", ":6: matrix simple given twice"},
      {"slurm-pin-profile 1\nthreads 2\ncolour blue\n", ":3: unknown key 'colour'"},
      {"slurm-pin-profile 1\nmatrix simple\n0\n", ":2: 'threads N' must come before the first matrix"},
      {"slurm-pin-profile 1\nthreads 2\n", "no 'matrix simple' section"},
      {"slurm-pin-profile 1\nthreads 2\nline_size 48\n", ":3: line_size must be a power of two"},
      {"slurm-pin-profile 1\nthreads 2\ndrr 0.5 great\n", ":3: expected 'drr VALUE no|medium|good'"},
      {"slurm-pin-profile 1\nthreads 2\nthreads 2\n", ":3: 'threads' given twice"},
      {"slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 1\n1 0\nregion r\napplication x\n", ":7: 'application' inside region r"},
      {"slurm-pin-profile 1\nthreads 2\nthread_starts main\nmatrix simple\n0 1\n1 0\n", "thread_starts has 1 values for 2 threads"},
      {"slurm-pin-profile 1\nthreads 2\nthread_creators - 2\nmatrix simple\n0 1\n1 0\n", "names thread 2, not a thread"},
      {"slurm-pin-profile 1\nthreads 2\nregion_shares 1.5\n", ":3: a region's share of accesses is from 0 to 1"},
      {"slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 1\n1 0\nregion r\naliases r\n", ":7: region r given twice"},
      {"slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 1\n1 0\nregion r\naliases s\naliases t\n", ":8: 'aliases NAME...' comes once"},
      {"slurm-pin-profile 1\nthreads 2\nregion_shares 0.5\nmatrix simple\n0 1\n1 0\n", "region_shares has 1 values for 0 regions"},
  };
  for (const auto& c : cases) {
    std::string p = write_temp(c.text);
    std::string e = error_of([&] { read_profile(p); });
    EXPECT_NE(e.find(c.expect), std::string::npos) << "got: " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);
    EXPECT_EQ(error_of([&] { read_profile(p, region_rows_left()); }), e);
  }
}

TEST(PlacementFile, RoundTripsTasksAndRegions) {
  PlacementFile p;
  p.topology = "Package:2 L2:4 Core:8 PU:8";
  p.strategy = "lpgp";
  auto r = [](std::vector<unsigned> cpus) { return ranges_of(cpus); };
  p.tasks = {{r({0}), r({1, 9})}, {r({4}), r({5})}};
  p.regions.push_back({"r1", {{r({1}), r({0})}, {r({5}), r({4})}}});
  std::string path = write_temp(format_placement_file(p));
  PlacementFile q = read_placement_file(path);
  EXPECT_EQ(q.tasks, p.tasks);
  EXPECT_EQ(q.regions, p.regions);
  EXPECT_EQ(q.topology, p.topology);
  EXPECT_EQ(format_placement_file(q), format_placement_file(p));
}

TEST(PlacementFile, StrictErrors) {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"slurm-pin-placement 1\n", "no 'task N:' lines"},
      {"placement\n", ":1: not a placement file"},
      {"slurm-pin-placement 7\n", "version 7 is not supported"},
      {"slurm-pin-placement 1\ntask 0 0 1\n", ":2: missing ':'"},
      {"slurm-pin-placement 1\ntask 1: 0\n", ":2: task 1 out of order: expected task 0"},
      {"slurm-pin-placement 1\ntask 0: 0\ntask 0: 1\n", ":3: task 0 is listed twice"},
      {"slurm-pin-placement 1\ntask 0: 0 1\ntask 1: 2\n", "task 1 has 1 threads but task 0 has 2"},
      {"slurm-pin-placement 1\ntask 0: 0 1\ntask 1: 1 2\n", "CPU 1 is given to two tasks"},
      {"slurm-pin-placement 1\ntask 0: 0 3-1\n", "reversed range 3-1"},
      {"slurm-pin-placement 1\ntask 0:\n", ":2: task 0 lists no CPUs"},
      {"slurm-pin-placement 1\nowner me\n", ":2: unknown key 'owner'"},
      {"slurm-pin-placement 1\ntask 0: 0\ntask 0 region r: 0 1\n", "region r task 0 has 2 threads, expected 1"},
      {"slurm-pin-placement 1\ntask 0: 0-3 6\ntask 1: 4-5 2\n", "CPU 2 is given to two tasks"},
      {"slurm-pin-placement 1\ntask 0: 0-1048576\n", ":2: task 0: CPU 1048576 is beyond the largest CPU id"},
      {"slurm-pin-placement 1\ntask 0: 0\ntask 1: 1\ntask 1: 2\n", ":4: task 1 is listed twice"},
  };
  for (const auto& c : cases) {
    std::string p = write_temp(c.text);
    std::string e = error_of([&] { read_placement_file(p); });
    EXPECT_NE(e.find(c.expect), std::string::npos) << "got: " << e;
  }
}

TEST(EdgeList, ReadsPairsSummingRepeatsInBothDirections) {
  std::string p = write_temp("slurm-pin-edges 1\n# a chain\nthreads 5\n0 1 10\n1 0 5\n3, 4, 2.5\n\n");
  SharingMatrix a = read_matrix_file(p);
  EXPECT_EQ(a.size(), 5);
  EXPECT_EQ(a(0, 1), 15);
  EXPECT_EQ(a(4, 3), 2.5);
  EXPECT_EQ(a(0, 2), 0);
  EXPECT_EQ(a.pairs(), 2u);  // memory follows the pairs, not threads^2
}

TEST(EdgeList, StrictErrorsNameLineAndFix) {
  auto err = [&](const std::string& text) {
    std::string p = write_temp(text);
    std::string e = error_of([&] { read_matrix_file(p); });
    return e.substr(0, p.size()) == p ? e.substr(p.size()) : e;
  };
  EXPECT_EQ(err("slurm-pin-edges 2\nthreads 2\n"),
            ":1: edge list version '2' is not supported (the first line must be 'slurm-pin-edges 1')");
  EXPECT_EQ(err("slurm-pin-edges 1\n0 1 3\n"), ":2: expected 'threads N' (N from 1 to 65536) after the header");
  EXPECT_EQ(err("slurm-pin-edges 1\nthreads 99999999\n"),
            ":2: expected 'threads N' (N from 1 to 65536) after the header");
  EXPECT_EQ(err("slurm-pin-edges 1\nthreads 4\n0 4 1\n"),
            ":3: thread 4 is out of range: the list declares 4 threads (ids 0 to 3)");
  EXPECT_EQ(err("slurm-pin-edges 1\nthreads 4\n2 2 1\n"),
            ":3: thread 2 shares with itself (only pairs of different threads count: drop the line)");
  EXPECT_EQ(err("slurm-pin-edges 1\nthreads 4\n0 1\n"),
            ":3: edge has 2 fields (write 'I J WEIGHT': two thread ids and how much they share)");
  EXPECT_EQ(err("slurm-pin-edges 1\nthreads 4\n0 1 -3\n"), ":3: negative entry -3 (sharing counts are >= 0: fix the file)");
  EXPECT_EQ(err("slurm-pin-edges 1\nthreads 4\n0 1 3\nmatrix simple\n"),
            ":4: unexpected text 'matrix simple' (edge lines are 'I J WEIGHT')");
  EXPECT_EQ(err("slurm-pin-edges 1\nthreads 4\n0 1 1e200\n"),
            ":3: entry 1e200 is too large (at most 1e100: scale the counts down)");
}

TEST(Profile, EdgeSectionsRoundTripAndMixWithRows) {
  std::string text =
      "slurm-pin-profile 1\nthreads 4\nedges simple\n0 1 7\n2 3 9\nmatrix rw\n0 1 0 0\n1 0 0 0\n0 0 0 2\n0 0 2 0\n"
      "region r1\nedges simple\n1 2 4\n";
  Profile p = parse_profile(text, "p");
  EXPECT_EQ(p.affinity("simple", "", "p")(2, 3), 9);
  EXPECT_EQ(p.affinity("simple", "r1", "p")(1, 2), 4);
  EXPECT_EQ(p.affinity("rw", "", "p")(0, 1), 2);
  Profile again = parse_profile(format_profile(p), "p2");
  EXPECT_EQ(again.affinity("simple", "", "p2").edges().size(), 2u);
  EXPECT_EQ(again.affinity("simple", "r1", "p2")(2, 1), 4);
  EXPECT_NE(error_of([&] { parse_profile("slurm-pin-profile 1\nthreads 2\nedges simple\n0 1 1\nmatrix simple\n0 1\n1 0\n", "p"); })
                .find("matrix simple given twice"),
            std::string::npos);
}

TEST(MatrixFile, CountsAndDecimalsReadTheSame) {
  // Plain counts take a fast path; everything else the full parser.
  SharingMatrix a = parse_matrix_text("0 123456789012345 7\n123456789012345 0 +2.5\n7 2.5e0 0\n", "m");
  EXPECT_EQ(a(0, 1), 2 * 123456789012345.0);
  EXPECT_EQ(a(1, 2), 5.0);
  EXPECT_EQ(a(0, 2), 14.0);
  EXPECT_THROW(parse_matrix_text("0 1x\n1 0\n", "m"), Error);
  // Past 15 digits the full parser takes over (a double is exact no further).
  EXPECT_DOUBLE_EQ(parse_matrix_text("0 1234567890123456789012\n0 0\n", "m")(0, 1), 1234567890123456789012.0);
}
