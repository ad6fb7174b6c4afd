# SPDX-License-Identifier: GPL-2.0-or-later
"""The Speedup-Test protocol (evaluate/speedup_test.py, exact_tests.py)
against values and decisions computed without it:

- textbook values: the t statistics from their formulas, Fisher's F from
  the incomplete beta function, Shapiro and Wilk's own example, the exact
  Kolmogorov-Smirnov and Wilcoxon-Mann-Whitney p-values by enumerating
  every split of the pooled sample, with and without ties, scipy's exact
  formulas where they hold (no ties), Clopper-Pearson's interval;
- every decision path of the protocol as seed 001 writes it (section
  3.1.3.2), and the options outside it;
- an independent implementation of the protocol, written here from the
  seed's text with its own statistics (Kolmogorov-Smirnov and
  Wilcoxon-Mann-Whitney counted over the blocks of tied values with
  binomial weights, in integers; t-tests from their formulas), run side
  by side on generated samples: normal, log-normal, bimodal, a huge
  outlier, zero variance on one side, ties, constants, at 10, 30, 31 and
  35 runs."""
import itertools
import math
import os
import statistics
import sys
import unittest

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "evaluate"))
import speedup_test as st  # noqa: E402
import exact_tests  # noqa: E402

BASE = [10.2, 10.5, 9.9, 10.8, 10.1, 10.4, 10.0, 10.6]
FAST = [9.1, 9.4, 9.0, 9.6, 9.2, 9.5, 8.9, 9.3]
PROTOCOL = st.Options()


# ---- the reference: the seed's protocol with statistics written here ----

def t_p_greater(x, y, equal_var):
    """One-sided p of mean(x) > mean(y), Student's or Welch's t from the formulas."""
    n, m = len(x), len(y)
    vx, vy = statistics.variance(x), statistics.variance(y)
    diff = statistics.fmean(x) - statistics.fmean(y)
    if equal_var:
        sp2 = ((n - 1) * vx + (m - 1) * vy) / (n + m - 2)
        se, df = math.sqrt(sp2 * (1 / n + 1 / m)), n + m - 2
    else:
        se2 = vx / n + vy / m
        se = math.sqrt(se2)
        df = se2 ** 2 / ((vx / n) ** 2 / (n - 1) + (vy / m) ** 2 / (m - 1))
    return stats.t.sf(diff / se, df)


def f_p_two_sided(x, y):
    """Fisher's F-test: the F distribution's cdf as the regularized
    incomplete beta function, I_{d1 f / (d1 f + d2)}(d1 / 2, d2 / 2)."""
    f = statistics.variance(x) / statistics.variance(y)
    d1, d2 = len(x) - 1, len(y) - 1
    cdf = special.betainc(d1 / 2, d2 / 2, d1 * f / (d1 * f + d2))
    return min(1.0, 2 * min(cdf, 1 - cdf))


def ks_statistic(x, y):
    points = sorted(set(x) | set(y))
    return max(abs(sum(v <= p for v in x) / len(x) - sum(v <= p for v in y) / len(y)) for p in points)


def tie_blocks(x, y):
    """The pooled sample's distinct values in order, each with its count."""
    values = sorted(set(x) | set(y))
    pooled = x + y
    return [sum(1 for v in pooled if v == u) for u in values]


def ks_p_exact(x, y):
    """Two-sided exact p of the two-sample Kolmogorov-Smirnov test given
    the ties: a split puts c of each block of g tied values in x (C(g, c)
    ways); D is checked after each block. Counted in integers."""
    n, m = len(x), len(y)
    d = round(ks_statistic(x, y) * n * m)  # D in units of 1 / (n m)
    inside = {0: 1}  # values of x so far -> splits staying inside
    placed = 0
    for g in tie_blocks(x, y):
        nxt = {}
        for i, ways in inside.items():
            for c in range(0, g + 1):
                i2, j2 = i + c, placed + g - i - c
                if i2 > n or j2 > m or abs(i2 * m - j2 * n) >= d:
                    continue
                nxt[i2] = nxt.get(i2, 0) + ways * math.comb(g, c)
        inside, placed = nxt, placed + g
    return 1.0 - inside.get(n, 0) / math.comb(n + m, n)


