// SPDX-License-Identifier: GPL-2.0-or-later
// The exact pairing against brute force: every (near-)perfect matching of up
// to 12 items enumerated.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "brute_pairing.hh"
#include "sharing/matching.hh"
#include "test_support.hh"

using namespace slurmpin;
using slurmpin::test::brute_force_pairing;
using slurmpin::test::DenseMatrix;
using slurmpin::test::random_affinity;

namespace {

void expect_valid(const Pairing& p, int n) {
  std::vector<int> seen(n, 0);
  for (const auto& e : p.pairs) {
    EXPECT_LT(e.first, e.second);
    seen[e.first]++, seen[e.second]++;
  }
  if (p.single >= 0) seen[p.single]++;
  for (int i = 0; i < n; ++i) EXPECT_EQ(seen[i], 1) << "item " << i;
  EXPECT_EQ(p.pairs.size(), static_cast<size_t>(n / 2));
  EXPECT_EQ(p.single >= 0, n % 2 == 1);
}

}  // namespace

TEST(Matching, EqualsBruteForceOnRandomMatrices) {
  std::mt19937_64 rng(42);
  for (int n = 2; n <= 12; ++n)
    for (int trial = 0; trial < 12; ++trial) {
      double zeros = (trial % 3) * 0.4;  // dense, 40% and 80% zeros
      SharingMatrix w = random_affinity(n, rng, trial % 2 ? 1e9 : 100, zeros, trial % 4 != 3);
      Pairing p = max_weight_pairing(w);
      expect_valid(p, n);
      double expected = brute_force_pairing(w);
      EXPECT_NEAR(pairing_weight(w, p), expected, 1e-9 * (1 + expected)) << "n=" << n << " trial=" << trial;
    }
}

TEST(Matching, OddCountLeavesTheRightThreadAlone) {
  SharingMatrix w = SharingMatrix::from_edges(5, {{0, 1, 10}, {2, 3, 10}, {4, 0, 1}});
  Pairing p = max_weight_pairing(w);
  EXPECT_EQ(p.single, 4);
  EXPECT_EQ(p.pairs, (std::vector<std::pair<int, int>>{{0, 1}, {2, 3}}));
}

TEST(Matching, ZeroMatrixPairsInIndexOrder) {
  Pairing p = max_weight_pairing(SharingMatrix(6));
  EXPECT_EQ(p.pairs, (std::vector<std::pair<int, int>>{{0, 1}, {2, 3}, {4, 5}}));
}

TEST(Matching, SeedFigure54) {
  // Seed 001 figure 5.4: the alpha matrix of four threads pairs (T1,T2), (T3,T4).
  double a[4][4] = {{0, 923177138, 909675518, 916697725},
                    {923177138, 0, 926145460, 914237540},
                    {909675518, 926145460, 0, 940029712},
                    {916697725, 914237540, 940029712, 0}};
  DenseMatrix w(4);
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) w.set(i, j, a[i][j]);
  EXPECT_EQ(max_weight_pairing(w.affinity()).pairs, (std::vector<std::pair<int, int>>{{0, 1}, {2, 3}}));
}

TEST(Matching, CertificateAddsTheEdgesTheOptimumNeeds) {
  // With one candidate edge per item the first run almost never sees the
  // optimum; the dual check must find the missing edges and stay exact.
  std::mt19937_64 rng(7);
  int repaired = 0;
  for (int n = 4; n <= 12; ++n)
    for (int trial = 0; trial < 10; ++trial) {
      SharingMatrix w = random_affinity(n, rng, 1000, 0.2);
      Pairing p = max_weight_pairing(w, 1);
      expect_valid(p, n);
      repaired += p.rounds > 1;
      EXPECT_DOUBLE_EQ(pairing_weight(w, p), brute_force_pairing(w)) << "n=" << n;
    }
  EXPECT_GT(repaired, 10);
}

TEST(Matching, BlocksOverNoiseStayExactWhenOneBlockRunsAgain) {
  // Blocks of four sharing much, noise between every pair: the candidate
  // graph falls into blocks, a failing pair sends its blocks (not the
  // whole) to another run, and the result is still the optimum.
  std::mt19937_64 rng(5);
  int again = 0;
  for (int trial = 0; trial < 60; ++trial) {
    int n = 8 + trial % 5;
    DenseMatrix d(n);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) d.set(i, j, static_cast<double>(rng() % 100) + (i / 4 == j / 4 ? 1000 + rng() % 200 : 0));
    SharingMatrix w = d.affinity();
    Pairing p = max_weight_pairing(w, 1 + trial % 2);
    expect_valid(p, n);
    again += p.rounds > 1;
    EXPECT_DOUBLE_EQ(pairing_weight(w, p), brute_force_pairing(w)) << "trial " << trial;
  }
  EXPECT_GT(again, 5);
}

TEST(Matching, FewCandidatesOnADenseMatrixStayExact) {
  // One candidate per item on a dense random matrix: nearly every pair
  // fails the first check; each later run takes the heaviest of them only,
  // and the result weighs what the default's does.
  std::mt19937_64 rng(11);
  SharingMatrix w = random_affinity(200, rng, 1e6, 0);
  Pairing few = max_weight_pairing(w, 1), usual = max_weight_pairing(w);
  expect_valid(few, 200);
  EXPECT_GT(few.rounds, 1);
  EXPECT_DOUBLE_EQ(pairing_weight(w, few), pairing_weight(w, usual));
}

TEST(Matching, LargeMatricesAreLocallyOptimal) {
  // No two pairs can be re-paired for more weight (a necessary condition of
  // optimality, checkable at sizes brute force cannot reach).
  std::mt19937_64 rng(9);
  for (int n : {64, 129}) {
    SharingMatrix w = random_affinity(n, rng, 1e6, 0.5);
    Pairing p = max_weight_pairing(w);
    expect_valid(p, n);
    for (size_t a = 0; a < p.pairs.size(); ++a)
      for (size_t b = a + 1; b < p.pairs.size(); ++b) {
        auto [u1, v1] = p.pairs[a];
        auto [u2, v2] = p.pairs[b];
        double now = w(u1, v1) + w(u2, v2);
        EXPECT_GE(now, w(u1, u2) + w(v1, v2));
        EXPECT_GE(now, w(u1, v2) + w(v1, u2));
      }
  }
}
