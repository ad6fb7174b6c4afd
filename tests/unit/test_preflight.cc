// SPDX-License-Identifier: GPL-2.0-or-later
// What `slurm-pin profile` refuses before running anything.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "preflight.hh"
#include "test_support.hh"

using namespace slurmpin;
using slurmpin::test::error_of;

TEST(Preflight, AJobThatCouldNeverStartIsRefused) {
  std::string e = error_of([] { check_cpus(4, 0, {2, 2}, "debug"); });
  EXPECT_NE(e.find("ask 4 CPUs but the largest node of partition debug has 2"), std::string::npos) << e;
  EXPECT_NE(e.find("--cpus 2"), std::string::npos) << e;
  e = error_of([] { check_cpus(3, 2, {}, ""); });
  EXPECT_NE(e.find("this allocation has 2 on its node"), std::string::npos) << e;
  EXPECT_EQ(error_of([] { check_cpus(2, 0, {1, 2}, ""); }), "");
  EXPECT_EQ(error_of([] { check_cpus(64, 0, {}, ""); }), "");  // sinfo could not tell: let srun decide
}

TEST(Preflight, BinariesMustSuitTheBackend) {
  // /bin/true: ELF, not instrumented.
  std::string e = error_of([] { check_binary("compiler", "/bin/true", ""); });
  EXPECT_NE(e.find("was not built for the compiler backend"), std::string::npos) << e;
  EXPECT_EQ(error_of([] { check_binary("valgrind", "/bin/true", "3.19.0"); }), "");
  // A script: nothing to check.
  std::string script = testing::TempDir() + "/script.sh";
  std::ofstream(script) << "#!/bin/sh\necho __tsan_init\n";
  EXPECT_EQ(error_of([&] { check_binary("compiler", script, ""); }), "");
  EXPECT_NE(error_of([] { check_binary("valgrind", "/nonexistent/prog", ""); }).find("No such file"), std::string::npos);
}

TEST(Preflight, TheDestinationMustBeWritable) {
  std::string e = error_of([] { check_destination("", "/nonexistent/dir/app.profile"); });
  EXPECT_NE(e.find("cannot write the profile into /nonexistent/dir"), std::string::npos) << e;
  e = error_of([] { check_destination(testing::TempDir() + "/no-store", ""); });
  EXPECT_NE(e.find("no-store does not exist: create it"), std::string::npos) << e;
  EXPECT_EQ(error_of([] { check_destination(testing::TempDir(), ""); }), "");
}
