// SPDX-License-Identifier: GPL-2.0-or-later
// A profile's rank section (slurm-pin profile --mpi, docs/formats.md): read
// and written back, refused when malformed with the line named, and used by
// the engine for the tasks that run on a node (their global ranks,
// sp_set_task_ranks): the same placement as the submatrix given directly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "api_text.hh"
#include "error.hh"
#include "sharing/profile.hh"
#include "slurm_pin_frontend.h"

namespace {

using slurmpin::Profile;
using Matrix = std::vector<std::vector<double>>;

// 16 ranks whose heavy pairs are (r, r + 8): block order splits every one.
Matrix halves() {
  Matrix t(16, std::vector<double>(16, 1));
  for (int i = 0; i < 16; ++i) t[i][i] = 0;
  for (int i = 0; i < 8; ++i) t[i][i + 8] = t[i + 8][i] = 1000;
  return t;
}

std::string rank_profile(const Matrix& t, bool with_threads) {
  Profile p;
  p.application = "halves";
  p.threads = 1;
  p.ranks = static_cast<int>(t.size());
  p.rank_collective_share = 0.25;
  p.rank_matrices["bytes"] = t;
  p.rank_matrices["messages"] = t;
  if (with_threads) p.matrices["simple"] = {{0}};
  return slurmpin::format_profile(p);
}

class RankProfile : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/slurm-pin-ranks.XXXXXX";
    int fd = mkstemp(name);
    ASSERT_GE(fd, 0);
    close(fd);
    path = name;
  }
  void TearDown() override { std::remove(path.c_str()); }
  void write(const std::string& text) { std::ofstream(path) << text; }

  // Each local task's (first) CPU, 8 tasks on pack:2 l3:2 core:2, with `ranks` of a
  // job of `job` tasks (none: unset), by the profile or by `matrix`.
  std::vector<int> placed(const std::vector<int>& ranks, int job, const Matrix* matrix = nullptr,
                          const char* strategy = "compact", const char* topology = "pack:2 l3:2 core:2 pu:1") {
    sp_placement_t* p = sp_init();
    EXPECT_EQ(sp_set_topology(p, topology), 0);
    EXPECT_EQ(sp_set_strategy(p, strategy), 0);
    EXPECT_EQ(sp_set_tasks(p, 8), 0);
    if (matrix) {
      std::vector<double> rows;
      for (const auto& r : *matrix) rows.insert(rows.end(), r.begin(), r.end());
      EXPECT_EQ(sp_set_task_matrix(p, rows.data(), static_cast<int>(matrix->size())), 0) << sp_error(p);
    } else {
      EXPECT_EQ(sp_set_profile(p, path.c_str(), nullptr, "simple", nullptr), 0) << sp_error(p);
    }
    if (!ranks.empty()) {
      EXPECT_EQ(sp_set_task_ranks(p, ranks.data(), static_cast<int>(ranks.size()), job), 0) << sp_error(p);
    }
    EXPECT_EQ(sp_compute(p), 0) << sp_error(p);
    std::vector<int> cpu;
    for (int t = 0; t < 8; ++t)
      cpu.push_back(std::stoi(cpu_list(sp_get_task_cpuset(p, t))));
    notes.clear();
    for (int i = 0; i < sp_get_nnotes(p); ++i)
      notes += api_text([&](char* b, size_t l) { return sp_get_note(p, i, b, l); }) + "\n";
    sp_finalize(p);
    return cpu;
  }

  std::string path, notes;
};

TEST_F(RankProfile, FormatsAndReadsBack) {
  std::string text = rank_profile(halves(), false);
  Profile p = slurmpin::parse_profile(text, "p");
  EXPECT_EQ(p.ranks, 16);
  EXPECT_DOUBLE_EQ(p.rank_collective_share, 0.25);
  EXPECT_FALSE(p.has_thread_matrix());
  EXPECT_EQ(p.rank_matrices.at("bytes"), halves());
  EXPECT_DOUBLE_EQ(p.rank_traffic("p")(3, 11), 2000);  // both directions
  EXPECT_EQ(slurmpin::format_profile(p), text);
}

TEST_F(RankProfile, ARankSectionLargerThanTheJobIsPassedOver) {
  slurmpin::ProfileNeeds needs;
  needs.max_ranks = 8;  // a job of 8 tasks reading a profile of 16 ranks
  Profile p = slurmpin::parse_profile(rank_profile(halves(), true), "p", needs);
  EXPECT_EQ(p.ranks, 16);
  EXPECT_TRUE(p.rank_matrices.empty());
  EXPECT_THROW(p.rank_traffic("p"), slurmpin::Error);
  needs.max_ranks = 16;
  needs.rank_model = "bytes";
  p = slurmpin::parse_profile(rank_profile(halves(), true), "p", needs);
  EXPECT_EQ(p.rank_matrices.size(), 1u);  // the messages passed over
  EXPECT_EQ(p.matrices.size(), 1u);       // and what follows them read
}

