// SPDX-License-Identifier: GPL-2.0-or-later
// Reading files by one descriptor (input/user_file.hh): a mapped trusted
// file gives exactly the bytes a read gives, and is refused for the same
// reasons with the same words.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "error.hh"
#include "input/user_file.hh"
#include "test_support.hh"

namespace {

using slurmpin::Error;
using slurmpin::FileBytes;
using slurmpin::map_file_at;
using slurmpin::read_file_at;

struct Files : slurmpin::test::TempDir {
  Files() : TempDir("user_file") {}
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary) << bytes;
    return (path / name).string();
  }
  // What read_file_at, then map_file_at, throw for `name` (or "ok").
  std::pair<std::string, std::string> refusals(const std::string& name, size_t max, int flags = 0) const {
    auto message = [&](auto reader) -> std::string {
      try {
        reader(AT_FDCWD, (path / name).string(), max, flags, name, nullptr);
        return "ok";
      } catch (const Error& e) {
        return e.what();
      }
    };
    return {message(read_file_at), message(map_file_at)};
  }
};

TEST(UserFile, AMappedFileHoldsTheBytesAReadGives) {
  Files f;
  std::string bytes = "slurm-pin-profile 1\n";
  for (int i = 0; i < 100000; ++i) bytes += std::to_string(i % 97) + (i % 16 == 15 ? "\n" : " ");
  bytes += std::string(1, '\0') + "tail";  // any byte, as it is
  f.write("big", bytes);
  struct stat st;
  FileBytes mapped = map_file_at(AT_FDCWD, (f.path / "big").string(), bytes.size(), 0, "big", &st);
  EXPECT_EQ(mapped.view(), bytes);
  EXPECT_EQ(static_cast<size_t>(st.st_size), bytes.size());
  EXPECT_EQ(mapped.view(), read_file_at(AT_FDCWD, (f.path / "big").string(), bytes.size(), 0, "big"));
  // The bytes stay with the copies after the original and the file go.
  FileBytes copy = mapped;
  mapped = FileBytes();
  unlink((f.path / "big").c_str());
  EXPECT_EQ(copy.view(), bytes);
  EXPECT_EQ(mapped.size(), 0u);
}

TEST(UserFile, AnEmptyFileMapsToNothing) {
  Files f;
  f.write("empty", "");
  FileBytes mapped = map_file_at(AT_FDCWD, (f.path / "empty").string(), 10, 0, "empty");
  EXPECT_EQ(mapped.size(), 0u);
  EXPECT_TRUE(mapped.view().empty());
}

TEST(UserFile, AFileTheKernelCannotMapIsRead) {
  // A sysfs attribute: a regular file of 4096 bytes by fstat that mmap
  // refuses and read gives a line of.
  const std::string online = "/sys/devices/system/cpu/online";
  if (access(online.c_str(), R_OK) != 0) GTEST_SKIP() << online << " is not readable here";
  FileBytes mapped = map_file_at(AT_FDCWD, online, 1 << 16, 0, "online CPUs");
  std::string read = read_file_at(AT_FDCWD, online, 1 << 16, 0, "online CPUs");
  EXPECT_FALSE(read.empty());
  EXPECT_EQ(mapped.view(), read);
}

TEST(UserFile, MappingRefusesWhatReadingRefusesWithTheSameWords) {
  Files f;
  f.write("eleven", "eleven byte");
  symlink((f.path / "eleven").c_str(), (f.path / "link").c_str());
  mkdir((f.path / "dir").c_str(), 0755);
  mkfifo((f.path / "fifo").c_str(), 0644);
  for (auto [name, max, flags] : {std::tuple<const char*, size_t, int>{"eleven", 10, 0},
                                  {"link", 100, O_NOFOLLOW},
                                  {"dir", 100, 0},
                                  {"fifo", 100, 0},
                                  {"missing", 100, 0}}) {
    auto [read, mapped] = f.refusals(name, max, flags);
    EXPECT_NE(read, "ok") << name;
    EXPECT_EQ(read, mapped) << name;
  }
  EXPECT_NE(f.refusals("eleven", 10).second.find("eleven: file is larger than"), std::string::npos);
  EXPECT_NE(f.refusals("link", 100, O_NOFOLLOW).second.find("is a symbolic link"), std::string::npos);
  EXPECT_NE(f.refusals("fifo", 100).second.find("not a regular file"), std::string::npos);
  EXPECT_EQ(f.refusals("eleven", 11).second, "ok");
}

}  // namespace