def mwu_p_greater(x, y):
    """One-sided exact p of Wilcoxon-Mann-Whitney, x tends to be larger:
    the distribution of 2U (a tie counts one half) over every split, built
    block of ties by block: c of a block of g tied values go to x in C(g, c)
    ways, each of them beating every y below the block and tying with the
    block's g - c values of y."""
    n, m = len(x), len(y)
    top = 2 * n * m
    dist = np.zeros((n + 1, top + 1))  # [x so far, 2U so far] -> splits
    dist[0, 0] = 1.0
    placed = 0
    for g in tie_blocks(x, y):
        nxt = np.zeros_like(dist)
        for i in range(n + 1):
            below_y = placed - i
            if below_y < 0 or below_y > m:
                continue
            for c in range(0, min(g, n - i) + 1):
                add = c * (2 * below_y + (g - c))
                if add <= top:
                    nxt[i + c, add:] += math.comb(g, c) * dist[i, :top + 1 - add]
        dist, placed = nxt, placed + g
    observed = sum(2 * (a > b) + (a == b) for a in x for b in y)
    return float(dist[n, observed:].sum() / math.comb(n + m, n))


def reference_verdict(p_faster, p_slower, alpha):
    return "speedup" if p_faster < alpha else "slowdown" if p_slower < alpha else "not significant"


def reference_mean(x, y, alpha=0.05):
    """(verdict, test) of the mean, as the seed's text says."""
    if len(x) > 30 and len(y) > 30:
        return reference_verdict(t_p_greater(x, y, True), t_p_greater(y, x, True), alpha), "Student"
    if stats.shapiro(x).pvalue < alpha or stats.shapiro(y).pvalue < alpha:
        return "need more runs", "Shapiro-Wilk"
    equal = f_p_two_sided(x, y) >= alpha
    return (reference_verdict(t_p_greater(x, y, equal), t_p_greater(y, x, equal), alpha),
            "Student" if equal else "Welch")


def reference_median(x, y, alpha=0.05):
    """(verdict, test) of the median, as the seed's text says."""
    if ks_p_exact(x, y) >= alpha:
        return "not significant", "Kolmogorov-Smirnov"
    if not (len(x) > 30 and len(y) > 30):
        return "need more runs", "Kolmogorov-Smirnov"
    return reference_verdict(mwu_p_greater(x, y), mwu_p_greater(y, x), alpha), "Wilcoxon-Mann-Whitney"


def every_split(x, y):
    pooled = x + y
    for idx in itertools.combinations(range(len(pooled)), len(x)):
        chosen = set(idx)
        yield [pooled[i] for i in idx], [pooled[i] for i in range(len(pooled)) if i not in chosen]


def exact_mwu_greater(x, y):
    """P(U >= u_observed) under H0, by enumerating every way to split the
    pooled sample (ties count one half)."""
    def u(a, b):
        return sum(2 * (i > j) + (i == j) for i in a for j in b)
    observed = u(x, y)
    splits = [u(a, b) >= observed for a, b in every_split(x, y)]
    return sum(splits) / len(splits)


def exact_ks_two_sided(x, y):
    """P(D >= d_observed) under H0 by enumerating every split (ties too)."""
    observed = ks_statistic(x, y)
    splits = [ks_statistic(a, b) >= observed - 1e-12 for a, b in every_split(x, y)]
    return sum(splits) / len(splits)


def generated(kind, n, shift, seed):
    """A sample of `n` run times of a given shape, `shift` times faster."""
    rng = np.random.default_rng(seed)
    if kind == "normal":
        v = rng.normal(10, 0.5, n)
    elif kind == "lognormal":
        v = 5 * rng.lognormal(0, 0.6, n)
    elif kind == "bimodal":
        v = np.where(rng.random(n) < 0.5, rng.normal(8, 0.3, n), rng.normal(12, 0.3, n))
    elif kind == "outlier":
        v = rng.normal(10, 0.3, n)
        v[0] = 1000.0
    elif kind == "ties":
        v = np.round(rng.normal(10, 0.6, n))
    else:
        raise ValueError(kind)
    return [float(t) for t in v / shift]


# ---- textbook values ---------------------------------------------------------

