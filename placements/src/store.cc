#include "store.hh"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <memory>

#include "error.hh"

namespace slurmpin {

namespace {

struct DirCloser {
  void operator()(DIR* d) const { closedir(d); }
};

struct stat stat_of(const std::string& path, const std::string& what) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0)
    throw Error(what + " " + path + ": " + std::strerror(errno));
  return st;
}

// Trusted: owned by root or the store owner, not writable by group or others.
void check_trusted(const std::string& path, const struct stat& st, uid_t owner, const std::string& what) {
  if (st.st_uid != 0 && st.st_uid != owner)
    throw Error(what + " " + path + " is owned by uid " + std::to_string(st.st_uid) +
                ", not by root or the store owner: refusing it (ask the admin to fix its owner)");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    throw Error(what + " " + path + " is writable by group or others: refusing it (chmod go-w)");
}

bool valid_app(const std::string& app) {
  return !app.empty() && app.size() <= 128 && app[0] != '.' &&
         app.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") ==
             std::string::npos;
}

// "t8.v3.profile" -> threads 8, version 3.
bool parse_entry_name(const std::string& name, int& threads, int& version) {
  unsigned t = 0, v = 0;
  char tail[16];
  if (std::sscanf(name.c_str(), "t%u.v%u.%15s", &t, &v, tail) != 3) return false;
  if (std::string(tail) != "profile" || t == 0 || v == 0) return false;
  if (name != "t" + std::to_string(t) + ".v" + std::to_string(v) + ".profile") return false;
  threads = static_cast<int>(t);
  version = static_cast<int>(v);
  return true;
}

std::vector<std::string> entries(const std::string& dir) {
  std::unique_ptr<DIR, DirCloser> d(opendir(dir.c_str()));
  if (!d) throw Error("profile store " + dir + ": " + std::strerror(errno));
  std::vector<std::string> out;
  while (dirent* e = readdir(d.get()))
    if (e->d_name[0] != '.') out.push_back(e->d_name);
  std::sort(out.begin(), out.end());
  return out;
}

void list_app(const std::string& dir, const std::string& app, uid_t owner, std::vector<StoredProfile>& out) {
  std::string app_dir = dir + "/" + app;
  check_trusted(app_dir, stat_of(app_dir, "profile store entry"), owner, "profile store entry");
  for (const auto& name : entries(app_dir)) {
    StoredProfile p;
    if (!parse_entry_name(name, p.threads, p.version)) continue;  // lock and temporary files
    p.app = app;
    p.path = app_dir + "/" + name;
    struct stat st = stat_of(p.path, "profile");
    if (!S_ISREG(st.st_mode)) continue;
    check_trusted(p.path, st, owner, "profile");
    out.push_back(p);
  }
}

// The store's owner, after checking the store is a directory we may trust.
uid_t store_owner(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error("profile store " + dir + " does not exist (set store= in plugstack.conf, or create it)");
  check_trusted(dir, st, st.st_uid, "profile store");
  return st.st_uid;
}

// A store entry that can hold an application's profiles.
bool is_app_dir(const std::string& dir, const std::string& app) {
  struct stat a;
  return valid_app(app) && lstat((dir + "/" + app).c_str(), &a) == 0 && S_ISDIR(a.st_mode);
}

void require_valid_app(const std::string& app) {
  if (!valid_app(app)) throw Error("profile name '" + app + "' is not valid (letters, digits, . _ + - only)");
}

}  // namespace

std::string default_store_dir() {
  const char* env = std::getenv("SLURM_PIN_STORE");
  return env && *env ? env : "/var/lib/slurm-pin/profiles";
}

std::vector<StoredProfile> list_store(const std::string& dir) {
  uid_t owner = store_owner(dir);
  std::vector<StoredProfile> out;
  for (const auto& app : entries(dir))
    if (is_app_dir(dir, app)) list_app(dir, app, owner, out);
  std::sort(out.begin(), out.end(), [](const StoredProfile& a, const StoredProfile& b) {
    return std::tie(a.app, a.threads, a.version) < std::tie(b.app, b.threads, b.version);
  });
  return out;
}

StoredProfile find_profile(const std::string& dir, const std::string& app, int threads, int version) {
  require_valid_app(app);
  uid_t owner = store_owner(dir);
  if (!is_app_dir(dir, app))
    throw Error("no profile '" + app + "' in the store " + dir +
                " (list them with `slurm-pin profiles list`, or give a file path)");
  std::vector<StoredProfile> all;
  list_app(dir, app, owner, all);
  const StoredProfile* best = nullptr;
  std::vector<int> counts;
  for (const auto& p : all) {
    if (std::find(counts.begin(), counts.end(), p.threads) == counts.end()) counts.push_back(p.threads);
    if (p.threads != threads || (version && p.version != version)) continue;
    if (!best || p.version > best->version) best = &p;
  }
  if (best) return *best;
  std::sort(counts.begin(), counts.end());
  std::string have;
  for (int c : counts) have += (have.empty() ? "" : ", ") + std::to_string(c);
  if (version && std::find(counts.begin(), counts.end(), threads) != counts.end())
    throw Error("profile '" + app + "' has no version " + std::to_string(version) + " for " +
                std::to_string(threads) + " threads (drop @" + std::to_string(version) + " for the newest)");
  throw Error("profile '" + app + "' has no " + std::to_string(threads) + "-thread profile (it has " +
              (have.empty() ? "none" : have) + "): set OMP_NUM_THREADS to one of those or profile at " +
              std::to_string(threads));
}

