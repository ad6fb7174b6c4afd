// SPDX-License-Identifier: GPL-2.0-or-later
#include "input/user_file.hh"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "error.hh"

namespace slurmpin {

Fd::~Fd() {
  if (fd >= 0) close(fd);
}

Fd open_file_at(int dirfd, const std::string& name, int flags, const std::string& shown, struct stat& st,
                bool missing_ok) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of
  // waiting for one; regular files ignore the flag when read.
  Fd f(openat(dirfd, name.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | flags));
  if (f.fd < 0 && errno == ENOENT && missing_ok) return f;
  if (f.fd < 0) {
    int e = errno;
    if (e == ELOOP && (flags & O_NOFOLLOW))
      throw Error(shown + ": is a symbolic link, which is not accepted here (give the file itself)");
    throw Error(shown + ": " + std::strerror(e) +
                (e == EACCES ? " (check its permissions)" : " (check the path)"));
  }
  if (fstat(f.fd, &st) != 0) throw Error(shown + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw Error(shown + ": not a regular file (give a file path)");
  return f;
}

namespace {

std::string size_words(size_t bytes) {
  if (bytes >= (1u << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes >> 10) + " KiB";
}

void check_size(const struct stat& st, size_t max_bytes, const std::string& shown) {
  if (static_cast<unsigned long long>(st.st_size) > max_bytes)
    throw Error(shown + ": file is larger than " + size_words(max_bytes) + " (is this the right file?)");
}

// The open file's bytes in one bounded read: a file that grows meanwhile
// is cut at its checked size plus one byte, which is enough to tell that
// it grew.
void read_checked(int fd, const struct stat& st, const std::string& shown, std::string& text) {
  text.assign(static_cast<size_t>(st.st_size) + 1, '\0');
  size_t got = 0;
  while (got < text.size()) {
    ssize_t n = read(fd, &text[got], text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(shown + ": " + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got > static_cast<size_t>(st.st_size))
    throw Error(shown + ": changed while being read (try again once it is written)");
  text.resize(got);
}

// Opens, checks and reads; -1 (with errno ENOENT) only when `missing_ok`
// and nothing is there.
int read_into(int dirfd, const std::string& name, size_t max_bytes, int flags, const std::string& shown,
              struct stat* out, bool missing_ok, std::string& text) {
  struct stat st;
  Fd f = open_file_at(dirfd, name, flags, shown, st, missing_ok);
  if (f.fd < 0) return -1;
  check_size(st, max_bytes, shown);
  if (out) *out = st;
  read_checked(f.fd, st, shown, text);
  return 0;
}

}  // namespace

std::string read_file_at(int dirfd, const std::string& name, size_t max_bytes, int flags, const std::string& shown,
                         struct stat* st) {
  std::string text;
  read_into(dirfd, name, max_bytes, flags, shown, st, false, text);
  return text;
}

FileBytes map_file_at(int dirfd, const std::string& name, size_t max_bytes, int flags, const std::string& shown,
                      struct stat* st) {
  struct stat got;
  Fd f = open_file_at(dirfd, name, flags, shown, got, false);
  check_size(got, max_bytes, shown);
  if (st) *st = got;
  FileBytes out;
  size_t size = static_cast<size_t>(got.st_size);
  if (size == 0) return out;  // nothing to map (mmap refuses a length of 0)
  // Populated now: the readers go through every byte at once (hash, parse).
  void* at = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f.fd, 0);
  if (at != MAP_FAILED) {
    out.bytes_ = std::shared_ptr<const char>(static_cast<const char*>(at),
                                             [size](const char* p) { munmap(const_cast<char*>(p), size); });
    out.size_ = size;
    return out;
  }
  // A file system that maps nothing (some FUSE ones): read as ever.
  std::string text;
  read_checked(f.fd, got, shown, text);
  return FileBytes(std::move(text));
}

FileBytes::FileBytes(std::string text) {
  auto held = std::make_shared<std::string>(std::move(text));
  size_ = held->size();
  bytes_ = std::shared_ptr<const char>(held, held->data());
}

void check_user_file(const std::string& path) {
  if (path.empty()) throw Error("empty file name (give a file path)");
  struct stat st;
  open_file_at(AT_FDCWD, path, 0, path, st, false);
}

std::string read_user_file(const std::string& path, size_t max_bytes) {
  if (path.empty()) throw Error("empty file name (give a file path)");
  return read_file_at(AT_FDCWD, path, max_bytes, 0, path);
}

bool read_user_file_if_exists(const std::string& path, size_t max_bytes, std::string& text) {
  if (path.empty()) return false;
  std::string got;
  if (read_into(AT_FDCWD, path, max_bytes, 0, path, nullptr, true, got) != 0) return false;
  text.swap(got);
  return true;
}

}  // namespace slurmpin