class Textbook(unittest.TestCase):
    def test_summary_quartiles_and_relative_variability(self):
        s = st.summarize([4.0, 5.0, 8.0, 9.0, 10.0])
        self.assertEqual((s.runs, s.median, s.minimum, s.maximum, s.q1, s.q3), (5, 8.0, 4.0, 10.0, 5.0, 9.0))
        self.assertAlmostEqual(s.mean, 36 / 5)
        self.assertAlmostEqual(s.rv, 0.6)  # (10 - 4) / 10

    def test_student_t_is_the_pooled_variance_formula(self):
        d = st.mean_decision(BASE, FAST)
        self.assertEqual(d.test, "Student t (Gaussian, equal variances)")
        self.assertAlmostEqual(d.p_value, t_p_greater(BASE, FAST, True), places=12)
        self.assertEqual(d.verdict, "speedup")
        self.assertAlmostEqual(d.speedup, statistics.fmean(BASE) / statistics.fmean(FAST))

    def test_welch_t_is_the_welch_satterthwaite_formula(self):
        y = [5.0, 9.5, 7.0, 8.8, 6.1, 9.9, 5.5, 8.0]  # far more spread: the F-test refuses equal variances
        d = st.mean_decision(BASE, y)
        self.assertEqual(d.test, "Welch t (Gaussian, unequal variances)")
        self.assertAlmostEqual(d.p_value, t_p_greater(BASE, y, False), places=12)

    def test_fisher_f_is_the_incomplete_beta(self):
        y = [5.0, 9.5, 7.0, 8.8, 6.1, 9.9, 5.5, 8.0]
        for a, b in ((BASE, FAST), (BASE, y), (y, BASE)):
            self.assertAlmostEqual(st.f_test_p(a, b), f_p_two_sided(a, b), places=12)

    def test_shapiro_wilk_on_shapiro_and_wilks_own_example(self):
        # Shapiro and Wilk (1965), the weights of 11 men: W = 0.79, p < 0.01.
        weights = [148, 154, 158, 160, 161, 162, 166, 170, 182, 195, 236]
        self.assertAlmostEqual(float(stats.shapiro(weights).statistic), 0.79, places=2)
        self.assertLess(st.shapiro_p(weights), 0.01)

    def test_kolmogorov_smirnov_is_the_exact_enumeration(self):
        x, y = [1.2, 3.4, 2.2, 5.1, 4.4, 0.9], [6.0, 7.1, 5.5, 2.8, 6.6, 8.2]
        d = st.median_decision(x, y)
        self.assertEqual(d.steps[0][0], "Kolmogorov-Smirnov")
        self.assertAlmostEqual(d.steps[0][1], exact_ks_two_sided(x, y), places=12)
        self.assertAlmostEqual(exact_ks_two_sided(x, y), ks_p_exact(x, y), places=12)  # the reference agrees

    def test_mann_whitney_is_the_exact_enumeration(self):
        x, y = [19.0, 22.0, 16.0, 29.0, 24.0], [20.0, 11.0, 17.0, 12.0]
        d = st.median_decision(x, y, st.Options(wmw_any_size=True))
        self.assertTrue(d.test.startswith("Wilcoxon-Mann-Whitney"))
        self.assertAlmostEqual(d.p_value, exact_mwu_greater(x, y), places=12)
        self.assertEqual(d.verdict, "not significant")  # p = 0.0556 (U = 17 of 20)

    def test_holm_on_a_textbook_family(self):
        # Sorted 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: two rejected, then stop.
        self.assertEqual(st.holm([0.01, 0.04, 0.03, 0.005], 0.05), {0, 3})
        # A comparison without a test counts in the family, never rejected.
        self.assertEqual(st.holm([0.02, None], 0.05), {0})
        self.assertEqual(st.holm([0.03, None], 0.05), set())
        self.assertEqual(st.holm([None, None], 0.05), set())

    def test_runs_needed_is_the_t_test_sample_size(self):
        self.assertEqual(st.runs_needed([1.0, 1.0], [1.0, 1.0]), 31)  # no spread: the protocol's large size
        x, y = [10.0, 12.0, 8.0, 11.0, 9.0], [9.9, 11.9, 7.9, 10.9, 8.9]  # delta 0.1, variance 2.5
        z = stats.norm.ppf(0.95) + stats.norm.ppf(0.8)
        self.assertEqual(st.runs_needed(x, y), math.ceil(2 * z * z * 2.5 / 0.01))


# ---- every path of the protocol ------------------------------------------------

