// SPDX-License-Identifier: GPL-2.0-or-later
// Directories and files root-side code trusts (common/trusted_dir.h): every
// component root's and writable by nobody else (sticky or not), links never
// followed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "test_support.hh"
#include "trusted_dir.h"

namespace {

class TrustedDir : public slurmpin::test::RootDirTest {
 protected:
  TrustedDir() : RootDirTest("trusted") {}
  // The descriptor of path, or -1 with the message in `err`.
  int open_dir(const std::string& path, int create = 0) {
    char e[512] = "";
    int fd = trusted_dir_open(path.c_str(), create, e, sizeof e);
    err = e;
    return fd;
  }
  std::string err;
};

}  // namespace

TEST_F(TrustedDir, RootsDirectoriesAreTrustedAndMissingOnesMade) {
  int fd = open_dir(dir);
  ASSERT_GE(fd, 0) << err;
  close(fd);
  fd = open_dir(dir + "/a/b/c", 1);
  ASSERT_GE(fd, 0) << err;
  close(fd);
  struct stat st;
  ASSERT_EQ(stat((dir + "/a/b/c").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_EQ(open_dir(dir + "/missing"), -1);
  EXPECT_EQ(errno, ENOENT);
}

TEST_F(TrustedDir, AUsersDirectoryALinkOrAWritableOneIsRefusedByName) {
  ASSERT_EQ(mkdir((dir + "/user").c_str(), 0755), 0);
  ASSERT_EQ(chown((dir + "/user").c_str(), 65534, 65534), 0);
  EXPECT_EQ(open_dir(dir + "/user/x", 1), -1);
  EXPECT_NE(err.find(dir + "/user is not owned by root"), std::string::npos) << err;
  struct stat st;
  EXPECT_NE(stat((dir + "/user/x").c_str(), &st), 0);  // nothing made below it
  ASSERT_EQ(mkdir((dir + "/group").c_str(), 0775), 0);
  ASSERT_EQ(chmod((dir + "/group").c_str(), 0775), 0);
  EXPECT_EQ(open_dir(dir + "/group"), -1);
  EXPECT_NE(err.find("is writable by group or others"), std::string::npos) << err;
  ASSERT_EQ(mkdir((dir + "/real").c_str(), 0755), 0);
  ASSERT_EQ(symlink((dir + "/real").c_str(), (dir + "/link").c_str()), 0);
  EXPECT_EQ(open_dir(dir + "/link/x", 1), -1);
  EXPECT_NE(err.find("is a symbolic link"), std::string::npos) << err;
  EXPECT_EQ(open_dir("relative/path"), -1);
  EXPECT_EQ(open_dir(dir + "/../etc"), -1);
}

// Under a world-writable directory, sticky as /tmp is, any user can make the
// next component before root does: such a path is refused whether or not
// the component exists yet, and nothing is made there.
TEST_F(TrustedDir, AStickyWorldWritableDirectoryIsRefused) {
  ASSERT_EQ(mkdir((dir + "/tmp").c_str(), 0755), 0);
  ASSERT_EQ(chmod((dir + "/tmp").c_str(), 01777), 0);
  EXPECT_EQ(open_dir(dir + "/tmp/run", 1), -1);
  EXPECT_NE(err.find(dir + "/tmp is writable by group or others"), std::string::npos) << err;
  struct stat st;
  EXPECT_NE(stat((dir + "/tmp/run").c_str(), &st), 0);
  ASSERT_EQ(mkdir((dir + "/tmp/run").c_str(), 0755), 0);  // made by root, still under /tmp
  EXPECT_EQ(open_dir(dir + "/tmp/run"), -1);
  EXPECT_EQ(open_dir("/tmp"), -1);
}

TEST_F(TrustedDir, AnExistingFileBelowAStickyDirectoryIsRootsWhenWhatItHoldsIsRoots) {
  // What the doctor loads (its own plugin, Slurm's library): a build tree
  // under /tmp is root's when the directory /tmp holds on the way is.
  ASSERT_EQ(mkdir((dir + "/tmp").c_str(), 0755), 0);
  ASSERT_EQ(chmod((dir + "/tmp").c_str(), 01777), 0);
  ASSERT_EQ(mkdir((dir + "/tmp/build").c_str(), 0755), 0);
  std::ofstream(dir + "/tmp/build/lib.so") << "x";
  char resolved[PATH_MAX] = "", e[512] = "";
  EXPECT_EQ(trusted_file_path((dir + "/tmp/build/lib.so").c_str(), resolved, e, sizeof e), 0) << e;
  EXPECT_EQ(std::string(resolved), dir + "/tmp/build/lib.so");
  // The strict rules stay: no program or directory there.
  EXPECT_EQ(trusted_path_dir((dir + "/tmp/build").c_str(), e, sizeof e), -1);
  // Another user's directory in it: they can swap what it holds.
  ASSERT_EQ(chown((dir + "/tmp/build").c_str(), 65534, 65534), 0);
  EXPECT_EQ(trusted_file_path((dir + "/tmp/build/lib.so").c_str(), resolved, e, sizeof e), -1);
  EXPECT_NE(std::string(e).find(dir + "/tmp/build is not owned by root (in a sticky directory others can write)"),
            std::string::npos) << e;
  // A writable directory without the sticky bit: anyone renames anything.
  ASSERT_EQ(chown((dir + "/tmp/build").c_str(), 0, 0), 0);
  ASSERT_EQ(chmod((dir + "/tmp").c_str(), 0777), 0);
  EXPECT_EQ(trusted_file_path((dir + "/tmp/build/lib.so").c_str(), resolved, e, sizeof e), -1);
  EXPECT_NE(std::string(e).find(dir + "/tmp is writable by group or others"), std::string::npos) << e;
  // A user's link in the sticky directory, to root's file: refused too.
  ASSERT_EQ(chmod((dir + "/tmp").c_str(), 01777), 0);
  ASSERT_EQ(symlink((dir + "/tmp/build/lib.so").c_str(), (dir + "/tmp/link.so").c_str()), 0);
  ASSERT_EQ(lchown((dir + "/tmp/link.so").c_str(), 65534, 65534), 0);
  EXPECT_EQ(trusted_file_path((dir + "/tmp/link.so").c_str(), resolved, e, sizeof e), -1);
  // Root's link there to a relative name the user's link holds: refused at
  // the user's link, whatever root's own link led through.
  ASSERT_EQ(symlink("link.so", (dir + "/tmp/root-link.so").c_str()), 0);
  EXPECT_EQ(trusted_file_path((dir + "/tmp/root-link.so").c_str(), resolved, e, sizeof e), -1);
  EXPECT_NE(std::string(e).find(dir + "/tmp/link.so is not owned by root"), std::string::npos) << e;
}

TEST_F(TrustedDir, FilesAreReadOnceAndOnlyWhenRootsAndWrittenAtomically) {
  int fd = open_dir(dir);
  ASSERT_GE(fd, 0);
  char e[512];
  ASSERT_EQ(trusted_file_write(fd, "decision", "slurm-pin: none", 15, 0600, e, sizeof e), 0) << e;
  size_t size = 0;
  char* text = trusted_file_read(fd, "decision", 4096, &size, e, sizeof e);
  ASSERT_NE(text, nullptr) << e;
  EXPECT_EQ(std::string(text, size), "slurm-pin: none");
  free(text);
  struct stat st;
  ASSERT_EQ(fstatat(fd, "decision", &st, 0), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(trusted_file_read(fd, "missing", 4096, &size, e, sizeof e), nullptr);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(trusted_file_read(fd, "decision", 4, &size, e, sizeof e), nullptr);  // larger than asked
  ASSERT_EQ(fchownat(fd, "decision", 65534, 65534, 0), 0);
  EXPECT_EQ(trusted_file_read(fd, "decision", 4096, &size, e, sizeof e), nullptr);
  EXPECT_NE(std::string(e).find("not owned by root"), std::string::npos) << e;
  ASSERT_EQ(mkfifoat(fd, "fifo", 0600), 0);
  EXPECT_EQ(trusted_file_read(fd, "fifo", 4096, &size, e, sizeof e), nullptr);  // at once, never blocks
  EXPECT_NE(std::string(e).find("not a regular file"), std::string::npos) << e;
  ASSERT_EQ(symlinkat("/etc/passwd", fd, "link"), 0);
  EXPECT_EQ(trusted_file_read(fd, "link", 1 << 20, &size, e, sizeof e), nullptr);
  EXPECT_EQ(trusted_file_write(fd, "../x", "a", 1, 0644, e, sizeof e), -1);  // one component only
  ASSERT_EQ(trusted_file_write(fd, "entry", "x", 1, 0644, e, sizeof e), 0);
  close(fd);
}

TEST(TrustedName, OnlyPlainFileNameParts) {
  EXPECT_TRUE(trusted_name_ok("12.0.n1"));
  EXPECT_FALSE(trusted_name_ok(".."));
  EXPECT_FALSE(trusted_name_ok("a/b"));
  EXPECT_FALSE(trusted_name_ok(""));
  EXPECT_FALSE(trusted_name_ok("a b"));
}
