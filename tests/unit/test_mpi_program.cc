// SPDX-License-Identifier: GPL-2.0-or-later
// Which MPI a program needs, from its dynamic section (common/mpi_program.h):
// the recorder a recording job preloads must be that MPI's.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "mpi_program.h"
#include "program_path.h"
#include "test_support.hh"

namespace {

bool exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

TEST(MpiProgram, ReadsTheMpiFromTheDynamicSection) {
  const std::string bin = SP_BUILD_DIR "/bin/";
  if (!exists(bin + "mpi_stencil_openmpi") || !exists(bin + "mpi_stencil_mpich"))
    GTEST_SKIP() << "built without both MPIs";
  EXPECT_EQ(mpi_program_kind((bin + "mpi_stencil_openmpi").c_str()), MPI_KIND_OPENMPI);
  EXPECT_EQ(mpi_program_kind((bin + "mpi_stencil_mpich").c_str()), MPI_KIND_MPICH);
  EXPECT_STREQ(mpi_kind_name(MPI_KIND_OPENMPI), "openmpi");
  EXPECT_STREQ(mpi_kind_name(MPI_KIND_MPICH), "mpich");
}

TEST(MpiProgram, NoMpiScriptsAndMissingFiles) {
  slurmpin::test::TempDir dir("mpi_program");
  EXPECT_EQ(mpi_program_kind("/bin/true"), MPI_KIND_NONE);
  std::string script = dir.path.string() + "/run.sh";
  // A script naming an MPI library in its text is still no MPI program.
  std::ofstream(script) << "#!/bin/sh\n# libmpi.so.40\nexec ./app\n";
  EXPECT_EQ(mpi_program_kind(script.c_str()), MPI_KIND_NONE);
  // A truncated ELF header is no program.
  std::ofstream(dir.path.string() + "/short") << "\x7f" "ELF\x02";
  EXPECT_EQ(mpi_program_kind((dir.path.string() + "/short").c_str()), MPI_KIND_NONE);
  EXPECT_EQ(mpi_program_kind((dir.path.string() + "/absent").c_str()), -1);
  EXPECT_EQ(mpi_program_kind(dir.path.c_str()), MPI_KIND_NONE);  // a directory
}

TEST(ProgramPath, FindsTheProgramAsExecDoes) {
  slurmpin::test::TempDir dir("program_path");
  char buf[4096];
  ASSERT_EQ(program_path_find("true", "/nonexistent:/bin", buf, sizeof buf), 0);
  EXPECT_STREQ(buf, "/bin/true");
  EXPECT_EQ(program_path_find("surely-not-a-program", "/bin", buf, sizeof buf), -1);
  std::string plain = dir.path.string() + "/data";
  std::ofstream(plain) << "x";
  chmod(plain.c_str(), 0644);
  EXPECT_EQ(program_path_find(plain.c_str(), "/bin", buf, sizeof buf), -1);  // not executable
  EXPECT_EQ(program_path_find("", "/bin", buf, sizeof buf), -1);
}

}  // namespace
