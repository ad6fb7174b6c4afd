# SPDX-License-Identifier: GPL-2.0-or-later
"""The Speedup-Test statistics against values computed independently of
the functions under test: t statistics from their textbook formulas, the
Wilcoxon-Mann-Whitney p-value by enumerating every split of the pooled
sample, and the protocol's decisions at its boundaries."""
import itertools
import math
import os
import statistics
import sys
import unittest

from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "evaluate"))
import speedup_test as st  # noqa: E402

BASE = [10.2, 10.5, 9.9, 10.8, 10.1, 10.4, 10.0, 10.6]
FAST = [9.1, 9.4, 9.0, 9.6, 9.2, 9.5, 8.9, 9.3]


def exact_mwu_greater(x, y):
    """P(U >= u_observed) under H0, by enumerating every way to split the
    pooled sample (no ties in the samples used here)."""
    pooled = x + y
    def u(a, b):
        return sum(1 for i in a for j in b if i > j)
    observed = u(x, y)
    hits = total = 0
    for idx in itertools.combinations(range(len(pooled)), len(x)):
        a = [pooled[i] for i in idx]
        b = [pooled[i] for i in range(len(pooled)) if i not in idx]
        total += 1
        hits += u(a, b) >= observed
    return hits / total


class Statistics(unittest.TestCase):
    def test_summary_and_relative_variability(self):
        s = st.summarize([4.0, 5.0, 8.0])
        self.assertEqual((s.runs, s.median, s.minimum, s.maximum), (3, 5.0, 4.0, 8.0))
        self.assertAlmostEqual(s.mean, 17 / 3)
        self.assertAlmostEqual(s.rv, 0.5)  # (8 - 4) / 8

    def test_student_t_matches_the_pooled_variance_formula(self):
        x, y = BASE, FAST
        d = st.mean_decision(x, y)
        self.assertEqual(d.test, "Student t (normal, equal variances)")
        n, m = len(x), len(y)
        sp2 = ((n - 1) * statistics.variance(x) + (m - 1) * statistics.variance(y)) / (n + m - 2)
        t = (statistics.fmean(x) - statistics.fmean(y)) / math.sqrt(sp2 * (1 / n + 1 / m))
        self.assertAlmostEqual(d.p_value, stats.t.sf(t, n + m - 2), places=12)
        self.assertEqual(d.verdict, "speedup")
        self.assertAlmostEqual(d.speedup, statistics.fmean(x) / statistics.fmean(y))

    def test_welch_t_matches_the_welch_satterthwaite_formula(self):
        x = BASE
        y = [5.0, 9.5, 7.0, 8.8, 6.1, 9.9, 5.5, 8.0]  # far more spread: F test refuses equal variances
        d = st.mean_decision(x, y)
        self.assertEqual(d.test, "Welch t (normal)")
        vx, vy, n, m = statistics.variance(x), statistics.variance(y), len(x), len(y)
        se2 = vx / n + vy / m
        t = (statistics.fmean(x) - statistics.fmean(y)) / math.sqrt(se2)
        df = se2 ** 2 / ((vx / n) ** 2 / (n - 1) + (vy / m) ** 2 / (m - 1))
        self.assertAlmostEqual(d.p_value, stats.t.sf(t, df), places=12)

    def test_mann_whitney_matches_exhaustive_enumeration(self):
        x, y = [19.0, 22.0, 16.0, 29.0, 24.0], [20.0, 11.0, 17.0, 12.0]
        d = st.median_decision(x, y)
        self.assertEqual(d.test, "Wilcoxon-Mann-Whitney")
        self.assertAlmostEqual(d.p_value, exact_mwu_greater(x, y), places=12)
        self.assertEqual(d.verdict, "not significant")  # p = 0.0556 (U = 17 of 20)
        self.assertAlmostEqual(d.speedup, 22.0 / 14.5)
        self.assertEqual(st.median_decision(BASE, FAST).verdict, "speedup")

    def test_slowdown_is_the_same_test_the_other_way(self):
        self.assertEqual(st.mean_decision(FAST, BASE).verdict, "slowdown")
        self.assertEqual(st.median_decision(FAST, BASE).verdict, "slowdown")

    def test_equal_samples_are_not_significant(self):
        for decide in (st.mean_decision, st.median_decision):
            d = decide(BASE, list(BASE))
            self.assertEqual(d.verdict, "not significant")
            self.assertEqual(d.speedup, 1.0)
        d = st.mean_decision([3.0] * 5, [3.0] * 5)
        self.assertEqual((d.verdict, d.p_value != d.p_value), ("not significant", True))

    def test_one_sample_constant(self):
        # A constant baseline is a degenerate normal: Welch's test still decides.
        d = st.mean_decision([12.0] * 6, FAST[:6])
        self.assertEqual((d.test, d.verdict), ("Welch t (normal)", "speedup"))
        self.assertEqual(st.mean_decision([2.0] * 4, [1.0] * 4).verdict, "speedup")  # both constant, different

    def test_too_few_runs(self):
        for decide in (st.mean_decision, st.median_decision):
            self.assertEqual(decide([1.0, 2.0], [1.0, 1.5]).verdict, "need more runs")

    def test_small_non_normal_samples_leave_the_mean_undecided(self):
        skewed = [1.0, 1.0, 1.01, 1.0, 1.02, 1.0, 1.01, 3.5]  # one outlier: Shapiro-Wilk refuses
        self.assertLess(stats.shapiro(skewed).pvalue, 0.05)
        d = st.mean_decision(skewed, [0.5] * 4 + [0.51] * 4)
        self.assertEqual(d.verdict, "need more runs")
        self.assertEqual(st.median_decision(skewed, [0.5] * 4 + [0.51] * 4).verdict, "speedup")

    def test_thirty_runs_trust_the_mean_without_normality(self):
        x = [1.0] * 29 + [3.0]
        y = [0.9] * 29 + [0.95]
        self.assertEqual(st.mean_decision(x, y).test, "Welch t (n >= 30)")

    def test_alpha_is_the_boundary(self):
        d = st.median_decision(BASE, FAST)
        self.assertEqual(st.median_decision(BASE, FAST, alpha=d.p_value).verdict, "not significant")
        self.assertEqual(st.median_decision(BASE, FAST, alpha=d.p_value * 1.0001).verdict, "speedup")


if __name__ == "__main__":
    unittest.main()
