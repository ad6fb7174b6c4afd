// SPDX-License-Identifier: GPL-2.0-or-later
#include "work_dir.hh"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "error.hh"
#include "input/user_file.hh"

namespace slurmpin {

namespace {

// Where another user could swap the work directory for one of theirs: a
// parent they can write to (not sticky), or one they own.
void check_parent(int fd, const std::string& parent) {
  struct stat st;
  if (fstat(fd, &st) != 0) throw Error(parent + ": " + std::strerror(errno));
  const std::string fix = " (give --workdir a directory only you can write, or a sticky one like /tmp)";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
    throw Error(parent + " is writable by group or others and not sticky: another user could put a directory of "
                "theirs in place of the work directory" + fix);
  if (st.st_uid != 0 && st.st_uid != geteuid())
    throw Error(parent + " belongs to another user (uid " + std::to_string(st.st_uid) +
                "), who could put a directory of theirs in place of the work directory" + fix);
}

std::string random_suffix() {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char bytes[6];
  if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) throw Error("getrandom failed");
  std::string s;
  for (unsigned char b : bytes) s += kChars[b % (sizeof kChars - 1)];
  return s;
}

// The absolute path of an open directory.
std::string path_of(int fd, const std::string& shown) {
  char link[64], target[PATH_MAX];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) throw Error(shown + ": cannot tell its absolute path: " + std::strerror(errno));
  return std::string(target, static_cast<size_t>(n));
}

// A file in the work directory must be the runner's own.
void check_own(const struct stat& st, const std::string& shown) {
  if (st.st_uid != geteuid())
    throw Error(shown + ": belongs to uid " + std::to_string(st.st_uid) + ", not to you: another user wrote into the "
                "work directory; run again with --workdir a directory only you can write");
}

}  // namespace

WorkDir make_work_dir(const std::string& parent) {
  WorkDir w;
  w.parent = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (w.parent < 0)
    throw Error("cannot create a work directory in " + parent + ": " + std::strerror(errno) +
                " (give a writable one with --workdir)");
  try {
    check_parent(w.parent, parent);
    for (int tries = 0; w.fd < 0; ++tries) {
      w.name = ".slurm-pin-profile." + random_suffix();
      if (mkdirat(w.parent, w.name.c_str(), 0700) != 0) {
        if (errno == EEXIST && tries < 100) continue;
        throw Error("cannot create a work directory in " + parent + ": " + std::strerror(errno) +
                    " (give a writable one with --workdir)");
      }
      w.fd = openat(w.parent, w.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      struct stat st;
      if (w.fd < 0 || fstat(w.fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)
        throw Error(parent + "/" + w.name + ": not the directory just made (another user replaced it?)" +
                    " (give --workdir a directory only you can write)");
      // The ranks and backends write as the runner; others may read (--keep-trace).
      fchmod(w.fd, 0755);
    }
    // Absolute: the backends and the ranks write there when the program ends,
    // and a program may have changed its directory by then.
    w.path = path_of(w.fd, parent + "/" + w.name);
  } catch (...) {
    if (w.fd >= 0) unlinkat(w.parent, w.name.c_str(), AT_REMOVEDIR), close(w.fd);
    close(w.parent);
    throw;
  }
  return w;
}

WorkDir open_work_dir(const std::string& path) {
  WorkDir w;
  size_t slash = path.find_last_of('/');
  std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  w.name = slash == std::string::npos ? path : path.substr(slash + 1);
  w.parent = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (w.parent < 0) throw Error(path + ": " + std::strerror(errno));
  w.fd = openat(w.parent, w.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (w.fd < 0 || fstat(w.fd, &st) != 0 || st.st_uid != geteuid()) {
    std::string why = w.fd < 0 ? std::strerror(errno) : "not a directory of yours";
    if (w.fd >= 0) close(w.fd);
    close(w.parent);
    throw Error(path + ": " + why);
  }
  w.path = path_of(w.fd, path);
  return w;
}

std::vector<std::string> work_names(const WorkDir& dir, const std::string& prefix) {
  std::vector<std::string> out;
  int fd = openat(dir.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // a description of its own to read
  DIR* d = fd < 0 ? nullptr : fdopendir(fd);
  if (!d) {
    if (fd >= 0) close(fd);
    return out;
  }
  while (dirent* e = readdir(d))
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) out.push_back(e->d_name);
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Fd open_work_file(const WorkDir& dir, const std::string& name) {
  std::string shown = dir.path + "/" + name;
  struct stat st;
  Fd f = open_file_at(dir.fd, name, O_NOFOLLOW, shown, st, true);
  if (f.fd >= 0) check_own(st, shown);
  return f;
}

std::string read_work_file(const WorkDir& dir, const std::string& name, size_t max_bytes) {
  std::string shown = dir.path + "/" + name;
  struct stat st;
  std::string text = read_file_at(dir.fd, name, max_bytes, O_NOFOLLOW, shown, &st);
  check_own(st, shown);
  return text;
}

bool work_file_exists(const WorkDir& dir, const std::string& name) {
  return faccessat(dir.fd, name.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

void remove_work_dir(int parent, const char* name, int fd) {
  struct stat mine, there;
  if (parent < 0 || fd < 0 || fstat(fd, &mine) != 0 ||
      fstatat(parent, name, &there, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  if (mine.st_dev == there.st_dev && mine.st_ino == there.st_ino) unlinkat(parent, name, AT_REMOVEDIR);
}

}  // namespace slurmpin