TEST_F(RankProfile, MalformedRankSectionsNameTheirLine) {
  const std::string head = "slurm-pin-profile 1\nthreads 1\n";
  struct Case {
    std::string text, says;
  } cases[] = {
      {head + "rank_matrix bytes\n0\n", "p:3: 'ranks N' must come before"},
      {head + "ranks 2\n", "without a 'rank_matrix bytes'"},
      {head + "ranks 2\nrank_matrix bytes\n0 1\n", "p:5: matrix has 1 rows, expected 2 (one row per rank)"},
      {head + "ranks 2\nrank_matrix flops\n0 1\n1 0\n", "expected 'rank_matrix bytes' or 'rank_matrix messages'"},
      {head + "ranks 2\nrank_matrix bytes\n0 1\n1 0\nrank_matrix bytes\n0 1\n1 0\n", "given twice"},
      {head + "ranks 0\n", "ranks must be an integer"},
      {head + "ranks 2\nrank_collective_share 2\nrank_matrix bytes\n0 1\n1 0\n", "from 0 to 1"},
      {head + "matrix simple\n0\nregion r\nranks 2\n", "inside region"},
      {head + "matrix simple\n0\nregion r\nrank_matrix bytes\n", "before the first region"},
      {"slurm-pin-profile 1\nthreads 1\n", "or a rank section"},
  };
  for (const Case& c : cases) {
    try {
      slurmpin::parse_profile(c.text, "p");
      ADD_FAILURE() << "accepted:\n" << c.text;
    } catch (const slurmpin::Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what() << "\nwanted: " << c.says;
    }
  }
}

TEST_F(RankProfile, TheNodesTasksGetTheirRanksRowsAndColumns) {
  write(rank_profile(halves(), true));
  // This node runs global ranks 0-3 and 8-11 of 16, in that local order:
  // pairs (0, 4), (1, 5), (2, 6), (3, 7) locally.
  std::vector<int> ranks = {0, 1, 2, 3, 8, 9, 10, 11};
  Matrix sub(8, std::vector<double>(8));
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) sub[a][b] = halves()[ranks[a]][ranks[b]];
  std::vector<int> got = placed(ranks, 16);
  EXPECT_EQ(got, placed({}, 0, &sub));
  for (int a = 0; a < 4; ++a) EXPECT_EQ(got[a] / 2, got[a + 4] / 2) << "local tasks " << a << " and " << a + 4;
  // Block order splits every pair.
  EXPECT_NE(got, std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(RankProfile, AJobOfAnotherSizeRunsInBlockOrderWithOneNote) {
  write(rank_profile(halves(), true));
  std::vector<int> got = placed({0, 1, 2, 3, 4, 5, 6, 7}, 8);
  EXPECT_EQ(got, std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_NE(notes.find("is of 16 ranks but the job has 8 tasks"), std::string::npos) << notes;
  // Unset ranks: the node's 8 tasks are the job, also not 16.
  placed({}, 0);
  EXPECT_NE(notes.find("but the job has 8 tasks"), std::string::npos) << notes;
}

TEST_F(RankProfile, RankTrafficAloneOrdersTasksAndPlacesThreadsCompact) {
  write(rank_profile(halves(), false));
  std::vector<int> got = placed({4, 5, 6, 7, 12, 13, 14, 15}, 16, nullptr, "lpgp");
  for (int a = 0; a < 4; ++a) EXPECT_EQ(got[a] / 2, got[a + 4] / 2) << "local tasks " << a << " and " << a + 4;
  EXPECT_EQ(notes, "");  // one thread per task: nothing to share, nothing to say
  // Two threads per task (two cores each): placed compact, and said.
  got = placed({4, 5, 6, 7, 12, 13, 14, 15}, 16, nullptr, "lpgp", "pack:2 l3:2 core:4 pu:1");
  for (int a = 0; a < 4; ++a) EXPECT_EQ(got[a] / 4, got[a + 4] / 4) << "local tasks " << a << " and " << a + 4;
  EXPECT_NE(notes.find("holds rank traffic only: each task's threads placed compact"), std::string::npos) << notes;
}

TEST_F(RankProfile, TaskRanksOutsideTheJobAreRefused) {
  sp_placement_t* p = sp_init();
  int ranks[2] = {0, 5};
  EXPECT_EQ(sp_set_task_ranks(p, ranks, 2, 4), -1);
  EXPECT_NE(std::string(sp_error(p)).find("rank 5 outside the job's 4 tasks"), std::string::npos) << sp_error(p);
  EXPECT_EQ(sp_set_task_ranks(p, ranks, 2, 1), -1);
  EXPECT_EQ(sp_set_task_ranks(p, nullptr, 2, 8), -1);
  EXPECT_EQ(sp_set_task_ranks(p, ranks, 2, 8), 0);
  sp_finalize(p);
}

}  // namespace
