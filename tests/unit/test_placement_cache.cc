// SPDX-License-Identifier: GPL-2.0-or-later
// The node's placement cache (spank_plugin/placement_cache.h, the engine's
// sp_set_placement_cache): a step with exactly the inputs of an earlier one
// gets the same places without computing them; any other input, or an entry
// root did not write as it is, is computed again.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "placement_cache.h"
#include "api_text.hh"
#include "slurm_pin_frontend.h"
#include "test_support.hh"

namespace {

// A dense profile of `threads` threads with `regions` regions: pairs (i, i^1)
// share 1000 in the whole run, each region its own pairs; every other pair 1-9.
std::string dense_profile(int threads, int regions, int shift) {
  std::ostringstream o;
  o << "slurm-pin-profile 1\napplication app\nthreads " << threads << "\nline_size 64\n";
  for (int r = -1; r < regions; ++r) {
    if (r >= 0) o << "region loop_" << r << "\n";
    o << "matrix simple\n";
    int s = r < 0 ? shift : r + 1 + shift;
    for (int i = 0; i < threads; ++i)
      for (int j = 0; j < threads; ++j)
        o << (i == j ? 0 : ((i + s) % threads) / 2 == ((j + s) % threads) / 2 ? 1000 : 1 + (i * j) % 9)
          << (j + 1 < threads ? " " : "\n");
  }
  return o.str();
}

class PlacementCache : public slurmpin::test::RootDirTest {
 protected:
  PlacementCache() : RootDirTest("cache") {}
  void SetUp() override {
    RootDirTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    cache = dir + "/run/placements";
    ASSERT_TRUE(std::filesystem::create_directories(dir + "/store/app"));
    ASSERT_TRUE(std::filesystem::create_directories(dir + "/run"));
    write_profile(1, dense_profile(4, 3, 0));
  }
  void write_profile(int version, const std::string& text) {
    std::ofstream(dir + "/store/app/t4.v" + std::to_string(version) + ".profile") << text;
  }
  // A step as slurmstepd places it: 2 tasks of 4 threads on up to 16 cores, per region.
  sp_placement_t* step(const char* restrict_to = "0-15", const char* profile = "app", std::vector<int> ranks = {}) {
    sp_placement_t* p = sp_init();
    EXPECT_EQ(sp_set_topology(p, "pack:2 l3:2 core:4 pu:1"), 0);
    EXPECT_EQ(sp_set_restrict(p, restrict_to), 0);
    EXPECT_EQ(sp_set_strategy(p, "lpgp"), 0);
    EXPECT_EQ(sp_set_tasks(p, 2), 0);
    EXPECT_EQ(sp_set_threads(p, 4), 0);
    EXPECT_EQ(sp_set_phases(p, 1, 0), 0);
    EXPECT_EQ(sp_set_profile(p, profile, (dir + "/store").c_str(), "simple", nullptr), 0);
    EXPECT_EQ(sp_set_placement_cache(p, cache.c_str()), 0);
    if (!ranks.empty()) {
      EXPECT_EQ(sp_set_task_ranks(p, ranks.data(), static_cast<int>(ranks.size()), 4), 0) << sp_error(p);
    }
    EXPECT_EQ(sp_compute(p), 0) << sp_error(p);
    return p;
  }
  // What the step's tasks get: every thread's CPUs, whole run and regions.
  static std::string places(const sp_placement_t* p) {
    std::string out;
    char buf[256];
    for (int t = 0; t < sp_get_ntasks(p); ++t) {
      out += "task " + std::to_string(t) + ":";
      for (int i = 0; i < sp_get_nthreads(p); ++i) out += " " + cpu_list(sp_get_thread_cpuset(p, t, i));
      for (int r = 0; r < sp_get_nregions(p); ++r) {
        out += " | " + std::string(sp_get_region_name(p, r)) + (sp_get_region_merged(p, r) ? "=" : ":");
        for (int i = 0; i < sp_get_nthreads(p); ++i)
          sp_get_region_thread_cpus(p, r, t, i, buf, sizeof buf), out += " " + std::string(buf);
      }
      out += "\n";
    }
    return out;
  }
  // The plugin's privileged hook: keeps the step's entry.
  void keep(sp_placement_t* p, int entries = 64) {
    char err[512] = "";
    const char *name = "", *data = "";
    size_t size = 0;
    ASSERT_GE(sp_get_cache_entry(p, &name, &data, &size), 0);
    EXPECT_EQ(placement_cache_store(cache.c_str(), name, data, size, entries, err, sizeof err), 0) << err;
  }
  // The cache's entries, by name; none when it was never made.
  std::vector<std::string> entries() {
    std::vector<std::string> out;
    std::error_code none;
    for (const auto& e : std::filesystem::directory_iterator(cache, none)) out.push_back(e.path().filename());
    return out;
  }
  std::string cache;
};

TEST_F(PlacementCache, TheNextStepWithTheSameInputsReadsItsPlacesBack) {
  sp_placement_t* first = step();
  EXPECT_EQ(sp_get_cached(first), 0);
  keep(first);
  ASSERT_EQ(entries().size(), 1u);
  sp_placement_t* second = step();
  EXPECT_EQ(sp_get_cached(second), 1);
  EXPECT_EQ(places(second), places(first));
  EXPECT_EQ(sp_get_nregions(second), 3);
  // Nothing new to keep; the task's binding and thread data are the same.
  const char *name, *data;
  size_t size;
  EXPECT_EQ(sp_get_cache_entry(second, &name, &data, &size), 0);
  // What the thread library reads (its places, per region): the same.
  auto task_data = [](sp_placement_t* p) {
    EXPECT_EQ(sp_set_thread_library(p, "/usr/lib/slurm-pin/libslurm_pin_threads.so"), 0);
    EXPECT_EQ(sp_set_thread_mode(p, "ompt"), 0);
    return api_text([&](char* b, size_t l) { return sp_get_task_data(p, 1, b, l); });
  };
  EXPECT_EQ(task_data(second), task_data(first));
  EXPECT_NE(task_data(first).find("region"), std::string::npos) << task_data(first);
  sp_finalize(first);
  sp_finalize(second);
}

TEST_F(PlacementCache, AnyOtherInputIsComputed) {
  sp_placement_t* first = step();
  keep(first);
  sp_placement_t* fewer = step("0-7,12-15");  // other allowed CPUs
  EXPECT_EQ(sp_get_cached(fewer), 0);
  write_profile(2, dense_profile(4, 3, 1));  // a new version of the profile: the newest is used
  sp_placement_t* newer = step();
  EXPECT_EQ(sp_get_cached(newer), 0);
  EXPECT_NE(places(newer), places(first));
  // Not cached at all: a profile given by path (the user's file).
  sp_placement_t* by_path = step("0-15", (dir + "/store/app/t4.v1.profile").c_str());
  const char *name, *data;
  size_t size;
  EXPECT_EQ(sp_get_cached(by_path), 0);
  EXPECT_EQ(sp_get_cache_entry(by_path, &name, &data, &size), 0);
  for (auto* p : {first, fewer, newer, by_path}) sp_finalize(p);
}

TEST_F(PlacementCache, TheNodesRanksAreInTheKey) {
  // A profile of 4 ranks: the step's two tasks are some two of them.
  std::string text = dense_profile(4, 3, 0);
  text.insert(text.find("line_size"), "ranks 4\nrank_matrix bytes\n0 9 1 1\n9 0 1 1\n1 1 0 9\n1 1 9 0\n");
  write_profile(1, text);
  sp_placement_t* first = step("0-15", "app", {0, 1});
  keep(first);
  sp_placement_t* same = step("0-15", "app", {0, 1});
  EXPECT_EQ(sp_get_cached(same), 1);
  sp_placement_t* other = step("0-15", "app", {0, 2});
  EXPECT_EQ(sp_get_cached(other), 0);
  for (auto* p : {first, same, other}) sp_finalize(p);
}

TEST_F(PlacementCache, AnEntryRootDidNotWriteAsItIsIsNotUsed) {
  const char* kPart = "0-7,12-15";
  sp_placement_t* first = step(kPart);
  keep(first);
  std::string entry = cache + "/" + entries().at(0);
  std::string fresh = places(first);
  // Writable by others, or owned by someone else: not trusted.
  ASSERT_EQ(chmod(entry.c_str(), 0666), 0);
  sp_placement_t* p = step(kPart);
  EXPECT_EQ(sp_get_cached(p), 0);
  EXPECT_EQ(places(p), fresh);
  ASSERT_EQ(chmod(entry.c_str(), 0644), 0);
  ASSERT_EQ(chown(entry.c_str(), 65534, 65534), 0);
  sp_finalize(p);
  p = step(kPart);
  EXPECT_EQ(sp_get_cached(p), 0);
  ASSERT_EQ(chown(entry.c_str(), 0, 0), 0);
  sp_finalize(p);
  // Damaged: a thread moved to a CPU of the machine outside the allowed
  // ones, or the entry cut short.
  std::ifstream in(entry);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t th = text.find("\nth ");
  ASSERT_NE(th, std::string::npos);
  size_t end = text.find('\n', th + 1);
  for (const std::string& bad : {text.substr(0, end) + ",9" + text.substr(end), text.substr(0, text.size() / 2)}) {
    std::ofstream(entry) << bad;
    p = step(kPart);
    EXPECT_EQ(sp_get_cached(p), 0);
    EXPECT_EQ(places(p), fresh);
    sp_finalize(p);
  }
  std::ofstream(entry) << text;  // as written: used again
  p = step(kPart);
  EXPECT_EQ(sp_get_cached(p), 1);
  sp_finalize(p);
  sp_finalize(first);
}

TEST_F(PlacementCache, KeepsAtMostTheEntriesTheSiteAllows) {
  const char* cpus[] = {"0-15", "0-7,12-15", "4-15"};
  for (const char* c : cpus) {
    sp_placement_t* p = step(c);
    keep(p, 2);
    sp_finalize(p);
  }
  EXPECT_EQ(entries().size(), 2u);
  // The newest two are kept: the first step's inputs are computed again.
  sp_placement_t* p = step(cpus[0]);
  EXPECT_EQ(sp_get_cached(p), 0);
  sp_finalize(p);
  p = step(cpus[2]);
  EXPECT_EQ(sp_get_cached(p), 1);
  // Nothing kept with 0 (placement_cache=0).
  sp_finalize(p);
  std::filesystem::remove_all(cache);
  p = step(cpus[1]);
  keep(p, 0);
  EXPECT_EQ(entries().size(), 0u);
  sp_finalize(p);
}

}  // namespace
