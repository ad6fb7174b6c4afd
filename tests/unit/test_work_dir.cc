// SPDX-License-Identifier: GPL-2.0-or-later
// slurm-pin profile's work directory, held by descriptor
// (profiler/cli/work_dir.hh): made only where no other user can swap it,
// read and removed through its descriptor, each file the runner's own.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "error.hh"
#include "test_support.hh"
#include "work_dir.hh"

namespace {

namespace fs = std::filesystem;
using slurmpin::Error;
using slurmpin::WorkDir;

std::string error_of(const std::string& parent) {
  try {
    WorkDir w = slurmpin::make_work_dir(parent);
    slurmpin::remove_work_dir(w.parent, w.name.c_str(), w.fd);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(WorkDir, AParentAnotherUserCouldChangeIsRefused) {
  slurmpin::test::TempDir d("work_dir");
  fs::create_directory(d.path / "open");
  chmod((d.path / "open").c_str(), 0777);
  EXPECT_NE(error_of((d.path / "open").string()).find("writable by group or others and not sticky"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(d.path / "open"));
  chmod((d.path / "open").c_str(), 01777);  // sticky, as /tmp: only the maker renames what it made
  EXPECT_EQ(error_of((d.path / "open").string()), "");
  EXPECT_TRUE(fs::is_empty(d.path / "open"));
  if (geteuid() != 0) GTEST_SKIP() << "giving a directory to another user needs root";
  fs::create_directory(d.path / "theirs");
  ASSERT_EQ(chown((d.path / "theirs").c_str(), 65534, 65534), 0);
  EXPECT_NE(error_of((d.path / "theirs").string()).find("belongs to another user (uid 65534)"), std::string::npos);
}

TEST(WorkDir, FilesAreReadThroughTheDescriptorAndMustBeTheRunnersOwn) {
  slurmpin::test::TempDir d("work_dir");
  WorkDir w = slurmpin::make_work_dir(d.path.string());
  EXPECT_EQ(w.path, (d.path / w.name).string());
  EXPECT_EQ(fs::status(w.path).permissions(), fs::perms(0755));
  std::ofstream(w.path + "/rank.0") << "mine\n";
  std::ofstream(w.path + "/rank.1") << "mine too\n";
  std::ofstream(w.path + "/other") << "x\n";
  EXPECT_EQ(slurmpin::work_names(w, "rank."), (std::vector<std::string>{"rank.0", "rank.1"}));
  EXPECT_EQ(slurmpin::read_work_file(w, "rank.0", 100), "mine\n");
  // The directory's path now leads elsewhere: the descriptor still reads the one it made.
  fs::rename(w.path, d.path / "moved");
  fs::create_directory(w.path);
  std::ofstream(w.path + "/rank.0") << "forged\n";
  EXPECT_EQ(slurmpin::read_work_file(w, "rank.0", 100), "mine\n");
  // A link is never followed.
  fs::create_symlink(d.path / "moved/rank.1", d.path / "moved/rank.2");
  EXPECT_THROW(slurmpin::read_work_file(w, "rank.2", 100), Error);
  EXPECT_THROW(slurmpin::open_work_file(w, "rank.2"), Error);
  EXPECT_EQ(slurmpin::open_work_file(w, "absent").fd, -1);
  // Removed by name only while the name still names it.
  for (const char* f : {"rank.0", "rank.1", "rank.2", "other"}) unlinkat(w.fd, f, 0);
  slurmpin::remove_work_dir(w.parent, w.name.c_str(), w.fd);
  EXPECT_TRUE(fs::exists(w.path)) << "the directory put in its place";
  EXPECT_TRUE(fs::exists(d.path / "moved"));
  if (geteuid() != 0) GTEST_SKIP() << "another user's file needs root";
  std::ofstream(d.path / "moved/rank.3") << "theirs\n";
  ASSERT_EQ(chown((d.path / "moved/rank.3").c_str(), 65534, 65534), 0);
  try {
    slurmpin::read_work_file(w, "rank.3", 100);
    FAIL() << "another user's file was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("belongs to uid 65534, not to you"), std::string::npos) << e.what();
  }
}

}  // namespace
