// SPDX-License-Identifier: GPL-2.0-or-later
#include "sharing/store.hh"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <memory>

#include "error.hh"
#include "sharing/profile.hh"
#include "input/user_file.hh"
#include "slurm_pin_options.h"
#include "trusted_dir.h"

namespace slurmpin {

namespace {

struct DirCloser {
  void operator()(DIR* d) const { closedir(d); }
};

// Trusted by trusted_dir.h's one rule, the store's owner trusted beside
// root; the refusal is the one srun gives (slurm_pin_options.h).
void check_trusted(const std::string& path, const struct stat& st, mode_t kind, uid_t owner, const std::string& what) {
  char err[PATH_MAX + 256];
  if (sp_store_trust(what.c_str(), path.c_str(), &st, kind, owner, err, sizeof err) != 0) throw Error(err);
}

// "t8.v3.profile" -> threads 8, version 3.
bool parse_entry_name(const std::string& name, int& threads, int& version) {
  return sp_store_entry_of(name.c_str(), &threads, &version) == 0;
}

// Every name in an open directory starting with `prefix`, sorted (read
// through a duplicate of its descriptor); false if it cannot be read.
bool names_in(int dirfd, const std::string& prefix, std::vector<std::string>& out) {
  int dup_fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
  std::unique_ptr<DIR, DirCloser> d(dup_fd >= 0 ? fdopendir(dup_fd) : nullptr);
  if (!d) {
    if (dup_fd >= 0) close(dup_fd);
    return false;
  }
  rewinddir(d.get());
  while (dirent* e = readdir(d.get()))
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) out.push_back(e->d_name);
  std::sort(out.begin(), out.end());
  return true;
}

// The entries of a store directory: every name but hidden ones.
std::vector<std::string> entries(int dirfd, const std::string& shown) {
  std::vector<std::string> all, out;
  if (!names_in(dirfd, "", all)) throw Error("profile store " + shown + ": " + std::strerror(errno));
  for (auto& n : all)
    if (n[0] != '.') out.push_back(std::move(n));
  return out;
}

// The store directory, opened once: every later lookup is relative to this
// descriptor, and its owner is the one profiles must have.
struct StoreDir {
  Fd fd;
  uid_t owner = 0;
  std::string path;
};

// The store directory, its owner read from the descriptor; `missing` is
// the error when it cannot be opened (errno's text follows when empty).
StoreDir open_store_dir(const std::string& dir, const std::string& missing, struct stat& st) {
  StoreDir s{Fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)), 0, dir};
  if (s.fd.fd < 0 || fstat(s.fd.fd, &st) != 0)
    throw Error(missing.empty() ? "profile store " + dir + ": " + std::strerror(errno) : missing);
  s.owner = st.st_uid;
  return s;
}

// The store as readers see it: it must be trustworthy (opened and trusted
// as srun's check opens it, slurm_pin_options.h).
StoreDir open_store(const std::string& dir) {
  char err[PATH_MAX + 256];
  uid_t owner = 0;
  int fd = sp_store_open(dir.c_str(), &owner, err, sizeof err);
  if (fd < 0) throw Error(err);
  return StoreDir{Fd(fd), owner, dir};
}

// An application's directory, never through a symbolic link; -1 when the
// entry is not a directory. Throws when it is one that cannot be trusted.
Fd open_app(const StoreDir& s, const std::string& app) {
  char err[PATH_MAX + 512];
  int fd = sp_store_open_app(s.fd.fd, s.path.c_str(), app.c_str(), s.owner, err, sizeof err);
  if (fd == -2) throw Error(err);
  return Fd(fd);
}

