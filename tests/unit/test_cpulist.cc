#include <gtest/gtest.h>

#include "cpulist.hh"
#include "error.hh"

using namespace slurmpin;

TEST(CpuList, ParsesRangesAndSingles) {
  EXPECT_EQ(parse_cpulist("0-3,8,10-11", "t"), (std::vector<unsigned>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpulist("5", "t"), (std::vector<unsigned>{5}));
  EXPECT_EQ(parse_cpulist("3,1,2,1", "t"), (std::vector<unsigned>{1, 2, 3}));
}

TEST(CpuList, FormatsCollapsingRanges) {
  EXPECT_EQ(format_cpulist({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpulist({4}), "4");
  EXPECT_EQ(format_cpulist({}), "");
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