class ProtocolPaths(unittest.TestCase):
    def test_mean_small_gaussian_equal_variances_student(self):
        d = st.mean_decision(BASE, FAST)
        self.assertEqual([s for s, _ in d.steps],
                         ["Shapiro-Wilk baseline", "Shapiro-Wilk strategy", "Fisher F",
                          "Student t (Gaussian, equal variances)"])

    def test_mean_small_not_gaussian_needs_more_runs(self):
        skewed = [1.0, 1.0, 1.01, 1.0, 1.02, 1.0, 1.01, 3.5]  # one outlier: Shapiro-Wilk refuses
        d = st.mean_decision(skewed, [0.5, 0.52, 0.49, 0.51, 0.5, 0.53, 0.48, 0.51])
        self.assertEqual((d.verdict, d.test), ("need more runs", "Shapiro-Wilk: not Gaussian"))
        self.assertTrue(math.isnan(d.p_value))

    def test_mean_thirty_runs_is_still_small_thirty_one_is_large(self):
        x, y = generated("normal", 31, 1.0, 1), generated("normal", 31, 1.05, 2)
        self.assertTrue(st.mean_decision(x[:30], y[:30]).steps[0][0].startswith("Shapiro-Wilk"))
        self.assertEqual(st.mean_decision(x, y).test, "Student t (|X|, |Y| > 30)")
        self.assertEqual(st.mean_decision(x, y).steps[0][0], "Student t (|X|, |Y| > 30)")  # no Shapiro-Wilk
        self.assertTrue(st.mean_decision(x[:30], y).steps[0][0].startswith("Shapiro-Wilk"))  # both must be > 30

    def test_mean_large_is_student_unless_welch_is_asked(self):
        x, y = generated("normal", 40, 1.0, 3), [v * 3 for v in generated("normal", 40, 3.3, 4)]
        self.assertAlmostEqual(st.mean_decision(x, y).p_value, t_p_greater(x, y, True), places=12)
        d = st.mean_decision(x, y, st.Options(welch_large=True))
        self.assertEqual(d.test, "Welch t (|X|, |Y| > 30; --welch-large)")
        self.assertAlmostEqual(d.p_value, t_p_greater(x, y, False), places=12)

    def test_median_one_distribution_is_not_significant_at_any_size(self):
        for n in (10, 35):
            x = generated("normal", n, 1.0, 5)
            d = st.median_decision(x, [v * 1.001 for v in reversed(x)])
            self.assertEqual((d.verdict, d.test), ("not significant", "Kolmogorov-Smirnov: one distribution"))

    def test_median_different_distributions_below_31_runs_need_more(self):
        d = st.median_decision(BASE, FAST)
        self.assertEqual(d.verdict, "need more runs")
        self.assertLess(d.steps[0][1], 0.05)
        self.assertEqual(len(d.steps), 1)  # no Wilcoxon-Mann-Whitney below 31 runs

    def test_median_large_different_distributions_is_wilcoxon_mann_whitney(self):
        x, y = generated("normal", 35, 1.0, 7), generated("normal", 35, 1.1, 8)
        d = st.median_decision(x, y)
        self.assertEqual((d.test, d.verdict), ("Wilcoxon-Mann-Whitney", "speedup"))
        self.assertAlmostEqual(d.p_value, mwu_p_greater(x, y), places=12)
        self.assertEqual(st.median_decision(y, x).verdict, "slowdown")

    def test_median_wmw_any_size_is_an_option(self):
        d = st.median_decision(BASE, FAST, st.Options(wmw_any_size=True))
        self.assertEqual((d.test, d.verdict), ("Wilcoxon-Mann-Whitney (below 31 runs; --wmw-any-size)", "speedup"))
        self.assertEqual([s for s, _ in d.steps], [d.test])  # no Kolmogorov-Smirnov step

    def test_too_few_runs(self):
        for decide in (st.mean_decision, st.median_decision):
            self.assertEqual(decide([1.0, 2.0], [1.0, 1.5]).verdict, "need more runs")

    def test_constant_samples_are_decided_without_a_test(self):
        for decide in (st.mean_decision, st.median_decision):
            d = decide([3.0] * 5, [3.0] * 5)
            self.assertEqual((d.verdict, d.test), ("not significant", "none (constant samples)"))
            self.assertEqual(decide([2.0] * 4, [1.0] * 4).verdict, "speedup")
            self.assertEqual(decide([1.0] * 4, [2.0] * 4).verdict, "slowdown")

    def test_zero_variance_on_one_side(self):
        # A constant sample is a degenerate Gaussian; the F-test then refuses equal variances.
        d = st.mean_decision([12.0] * 6, FAST[:6])
        self.assertEqual((d.test, d.verdict), ("Welch t (Gaussian, unequal variances)", "speedup"))
        self.assertEqual(st.median_decision([12.0] * 10, generated("normal", 10, 1.2, 9)).verdict, "need more runs")

    def test_zeros_negatives_and_infinities_are_one_analysis_error(self):
        for bad in ([0.0, 0.0, 0.0], [1.0, -1.0, 2.0], [1.0, math.inf, 2.0], []):
            for decide in (st.mean_decision, st.median_decision):
                with self.assertRaises(st.AnalysisError) as e:
                    decide([1.0, 1.1, 1.2], bad)
                self.assertNotIn("\n", str(e.exception))
        with self.assertRaisesRegex(st.AnalysisError, "baseline's figure is 0 in 3 of 3 runs"):
            st.mean_decision([0.0, 0.0, 0.0], [1.0, 1.1, 1.2], what="figure")

    def test_alpha_is_the_boundary(self):
        d = st.mean_decision(BASE, FAST)
        self.assertEqual(st.mean_decision(BASE, FAST, st.Options(alpha=d.p_value)).verdict, "not significant")
        self.assertEqual(st.mean_decision(BASE, FAST, st.Options(alpha=d.p_value * 1.0001)).verdict, "speedup")


