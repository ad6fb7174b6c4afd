// SPDX-License-Identifier: GPL-2.0-or-later
// Reading files that a user (or another untrusted party) names. Each file is
// opened exactly once, non-blocking (a FIFO or a device cannot stall the
// caller, which may be slurmstepd), and every check is made on that
// descriptor with fstat: no second lookup of the path can be raced.
#pragma once
#include <sys/stat.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace slurmpin {

// An open descriptor, closed when it goes out of scope; -1 holds nothing.
struct Fd {
  int fd;
  explicit Fd(int f = -1) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
};

// Only the checks: `path` opens and is a regular file (one open, fstat on
// the descriptor), for files another program will load (a library).
void check_user_file(const std::string& path);

// The whole file at `path`, which must be a regular file of at most
// `max_bytes`. Throws Error naming the path, the problem and the fix.
std::string read_user_file(const std::string& path, size_t max_bytes);

// The same, but false (and `text` untouched) when nothing exists at `path`:
// for arguments that may name a file or be something else.
bool read_user_file_if_exists(const std::string& path, size_t max_bytes, std::string& text);

// `name` in the directory `dirfd` opened once (non-blocking, `flags` added:
// O_NOFOLLOW, say) and checked on its descriptor: a regular file, whose
// fstat `st` receives. Holds nothing (fd -1, errno ENOENT) only when
// `missing_ok` and nothing is there; else throws Error naming `shown`.
Fd open_file_at(int dirfd, const std::string& name, int flags, const std::string& shown, struct stat& st,
                bool missing_ok);

// The same relative to an open directory: `name` is opened with openat and
// `flags` added (O_NOFOLLOW, say). `shown` is how errors name the file; `st`
// receives the descriptor's fstat for further checks (owner, mode).
std::string read_file_at(int dirfd, const std::string& name, size_t max_bytes, int flags,
                         const std::string& shown, struct stat* st = nullptr);

// A file's bytes, mapped read-only (or read, where the file system cannot
// map them), released when the last copy goes.
class FileBytes {
 public:
  FileBytes() = default;
  // Bytes already read (a file a user names), held the same way.
  explicit FileBytes(std::string text);
  std::string_view view() const { return {bytes_.get(), size_}; }
  size_t size() const { return size_; }

 private:
  friend FileBytes map_file_at(int, const std::string&, size_t, int, const std::string&, struct stat*);
  std::shared_ptr<const char> bytes_;
  size_t size_ = 0;
};

// read_file_at's checks, the file mapped instead of copied: a 5 MB store
// profile costs its page-cache pages (0.6 ms) where a copy zero-fills and
// fills fresh ones (3.5 ms), on every step that looks up its placement.
// For files only trusted writers can change, and change by renaming a new
// file into place (the profile store): a mapped file truncated underneath
// its reader faults it (SIGBUS), so a file a user names is read, never
// mapped. Read instead where the file system cannot map it.
FileBytes map_file_at(int dirfd, const std::string& name, size_t max_bytes, int flags, const std::string& shown,
                      struct stat* st = nullptr);

}  // namespace slurmpin