void list_app(const StoreDir& s, int app_fd, const std::string& app, std::vector<StoredProfile>& out,
              std::vector<std::string>* problems = nullptr) {
  std::string app_dir = s.path + "/" + app;
  for (const auto& name : entries(app_fd, app_dir)) {
    StoredProfile p;
    if (!parse_entry_name(name, p.threads, p.version)) continue;  // lock and temporary files
    p.app = app;
    p.path = app_dir + "/" + name;
    struct stat st;  // listing only: reading opens the entry and checks that descriptor
    if (fstatat(app_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    try {
      check_trusted(p.path, st, S_IFREG, s.owner, "profile");
    } catch (const Error& e) {
      if (!problems) throw;
      problems->push_back(e.what());
      continue;
    }
    out.push_back(p);
  }
}

// The text of one entry, opened once without following links, trusted by
// its descriptor. Mapped: a trusted writer only ever renames a whole new
// entry into place (write_profile), so a mapped one never changes.
FileBytes read_entry(const StoreDir& s, int app_fd, const StoredProfile& p) {
  struct stat st;
  std::string name = p.path.substr(p.path.rfind('/') + 1);
  FileBytes text = map_file_at(app_fd, name, kMaxProfileBytes, O_NOFOLLOW, p.path, &st);
  check_trusted(p.path, st, S_IFREG, s.owner, "profile");
  return text;
}

void require_valid_app(const std::string& app) {
  if (!valid_app(app)) throw Error("profile name '" + app + "' is not valid (letters, digits, . _ + - only)");
}

}  // namespace

bool valid_app(const std::string& app) { return sp_profile_app_valid(app.data(), app.size()) == 1; }

std::vector<StoredProfile> list_store(const std::string& dir, std::vector<std::string>* problems) {
  StoreDir s = open_store(dir);
  std::vector<StoredProfile> out;
  for (const auto& app : entries(s.fd.fd, dir)) {
    if (!valid_app(app)) continue;
    try {
      Fd app_fd = open_app(s, app);
      if (app_fd.fd >= 0) list_app(s, app_fd.fd, app, out, problems);
    } catch (const Error& e) {
      if (!problems) throw;
      problems->push_back(e.what());
    }
  }
  std::sort(out.begin(), out.end(), [](const StoredProfile& a, const StoredProfile& b) {
    return std::tie(a.app, a.threads, a.version) < std::tie(b.app, b.threads, b.version);
  });
  return out;
}

namespace {

// What to do when no profile has `threads` threads: profile at that count;
// a count the task's `cpus` hold is a choice, a larger one is said to
// crowd them (threads taking turns on CPUs), which a count that fits never
// does.
std::string thread_count_advice(const std::vector<int>& counts, int threads, int cpus) {
  std::string fit, crowd;
  for (int c : counts) {
    std::string& to = cpus && c > cpus ? crowd : fit;
    to += (to.empty() ? "" : ", ") + std::to_string(c);
  }
  std::string out = "profile at " + std::to_string(threads) + " threads";
  if (!fit.empty()) out += ", or set OMP_NUM_THREADS to " + std::string(fit.find(',') == std::string::npos ? fit : "one of " + fit);
  if (!crowd.empty())
    out += std::string(fit.empty() ? "; " : " (") + (crowd.find(',') == std::string::npos ? "a profile of " : "profiles of ") +
           crowd + " threads would run more threads than each task's " + std::to_string(cpus) + " CPU" +
           (cpus == 1 ? "" : "s") + ", which then take turns" + (fit.empty() ? "" : ")");
  return out;
}

}  // namespace

StoredProfile find_profile(const std::string& dir, const std::string& app, int threads, int version, int cpus) {
  require_valid_app(app);
  StoreDir s = open_store(dir);
  Fd app_fd = open_app(s, app);
  if (app_fd.fd < 0)
    throw Error("no profile '" + app + "' in the store " + dir +
                " (list them with `slurm-pin profiles list`; a file is named by a path with a '/': ./" + app + ")");
  std::vector<StoredProfile> all;
  list_app(s, app_fd.fd, app, all);
  const StoredProfile* best = nullptr;
  std::vector<int> counts;
  for (const auto& p : all) {
    if (std::find(counts.begin(), counts.end(), p.threads) == counts.end()) counts.push_back(p.threads);
    if (p.threads != threads || (version && p.version != version)) continue;
    if (!best || p.version > best->version) best = &p;
  }
  if (best) {
    StoredProfile found = *best;
    found.text = read_entry(s, app_fd.fd, found);
    return found;
  }
  std::sort(counts.begin(), counts.end());
  std::string have;
  for (int c : counts) have += (have.empty() ? "" : ", ") + std::to_string(c);
  if (version && std::find(counts.begin(), counts.end(), threads) != counts.end())
    throw Error("profile '" + app + "' has no version " + std::to_string(version) + " for " +
                std::to_string(threads) + " threads (drop @" + std::to_string(version) + " for the newest)");
  throw Error("profile '" + app + "' has no " + std::to_string(threads) + "-thread profile (it has " +
              (have.empty() ? "none" : have) + "): " + thread_count_advice(counts, threads, cpus));
}

FileBytes read_stored_profile(const std::string& dir, const StoredProfile& p) {
  StoreDir s = open_store(dir);
  Fd app_fd = open_app(s, p.app);
  if (app_fd.fd < 0) throw Error("no profile '" + p.app + "' in the store " + dir);
  return read_entry(s, app_fd.fd, p);
}

std::string profile_path(const std::string& dir, const std::string& app, int threads, int version) {
  return dir + "/" + app + "/t" + std::to_string(threads) + ".v" + std::to_string(version) + ".profile";
}

namespace {

void write_all(int fd, const std::string& s, const std::string& path) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t w = write(fd, s.data() + done, s.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw Error(path + ": " + std::strerror(errno));
    done += static_cast<size_t>(w);
  }
}

// An exclusive lock on DIR/.lock, held while the object lives.
Fd lock_dir(int dirfd, const std::string& shown) {
  Fd lock(openat(dirfd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (lock.fd < 0 || flock(lock.fd, LOCK_EX) != 0)
    throw Error(shown + "/.lock: " + std::strerror(errno) + " (is the store writable by you?)");
  return lock;
}

// Temporary files start with `prefix`. Writers create them under the
// directory's lock and rename or remove them before letting it go, so any
// found by the lock's holder were left by a writer that was killed.
void sweep_temporaries(int dirfd, const std::string& prefix) {
  std::vector<std::string> stale;
  names_in(dirfd, prefix, stale);
  for (const auto& name : stale) unlinkat(dirfd, name.c_str(), 0);
}

// Writes `text` to a new temporary file in dirfd and renames it to `name`,
// atomically and durably.
void replace_file(int dirfd, const std::string& shown_dir, const std::string& prefix, const std::string& name,
                  const std::string& text) {
  std::string tmp;
  Fd file;
  for (int attempt = 0; attempt < 100 && file.fd < 0; ++attempt) {
    tmp = prefix + std::to_string(getpid()) + "." + std::to_string(attempt);
    file.fd = openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (file.fd < 0 && errno != EEXIST) break;
  }
  if (file.fd < 0) throw Error(shown_dir + ": " + std::strerror(errno));
  try {
    write_all(file.fd, text, shown_dir + "/" + tmp);
    if (fchmod(file.fd, 0644) != 0 || fsync(file.fd) != 0)
      throw Error(shown_dir + "/" + tmp + ": " + std::strerror(errno));
    if (renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) != 0)
      throw Error(shown_dir + "/" + name + ": " + std::strerror(errno));
  } catch (...) {
    unlinkat(dirfd, tmp.c_str(), 0);
    throw;
  }
  fsync(dirfd);  // the rename itself survives a crash
}

long index_generation(int dirfd) {
  std::string text;
  try {
    text = read_file_at(dirfd, ".index", 64u << 20, O_NOFOLLOW, ".index");
  } catch (const Error&) {
    return 0;
  }
  long generation = 0;
  char header[64];
  if (std::sscanf(text.c_str(), "%63s %*d generation %ld", header, &generation) != 2) generation = 0;
  return generation;
}

void rebuild_index(const StoreDir& s) {
  Fd lock = lock_dir(s.fd.fd, s.path);
  sweep_temporaries(s.fd.fd, ".index.");
  std::string text;
  for (const auto& app : entries(s.fd.fd, s.path)) {
    if (!valid_app(app)) continue;
    std::vector<StoredProfile> found;
    try {
      Fd app_fd = open_app(s, app);
      if (app_fd.fd >= 0) list_app(s, app_fd.fd, app, found);
    } catch (const Error&) {
      continue;  // untrusted entries are refused by readers anyway: leave them out
    }
    for (const auto& p : found)
      text += "p " + p.app + " " + std::to_string(p.threads) + " " + std::to_string(p.version) + "\n";
  }
  text = "slurm-pin-store-index 1 generation " + std::to_string(index_generation(s.fd.fd) + 1) + "\n" + text;
  replace_file(s.fd.fd, s.path, ".index.", ".index", text);
}

}  // namespace

StoredProfile store_profile(const std::string& dir, const std::string& app, int threads,
                            const std::string& content) {
  require_valid_app(app);
  struct stat st;
  StoreDir s =
      open_store_dir(dir, "profile store " + dir + " does not exist (create it, owned by the admin, mode 755)", st);
  std::string app_dir = dir + "/" + app;
  if (mkdirat(s.fd.fd, app.c_str(), 0755) != 0 && errno != EEXIST)
    throw Error("profile store " + dir + ": cannot create " + app + ": " + std::strerror(errno) +
                " (only the store's owner can add profiles; others write their profile to a file)");
  Fd app_fd(openat(s.fd.fd, app.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (app_fd.fd < 0) throw Error(app_dir + ": " + std::strerror(errno) + " (it must be a directory)");
  Fd lock = lock_dir(app_fd.fd, app_dir);
  sweep_temporaries(app_fd.fd, ".tmp.");
  int version = 0;
  for (const auto& name : entries(app_fd.fd, app_dir)) {
    int t = 0, v = 0;
    if (parse_entry_name(name, t, v) && t == threads) version = std::max(version, v);
  }
  StoredProfile out{app, threads, version + 1, profile_path(dir, app, threads, version + 1), {}};
  replace_file(app_fd.fd, app_dir, ".tmp.", out.path.substr(out.path.rfind('/') + 1), content);
  rebuild_index(s);
  return out;
}

void rebuild_store_index(const std::string& dir) {
  struct stat st;
  rebuild_index(open_store_dir(dir, "", st));
}

ProfileSpec parse_profile_spec(const std::string& text) {
  sp_profile_spec c;
  char err[1024];
  if (text.find('\0') != std::string::npos || sp_profile_spec_of(text.c_str(), &c, err, sizeof err) != 0)
    throw Error(text.find('\0') != std::string::npos ? "a profile name holds a NUL byte" : err);
  ProfileSpec s;
  s.is_path = c.is_path != 0;
  if (s.is_path) s.path = text;
  s.app = c.app;
  s.version = c.version;
  return s;
}

}  // namespace slurmpin