# ---- the cases the old evaluate decided against the protocol ---------------------

class IssueCases(unittest.TestCase):
    def test_ten_runs_never_declare_a_median_speedup(self):
        """Normal, log-normal, bimodal samples, a huge outlier and zero variance
        on one side, 10 against 10 runs, a true 20% speedup: Wilcoxon-Mann-Whitney
        alone would declare it; the protocol cannot below 31 runs."""
        def wmw_declares(kind, seed):
            """The first pair from `seed` on that Wilcoxon-Mann-Whitney alone calls a speedup."""
            while True:
                x, y = generated(kind, 10, 1.0, seed), generated(kind, 10, 1.2, seed + 1)
                if stats.mannwhitneyu(x, y, alternative="greater").pvalue < 0.05:
                    return x, y
                seed += 2
        cases = [wmw_declares(k, 10) for k in ("normal", "lognormal", "bimodal", "outlier")]
        cases.append(([12.0] * 10, generated("normal", 10, 1.2, 30)))
        for x, y in cases:
            self.assertLess(stats.mannwhitneyu(x, y, alternative="greater").pvalue, 0.05)
            self.assertIn(st.median_decision(x, y).verdict, ("need more runs", "not significant"))
            self.assertEqual(st.median_decision(x, y, st.Options(wmw_any_size=True)).verdict, "speedup")

    def test_35_runs_ks_cannot_tell_apart_is_not_significant(self):
        """Log-normal samples of 35 runs where Wilcoxon-Mann-Whitney says p < 0.05
        but Kolmogorov-Smirnov cannot tell the distributions apart."""
        for seed in range(2000):
            x, y = generated("lognormal", 35, 1.0, seed), generated("lognormal", 35, 1.15, seed + 5000)
            if stats.mannwhitneyu(x, y, alternative="greater").pvalue < 0.05 and ks_p_exact(x, y) >= 0.05:
                break
        else:
            self.fail("no such sample among 2000 seeds")
        d = st.median_decision(x, y)
        self.assertEqual((d.verdict, d.test), ("not significant", "Kolmogorov-Smirnov: one distribution"))
        self.assertEqual(st.median_decision(x, y, st.Options(wmw_any_size=True)).verdict, "speedup")


# ---- ties, exact tests, the outputs the protocol defines --------------------------

# 31 runs a strategy, times printed to 10 ms (the timer's resolution): scipy's
# Kolmogorov-Smirnov without ties says p = 0.079, the exact p given the ties
# is 0.025, so the protocol goes on to Wilcoxon-Mann-Whitney and declares it.
TIED_X = [1.0, 1.0, 1.0, 0.99, 1.01, 1.0, 0.99, 1.01, 1.0, 1.02, 1.01, 1.0, 0.99, 1.0, 1.01, 0.99, 1.01, 0.98,
          1.0, 1.01, 1.0, 1.0, 1.01, 0.99, 0.99, 1.0, 1.02, 1.01, 1.0, 1.0, 1.01]
