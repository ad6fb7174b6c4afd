# SPDX-License-Identifier: GPL-2.0-or-later
"""The Speedup-Test protocol (Touati, Worms and Briais; seed 001, sections
3.1.3.2 and 5.3.4): is a strategy's speedup over a baseline real, given
run-to-run variability?

Execution times of the baseline (x) and of the strategy (y), each run
several times. Speedup of the mean = mean(x) / mean(y), of the median =
median(x) / median(y). Each is declared only when a one-sided test says the
strategy's times are smaller at risk alpha:

- mean: with at least 30 runs each, Student's test (Welch's form) holds by
  the central limit theorem. With fewer, both samples must pass Shapiro-Wilk
  normality; then Fisher's F test chooses Student (equal variances) or Welch.
  A sample that fails normality leaves the mean undecided: "need more runs".
- median: the Wilcoxon-Mann-Whitney test, distribution free, at any size.

Each decision is "speedup", "slowdown" (the same test the other way),
"not significant" or "need more runs". Degenerate samples are decided without
tests: two constant samples are equal or not, a sample of fewer than 3 runs
is "need more runs".
"""
from dataclasses import dataclass, asdict
import math
import statistics
import warnings

from scipy import stats

LARGE_SAMPLE = 30   # the protocol's threshold for the central limit theorem
MIN_RUNS = 3        # Shapiro-Wilk's smallest sample


@dataclass
class Summary:
    runs: int
    mean: float
    median: float
    minimum: float
    maximum: float
    stdev: float
    rv: float  # relative variability, (max - min) / max


@dataclass
class Decision:
    speedup: float    # of the mean or the median, baseline / strategy
    p_value: float    # one-sided, for the direction decided (nan: no test)
    test: str         # the test used
    verdict: str      # speedup | slowdown | not significant | need more runs


def summarize(times):
    t = [float(v) for v in times]
    if not t:
        raise ValueError("no runs")
    top = max(t)
    return Summary(len(t), statistics.fmean(t), statistics.median(t), min(t), top,
                   statistics.stdev(t) if len(t) > 1 else 0.0,
                   (top - min(t)) / top if top > 0 else 0.0)


def _constant(t):
    return max(t) == min(t)


def _verdict(p_faster, p_slower, alpha):
    if p_faster < alpha:
        return "speedup", p_faster
    if p_slower < alpha:
        return "slowdown", p_slower
    return "not significant", p_faster


def _is_normal(t, alpha):
    if _constant(t):
        return True  # a degenerate normal: no spread to test
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.shapiro(t).pvalue >= alpha


def _f_test_equal_variances(x, y, alpha):
    vx, vy = statistics.variance(x), statistics.variance(y)
    if vx == 0 or vy == 0:
        return vx == vy
    f = vx / vy
    dfx, dfy = len(x) - 1, len(y) - 1
    p = 2 * min(stats.f.cdf(f, dfx, dfy), stats.f.sf(f, dfx, dfy))
    return p >= alpha


def _deterministic(x, y, speedup, test):
    # Both samples constant: no variability left to test.
    if x[0] == y[0]:
        return Decision(speedup, float("nan"), test, "not significant")
    return Decision(speedup, 0.0, test, "speedup" if x[0] > y[0] else "slowdown")


def _prepare(x, y, center):
    """The samples as floats, the speedup of `center`, and the decision when
    no test applies (too few runs, both constant), else None."""
    x, y = [float(v) for v in x], [float(v) for v in y]
    speedup = center(x) / center(y)
    if len(x) < MIN_RUNS or len(y) < MIN_RUNS:
        return x, y, speedup, Decision(speedup, float("nan"), "none", "need more runs")
    if _constant(x) and _constant(y):
        return x, y, speedup, _deterministic(x, y, speedup, "none (constant samples)")
    return x, y, speedup, None


def mean_decision(x, y, alpha=0.05):
    """Speedup of the mean of y (strategy) over x (baseline)."""
    x, y, speedup, early = _prepare(x, y, statistics.fmean)
    if early:
        return early
    if len(x) >= LARGE_SAMPLE and len(y) >= LARGE_SAMPLE:
        equal, test = False, "Welch t (n >= 30)"
    elif _is_normal(x, alpha) and _is_normal(y, alpha):
        equal = _f_test_equal_variances(x, y, alpha)
        test = "Student t (normal, equal variances)" if equal else "Welch t (normal)"
    else:
        return Decision(speedup, float("nan"), "Shapiro-Wilk: not normal", "need more runs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nearly identical samples: the p-value still decides
        faster = stats.ttest_ind(x, y, equal_var=equal, alternative="greater").pvalue
        slower = stats.ttest_ind(x, y, equal_var=equal, alternative="less").pvalue
    verdict, p = _verdict(faster, slower, alpha)
    return Decision(speedup, p, test, verdict)


def median_decision(x, y, alpha=0.05):
    """Speedup of the median of y (strategy) over x (baseline)."""
    x, y, speedup, early = _prepare(x, y, statistics.median)
    if early:
        return early
    test = "Wilcoxon-Mann-Whitney"
    faster = stats.mannwhitneyu(x, y, alternative="greater").pvalue
    slower = stats.mannwhitneyu(x, y, alternative="less").pvalue
    verdict, p = _verdict(faster, slower, alpha)
    return Decision(speedup, p, test, verdict)


def as_dict(d):
    out = asdict(d)
    for k, v in out.items():
        if isinstance(v, float) and math.isnan(v):
            out[k] = None  # JSON has no NaN
    return out
