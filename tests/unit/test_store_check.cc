// SPDX-License-Identifier: GPL-2.0-or-later
// srun's check of a store profile name, without the engine
// (placements/options/profile_names.c): only the application's directory
// is read, trusted as the engine trusts it, with the engine's messages.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sharing/store.hh"
#include "error.hh"
#include "slurm_pin_options.h"
#include "test_support.hh"

namespace {

namespace fs = std::filesystem;

struct Store : slurmpin::test::TempDir {
  Store() : TempDir("store_check") {}
  void entry(const std::string& app, const std::string& name, mode_t mode = 0644) const {
    fs::create_directories(path / app);
    chmod((path / app).c_str(), 0755);
    std::ofstream(path / app / name) << "slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 1\n1 0\n";
    chmod((path / app / name).c_str(), mode);
  }
  std::string check(const std::string& spec, int* rc = nullptr) const {
    char err[4096] = "";
    int r = sp_check_store_profile(spec.c_str(), path.c_str(), err, sizeof err);
    if (rc) *rc = r;
    return r == 0 ? "ok" : err;
  }
};

TEST(StoreCheck, FindsAnApplicationAndItsVersions) {
  Store s;
  s.entry("app", "t2.v1.profile");
  s.entry("app", "t4.v3.profile");
  s.entry("app", "t2.v2.profile.lock");  // a writer's lock: no entry
  EXPECT_EQ(s.check("app"), "ok");
  EXPECT_EQ(s.check("app@1"), "ok");
  EXPECT_EQ(s.check("app@3"), "ok");
  EXPECT_EQ(s.check("app@2"), "no profile 'app@2' in the store " + s.path.string() +
                                  " (list them with `slurm-pin profiles list`; a file is named by a path with a "
                                  "'/': ./app@2)");
  EXPECT_NE(s.check("other").find("no profile 'other' in the store"), std::string::npos);
  EXPECT_NE(s.check("bad name").find("profile name 'bad name' is not valid"), std::string::npos);
  EXPECT_NE(s.check("app@0").find("profile version '0' in 'app@0' is not a positive number"), std::string::npos);
}

TEST(StoreCheck, AnUntrustedEntryIsRefusedAsTheEngineRefusesIt) {
  Store s;
  s.entry("loose", "t2.v1.profile", 0666);
  std::string srun = s.check("loose");
  EXPECT_NE(srun.find("is writable by group or others: refusing it (chmod go-w)"), std::string::npos) << srun;
  std::string engine;
  try {
    slurmpin::find_profile(s.path.string(), "loose", 2, 0);
  } catch (const slurmpin::Error& e) {
    engine = e.what();
  }
  EXPECT_EQ(srun, engine);
}

TEST(StoreCheck, AMissingThreadCountSaysWhichCountsFitTheTasksCpus) {
  Store s;
  s.entry("app", "t2.v1.profile");
  s.entry("app", "t8.v1.profile");
  auto said = [&](int threads, int cpus) {
    try {
      slurmpin::find_profile(s.path.string(), "app", threads, 0, cpus);
    } catch (const slurmpin::Error& e) {
      return std::string(e.what());
    }
    return std::string("found");
  };
  // 4 CPUs per task: 2 threads fit, 8 would crowd them, and that is said.
  EXPECT_EQ(said(4, 4), "profile 'app' has no 4-thread profile (it has 2, 8): profile at 4 threads, or set "
                        "OMP_NUM_THREADS to 2 (a profile of 8 threads would run more threads than each task's 4 "
                        "CPUs, which then take turns)");
  // The CPUs not known: every count is a choice.
  EXPECT_EQ(said(4, 0), "profile 'app' has no 4-thread profile (it has 2, 8): profile at 4 threads, or set "
                        "OMP_NUM_THREADS to one of 2, 8");
}

TEST(StoreCheck, OnlyTheApplicationsDirectoryIsRead) {
  // Another application's mistake is not this one's: only its own
  // directory is read, whatever the store holds.
  Store s;
  s.entry("app", "t2.v1.profile");
  s.entry("loose", "t2.v1.profile", 0666);
  EXPECT_EQ(s.check("app"), "ok");
}

TEST(StoreCheck, NoLinkIsFollowedAndAMissingStoreIsNamed) {
  Store s;
  s.entry("real", "t2.v1.profile");
  fs::create_directory_symlink(s.path / "real", s.path / "alias");
  EXPECT_NE(s.check("alias").find("no profile 'alias'"), std::string::npos);
  char err[512];
  EXPECT_EQ(sp_check_store_profile("app", "/nonexistent/store", err, sizeof err), -1);
  EXPECT_STREQ(err, "profile store /nonexistent/store does not exist (create it, or configure another store)");
  EXPECT_EQ(sp_check_store_profile("app", "", err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("no store is configured"), std::string::npos);
}

TEST(StoreCheck, EntryNamesAreCanonical) {
  int t = 0, v = 0;
  EXPECT_EQ(sp_store_entry_of("t8.v3.profile", &t, &v), 0);
  EXPECT_EQ(t, 8);
  EXPECT_EQ(v, 3);
  for (const char* bad : {"t08.v3.profile", "t8.v03.profile", "t0.v1.profile", "t1.v0.profile", "t8.v3.profile.lock",
                          "t8.v3.profil", "t+8.v3.profile", "t 8.v3.profile", "t8.v3.profilex", "x8.v3.profile"})
    EXPECT_EQ(sp_store_entry_of(bad, &t, &v), -1) << bad;
}

}  // namespace