TIED_Y = [0.98, 0.96, 0.98, 0.98, 0.99, 0.98, 0.98, 1.0, 1.0, 0.99, 1.01, 0.99, 0.99, 1.01, 0.98, 0.97, 1.01,
          1.0, 1.0, 1.0, 1.01, 0.99, 0.99, 0.98, 1.0, 1.0, 0.99, 1.0, 1.03, 0.98, 1.0]


class ExactWithTies(unittest.TestCase):
    SMALL = ([1.0, 2.0, 2.0, 3.0, 3.0, 3.0], [2.0, 3.0, 4.0, 4.0, 5.0])  # ties inside and across

    def test_kolmogorov_smirnov_with_ties_is_every_split_counted(self):
        x, y = self.SMALL
        p, how = exact_tests.ks_two_sided_p(x, y)
        self.assertEqual(how, "exact")
        self.assertAlmostEqual(p, exact_ks_two_sided(x, y), places=12)
        self.assertAlmostEqual(p, ks_p_exact(x, y), places=12)

    def test_mann_whitney_with_ties_is_every_split_counted(self):
        x, y = self.SMALL
        greater, less, how = exact_tests.wmw_p(y, x)
        self.assertEqual(how, "exact")
        self.assertAlmostEqual(greater, exact_mwu_greater(y, x), places=12)
        self.assertAlmostEqual(less, exact_mwu_greater([-v for v in y], [-v for v in x]), places=12)

    def test_without_ties_both_are_scipys_exact_formulas(self):
        x, y = generated("normal", 14, 1.0, 3), generated("normal", 11, 1.05, 4)
        self.assertAlmostEqual(exact_tests.ks_two_sided_p(x, y)[0],
                               stats.ks_2samp(x, y, method="exact").pvalue, places=10)
        self.assertAlmostEqual(exact_tests.wmw_p(x, y)[0],
                               stats.mannwhitneyu(x, y, alternative="greater", method="exact").pvalue, places=10)

    def test_times_at_the_timers_resolution_decide_the_median_at_31_runs(self):
        self.assertGreater(stats.ks_2samp(TIED_X, TIED_Y).pvalue, 0.05)  # what was wrong: no ties assumed
        d = st.median_decision(TIED_X, TIED_Y)
        self.assertEqual(d.steps[0][0], "Kolmogorov-Smirnov")
        self.assertAlmostEqual(d.steps[0][1], ks_p_exact(TIED_X, TIED_Y), places=10)
        self.assertLess(d.steps[0][1], 0.03)
        self.assertEqual((d.test, d.verdict), ("Wilcoxon-Mann-Whitney", "speedup"))
        self.assertAlmostEqual(d.p_value, mwu_p_greater(TIED_X, TIED_Y), places=10)

    def test_past_the_exact_sizes_a_permutation_estimate_close_to_the_exact_value(self):
        exact = exact_tests.ks_two_sided_p(TIED_X, TIED_Y)[0]
        saved = exact_tests.KS_EXACT_CELLS
        exact_tests.KS_EXACT_CELLS = 0
        try:
            p, how = exact_tests.ks_two_sided_p(TIED_X, TIED_Y)
        finally:
            exact_tests.KS_EXACT_CELLS = saved
        self.assertTrue(how.startswith("permutation"))
        self.assertLess(abs(p - exact), 0.005)  # 3.5 standard errors at 20,000 splits

    def test_wmw_any_size_is_exact_at_twelve_runs(self):
        x = [10.87, 11.79, 11.25, 11.63, 10.47, 10.17, 10.16, 9.9, 11.4, 11.75, 10.22, 11.11]
        y = [9.06, 10.41, 10.78, 9.51, 11.13, 9.81, 10.36, 11.46, 8.93, 10.53, 9.95, 11.32]
        self.assertLess(stats.mannwhitneyu(x, y, alternative="greater").pvalue, 0.05)  # the approximation's
        d = st.median_decision(x, y, st.Options(wmw_any_size=True))
        self.assertAlmostEqual(d.p_value, mwu_p_greater(x, y), places=12)
        self.assertAlmostEqual(d.p_value, 0.0503, places=4)
        self.assertEqual(d.verdict, "not significant")

    def test_p_x_greater_y_counts_ties_as_one_half(self):
        self.assertAlmostEqual(exact_tests.prob_x_greater([3.0, 4.0, 5.0], [1.0, 4.0, 2.0]), 7.5 / 9)
        self.assertAlmostEqual(st.median_decision(BASE, FAST).p_x_greater_y, 1.0)
        self.assertIsNone(st.mean_decision(BASE, FAST).p_x_greater_y)

    def test_clopper_pearson_textbook_intervals(self):
        for k, n, want in ((7, 10, (0.3475, 0.9333)), (0, 10, (0.0, 0.3085)), (10, 10, (0.6915, 1.0)),
                           (1, 4, (0.0063, 0.8059))):
            low, high = exact_tests.proportion_ci(k, n, 0.05)
            self.assertAlmostEqual(low, want[0], places=4)
            self.assertAlmostEqual(high, want[1], places=4)

    def test_ks_centred_reads_step_one_as_a_shape_test(self):
        # One shape shifted by 20%: the centred test finds one shape, so Wilcoxon-Mann-Whitney
        # decides at 10 runs; the default reading cannot below 31.
        x = generated("normal", 10, 1.0, 11)
        y = [v / 1.2 for v in x[3:] + x[:3]]
        y = [v + (statistics.median(x) / 1.2 - statistics.median(y)) for v in y]
        centred = st.median_decision(x, y, st.Options(ks_centred=True))
        self.assertEqual(centred.steps[0][0], "Kolmogorov-Smirnov, centred")
        self.assertEqual(centred.verdict, "speedup")
        self.assertEqual(centred.test, "Wilcoxon-Mann-Whitney (below 31 runs, one shape; --ks-centred)")
        self.assertEqual(st.median_decision(x, y).verdict, "need more runs")
        # Different shapes (a narrow and a bimodal sample): need more runs below 31.
        narrow = [10.0 + 0.01 * i for i in range(20)]
        wide = [8.0 + 0.01 * i for i in range(10)] + [11.0 + 0.01 * i for i in range(10)]
        d = st.median_decision(narrow, wide, st.Options(ks_centred=True))
        self.assertEqual(d.verdict, "need more runs")
        self.assertTrue(d.test.startswith("Kolmogorov-Smirnov, centred: shapes differ"))


