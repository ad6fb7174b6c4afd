// SPDX-License-Identifier: GPL-2.0-or-later
// Helpers shared by the unit tests: fixtures, random matrices, topologies.
#pragma once
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sharing/sharing_matrix.hh"
#include "engine.hh"
#include "error.hh"
#include "strategies/score.hh"
#include "topology/topology.hh"

namespace slurmpin::test {

inline std::string fixture(const std::string& name) {
  return std::string(SLURM_PIN_FIXTURES) + "/" + name;
}

inline std::string topo(const std::string& name) { return fixture("topologies/" + name); }

// A new directory /tmp/NAME.XXXXXX (0755), removed with what it holds.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    std::string t = "/tmp/" + name + ".XXXXXX";
    if (mkdtemp(t.data())) path = t, chmod(t.c_str(), 0755);
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // Writes `text` to `name` below it (directories made as needed); its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::filesystem::create_directories((path / name).parent_path());
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

// A new directory only root may write (/tmp/slurm-pin-NAME.XXXXXX, 0755),
// removed with it: where the tests of root-side files keep them. Tests that
// need one skip unless they run as root (ownership is what they check).
class RootDir {
 public:
  explicit RootDir(const std::string& name) {
    // Under a directory only root can change (/tmp is sticky, world-writable:
    // refused by common/trusted_dir.h).
    std::string t = "/run/slurm-pin-" + name + ".XXXXXX";
    if (mkdtemp(t.data()) && chmod(t.c_str(), 0755) == 0) path_ = t;
  }
  ~RootDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  RootDir(const RootDir&) = delete;
  RootDir& operator=(const RootDir&) = delete;
  // "" when it could not be made.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A fixture whose tests get a RootDir of their own in `dir`; skipped unless
// run as root. Fixtures deriving from it call its SetUp first and return
// when IsSkipped().
class RootDirTest : public ::testing::Test {
 protected:
  explicit RootDirTest(const char* name) : name_(name) {}
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "ownership checks need root";
    root_ = std::make_unique<RootDir>(name_);
    dir = root_->path();
    ASSERT_FALSE(dir.empty());
  }
  std::string dir;

 private:
  const char* name_;
  std::unique_ptr<RootDir> root_;
};

// The message of the Error `f` throws; "" when it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A symmetric matrix built entry by entry (set overwrites), then frozen.
class DenseMatrix {
 public:
  explicit DenseMatrix(int n) : n_(n), v_(static_cast<size_t>(n) * n, 0.0) {}
  void set(int i, int j, double x) { v_[static_cast<size_t>(i) * n_ + j] = x; }
  SharingMatrix affinity() const { return SharingMatrix::from_dense(v_.data(), n_); }

 private:
  int n_;
  std::vector<double> v_;
};

// Symmetric matrix with entries drawn from [0, max); a share `zeros` of them 0.
inline SharingMatrix random_affinity(int n, std::mt19937_64& rng, double max = 1000, double zeros = 0,
                                bool integral = true) {
  std::uniform_real_distribution<double> u(0, 1);
  DenseMatrix a(n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      double v = u(rng) < zeros ? 0 : u(rng) * max;
      a.set(i, j, integral ? std::floor(v) : v);
    }
  return a.affinity();
}

// What the domains of `kind` keep of w with each thread at slot[thread]; a
// failure (and -1) when t has no such level.
inline double kept_in(const Tree& t, const std::vector<int>& slot, const SharingMatrix& w, const std::string& kind) {
  for (const auto& l : score_levels(t, {slot}, &w))
    if (l.kind == kind) return l.kept;
  ADD_FAILURE() << "no level " << kind;
  return -1;
}

inline Tree tree_of(const std::string& source, const std::vector<unsigned>& allowed = {},
                    Granularity g = Granularity::kCore) {
  TopologySpec s;
  s.source = source;
  s.allowed = CpuSet::of(allowed);
  s.granularity = g;
  return load_topology(s)->tree;
}

// First PU of every thread of task 0.
inline std::vector<int> pus_of(const Result& r, size_t task = 0) {
  std::vector<int> out;
  for (const auto& t : r.tasks[task].threads) out.push_back(t.pu);
  return out;
}

inline Request request(const std::string& source, Strategy s, int threads = 0) {
  Request r;
  r.topology.source = source;
  r.strategy = s;
  r.threads = threads;
  return r;
}

}  // namespace slurmpin::test