std::string profile_path(const std::string& dir, const std::string& app, int threads, int version) {
  return dir + "/" + app + "/t" + std::to_string(threads) + ".v" + std::to_string(version) + ".profile";
}

namespace {

struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

void write_all(int fd, const std::string& s, const std::string& path) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t w = write(fd, s.data() + done, s.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw Error(path + ": " + std::strerror(errno));
    done += static_cast<size_t>(w);
  }
}

}  // namespace

StoredProfile store_profile(const std::string& dir, const std::string& app, int threads,
                            const std::string& content) {
  require_valid_app(app);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error("profile store " + dir + " does not exist (create it, owned by the admin, mode 755)");
  std::string app_dir = dir + "/" + app;
  if (mkdir(app_dir.c_str(), 0755) != 0 && errno != EEXIST)
    throw Error("profile store " + dir + ": cannot create " + app + ": " + std::strerror(errno) +
                " (only the store's owner can add profiles; others use --output FILE)");
  Fd lock(open((app_dir + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (lock.fd < 0 || flock(lock.fd, LOCK_EX) != 0)
    throw Error(app_dir + "/.lock: " + std::strerror(errno) + " (is the store writable by you?)");
  int version = 0;
  for (const auto& name : entries(app_dir)) {
    int t = 0, v = 0;
    if (parse_entry_name(name, t, v) && t == threads) version = std::max(version, v);
  }
  StoredProfile out{app, threads, version + 1, profile_path(dir, app, threads, version + 1)};
  std::string tmp = app_dir + "/.tmp.XXXXXX";
  Fd file(mkstemp(&tmp[0]));
  if (file.fd < 0) throw Error(app_dir + ": " + std::strerror(errno));
  try {
    write_all(file.fd, content, tmp);
    if (fchmod(file.fd, 0644) != 0 || fsync(file.fd) != 0) throw Error(tmp + ": " + std::strerror(errno));
    if (rename(tmp.c_str(), out.path.c_str()) != 0) throw Error(out.path + ": " + std::strerror(errno));
  } catch (...) {
    unlink(tmp.c_str());
    throw;
  }
  Fd d(open(app_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (d.fd >= 0) fsync(d.fd);  // the rename itself survives a crash
  rebuild_store_index(dir);
  return out;
}

namespace {

long index_generation(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return 0;
  long generation = 0;
  char header[64];
  if (std::fscanf(f, "%63s %*d generation %ld", header, &generation) != 2) generation = 0;
  std::fclose(f);
  return generation;
}

}  // namespace

void rebuild_store_index(const std::string& dir) {
  Fd lock(open((dir + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (lock.fd < 0 || flock(lock.fd, LOCK_EX) != 0)
    throw Error(dir + "/.lock: " + std::strerror(errno) + " (is the store writable by you?)");
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) throw Error("profile store " + dir + ": " + std::strerror(errno));
  std::string text;
  for (const auto& app : entries(dir)) {
    if (!is_app_dir(dir, app)) continue;
    std::vector<StoredProfile> found;
    try {
      list_app(dir, app, st.st_uid, found);
    } catch (const Error&) {
      continue;  // untrusted entries are refused by readers anyway: leave them out
    }
    for (const auto& p : found)
      text += "p " + p.app + " " + std::to_string(p.threads) + " " + std::to_string(p.version) + "\n";
  }
  std::string index = dir + "/.index";
  text = "slurm-pin-store-index 1 generation " + std::to_string(index_generation(index) + 1) + "\n" + text;
  std::string tmp = dir + "/.index.XXXXXX";
  Fd file(mkstemp(&tmp[0]));
  if (file.fd < 0) throw Error(dir + ": " + std::strerror(errno));
  write_all(file.fd, text, tmp);
  if (fchmod(file.fd, 0644) != 0 || fsync(file.fd) != 0 || rename(tmp.c_str(), index.c_str()) != 0) {
    unlink(tmp.c_str());
    throw Error(index + ": " + std::strerror(errno));
  }
}

ProfileSpec parse_profile_spec(const std::string& text) {
  ProfileSpec s;
  if (text.empty()) throw Error("empty profile name (give NAME, NAME@VERSION or a file path)");
  if (text.find('/') != std::string::npos) {
    s.is_path = true;
    s.path = text;
    return s;
  }
  size_t at = text.find('@');
  s.app = text.substr(0, at);
  if (at != std::string::npos) {
    std::string v = text.substr(at + 1);
    if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) == 0)
      throw Error("profile version '" + v + "' in '" + text + "' is not a positive number (write NAME@3)");
    s.version = std::stoi(v);
  }
  if (!valid_app(s.app))
    throw Error("profile name '" + s.app + "' is not valid (letters, digits, . _ + - only; use ./FILE for a file)");
  return s;
}

}  // namespace slurmpin