# ---- side by side with the reference -------------------------------------------------

class AgainstTheReference(unittest.TestCase):
    KINDS = ("normal", "lognormal", "bimodal", "outlier", "ties")

    def compare(self, x, y, label):
        m, md = st.mean_decision(x, y), st.median_decision(x, y)
        rv, rt = reference_mean(x, y)
        self.assertEqual(m.verdict, rv, "%s: mean %s (%s) against %s (%s)" % (label, m.verdict, m.test, rv, rt))
        self.assertTrue(m.test.startswith(rt) or (rt == "Shapiro-Wilk" and m.test.startswith("Shapiro")),
                        "%s: %s against %s" % (label, m.test, rt))
        rv, rt = reference_median(x, y)
        self.assertEqual(md.verdict, rv, "%s: median %s (%s) against %s (%s)" % (label, md.verdict, md.test, rv, rt))
        self.assertTrue(md.test.startswith(rt), "%s: %s against %s" % (label, md.test, rt))
        if md.test == "Wilcoxon-Mann-Whitney":
            self.assertAlmostEqual(md.p_value, mwu_p_greater(x, y) if md.verdict != "slowdown"
                                   else mwu_p_greater(y, x), places=10)
        if md.steps and md.steps[0][0] == "Kolmogorov-Smirnov":
            self.assertAlmostEqual(md.steps[0][1], ks_p_exact(x, y), places=8)  # exact, ties too
        self.assertAlmostEqual(md.p_x_greater_y, sum((a > b) + 0.5 * (a == b) for a in x for b in y)
                               / (len(x) * len(y)), places=12)

    def test_generated_samples(self):
        checked = 0
        for kind in self.KINDS:
            for n in (10, 30, 31, 35):
                for shift in (1.0, 1.03, 1.2):
                    for seed in range(4):
                        s = 1000 * seed + n
                        x, y = generated(kind, n, 1.0, s), generated(kind, n, shift, s + 500)
                        self.compare(x, y, "%s n=%d shift=%g seed=%d" % (kind, n, shift, seed))
                        checked += 1
        self.assertEqual(checked, 5 * 4 * 3 * 4)

    def test_unequal_sizes(self):
        for kind in ("normal", "lognormal"):
            self.compare(generated(kind, 12, 1.0, 41), generated(kind, 40, 1.1, 42), kind + " 12 vs 40")
            self.compare(generated(kind, 40, 1.0, 43), generated(kind, 35, 1.1, 44), kind + " 40 vs 35")


if __name__ == "__main__":
    unittest.main()
