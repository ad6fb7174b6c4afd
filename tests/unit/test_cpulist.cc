// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "topology/cpulist.hh"
#include "error.hh"

using namespace slurmpin;

TEST(CpuList, ParsesRangesAndSingles) {
  EXPECT_EQ(parse_cpulist("0-3,8,10-11", "t"), (std::vector<unsigned>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpulist("5", "t"), (std::vector<unsigned>{5}));
  EXPECT_EQ(parse_cpulist("3,1,2,1", "t"), (std::vector<unsigned>{1, 2, 3}));
}

TEST(CpuList, LeadingZerosAreDecimalNotOctal) {
  // hwloc's own parser reads "010" as octal 8; lists mean decimal (found by
  // fuzzing: a placement file did not survive a round trip).
  EXPECT_EQ(parse_cpulist("010,0201", "x"), (std::vector<unsigned>{10, 201}));
  EXPECT_EQ(parse_cpulist("08-09", "x"), (std::vector<unsigned>{8, 9}));
}

TEST(CpuList, FormatsCollapsingRanges) {
  EXPECT_EQ(format_cpulist(std::vector<unsigned>{0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpulist(std::vector<unsigned>{4}), "4");
  EXPECT_EQ(format_cpulist(std::vector<unsigned>{}), "");
}

TEST(CpuList, RoundTrips) {
  for (const char* s : {"0", "0-1", "0,2,4-7,9", "100-131"})
    EXPECT_EQ(format_cpulist(parse_cpulist(s, "t")), s);
}

TEST(CpuList, RejectsMalformedLists) {
  for (const char* s : {"", "a", "1-", "-1", "3-1", "1,,2", "1 2", "1,", "0x3", "1-2-3", "99999999"})
    EXPECT_THROW(parse_cpulist(s, "t"), Error) << s;
}

TEST(CpuList, ErrorNamesTheInputAndTheFix) {
  try {
    parse_cpulist("3-1", "--restrict");
    FAIL();
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("--restrict"), std::string::npos);
    EXPECT_NE(m.find("lower CPU first"), std::string::npos);
  }
}

TEST(CpuList, IdsAreBoundedBeforeAnyExpansion) {
  // The largest id slurm-pin accepts without a machine, and a machine's own.
  EXPECT_EQ(parse_cpulist("65535", "t").size(), 1u);
  for (const char* s : {"65536", "0-1048576", "4294967296", "99999999999999999999999"}) {
    try {
      parse_cpulist(s, "t");
      FAIL() << s;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is beyond the largest CPU id"), std::string::npos) << e.what();
    }
  }
  try {
    parse_cpu_ranges("0-3,0-1048576", "t", 7);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CPU 1048576 is beyond this machine, whose highest CPU is 7"),
              std::string::npos)
        << e.what();
  }
}

TEST(CpuList, RangesMergeWithoutExpanding) {
  // 60 copies of the widest range cost 60 ranges while parsing, one after.
  std::string bomb;
  for (int i = 0; i < 60; ++i) bomb += (i ? "," : "") + std::string("0-65535");
  CpuRanges r = parse_cpu_ranges(bomb, "t");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].lo, 0u);
  EXPECT_EQ(r[0].hi, 65535u);
  EXPECT_EQ(parse_cpu_ranges("5-7,0-1,2,9", "t"), (CpuRanges{{0, 2}, {5, 7}, {9, 9}}));
  EXPECT_EQ(format_cpulist(parse_cpu_ranges("3,1-2,8", "t")), "1-3,8");
  EXPECT_EQ(count_cpus(parse_cpu_ranges("0-3,8", "t")), 5u);
}
