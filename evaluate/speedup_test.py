# SPDX-License-Identifier: GPL-2.0-or-later
"""The Speedup-Test protocol (Touati, Worms and Briais), exactly as seed 001
states it in section 3.1.3.2: is a strategy's speedup over a baseline real,
given run-to-run variability?

X: the baseline's execution times, Y: the strategy's. Speedup of the mean
= mean(X) / mean(Y), of the median = median(X) / median(Y); declared only
when the protocol's tests say Y is smaller at risk alpha.

Mean (protocol, default):
  1. |X| > 30 and |Y| > 30: Student's t-test (one-sided).
  2. otherwise: (a) X or Y not Gaussian by Shapiro-Wilk: no conclusion,
     "need more runs"; (b) both Gaussian: Fisher's F-test on the variances,
     then (i) equal: Student's t-test, (ii) unequal: Welch's t-test.

Median (protocol, default):
  1. two-sided, unpaired Kolmogorov-Smirnov test: X and Y may come from one
     distribution (p >= alpha): "not significant".
  2. they differ: (a) |X| > 30 and |Y| > 30: one-sided Wilcoxon-Mann-Whitney;
     (b) otherwise: "need more runs".

Step 1's "not significant" is a reading: the seed says what to do when
the distributions differ and is silent when Kolmogorov-Smirnov finds no
difference. Read this way, 30 runs or fewer never give a median speedup.

Choices outside the protocol or its reading, each behind an option named for
what it is (Options): Welch's test instead of Student's for large samples
(Student's assumes equal variances); Wilcoxon-Mann-Whitney at any size
without the Kolmogorov-Smirnov step (the protocol's risk is then not the
one stated); and the other reading of step 1, Kolmogorov-Smirnov on the
samples centred on their medians (the same shape, whatever the shift), then
Wilcoxon-Mann-Whitney at any size when the shapes agree (a shift of one
shape is what it tests), "need more runs" below 31 runs when they differ.

Both rank tests are exact with ties (exact_tests.py): run times tie at the
timer's resolution, and scipy's formulas assume they do not. Each median
comparison also reports P[X > Y], the probability that a baseline run is
slower than a strategy run, which Wilcoxon-Mann-Whitney tests against 1/2.

Each decision is "speedup", "slowdown" (the one-sided test the other way),
"not significant" or "need more runs", with the test that decided and its
p-value. Samples that leave no test to run are decided without one: two
constant samples are equal or not; fewer than 3 runs is "need more runs".
A sample with a value <= 0 has no speedup: Analysis error, never a crash.
"""
from dataclasses import dataclass, asdict, field
import math
import statistics
import warnings

from scipy import stats

import exact_tests

LARGE = 30     # the protocol's "large enough": more than 30 runs
MIN_RUNS = 3   # Shapiro-Wilk's smallest sample


class AnalysisError(ValueError):
    """A sample the protocol cannot take (empty, zero or negative values)."""


@dataclass
class Options:
    alpha: float = 0.05
    # outside the protocol, each an explicit choice:
    welch_large: bool = False   # Welch's t-test for |X|, |Y| > 30 instead of Student's
    wmw_any_size: bool = False  # WMW at any size, without the Kolmogorov-Smirnov step
    ks_centred: bool = False    # KS on median-centred samples (shape), then WMW at any size


@dataclass
class Summary:
    runs: int
    mean: float
    median: float
    minimum: float
    maximum: float
    stdev: float
    q1: float
    q3: float
    rv: float  # relative variability, (max - min) / max


@dataclass
class Decision:
    speedup: float     # of the mean or the median, baseline / strategy
    p_value: float     # one-sided, of the test that decided (nan: none)
    test: str          # the test that decided
    verdict: str       # speedup | slowdown | not significant | need more runs
    steps: list = field(default_factory=list)  # every test run on the way, with its p-value
    p_x_greater_y: float = None  # medians: estimate of P[X > Y], baseline slower than strategy


def summarize(times):
    t = [float(v) for v in times]
    if not t:
        raise AnalysisError("no runs")
    top = max(t)
    q = statistics.quantiles(t, n=4, method="inclusive") if len(t) > 1 else [t[0]] * 3
    return Summary(len(t), statistics.fmean(t), statistics.median(t), min(t), top,
                   statistics.stdev(t) if len(t) > 1 else 0.0, q[0], q[2],
                   (top - min(t)) / top if top > 0 else 0.0)


def _constant(t):
    return max(t) == min(t)


def _large(x, y):
    return len(x) > LARGE and len(y) > LARGE


def _verdict(p_faster, p_slower, alpha):
    if p_faster < alpha:
        return "speedup", p_faster
    if p_slower < alpha:
        return "slowdown", p_slower
    return "not significant", p_faster


def shapiro_p(t):
    if _constant(t):
        return 1.0  # a degenerate normal: no spread to test
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.shapiro(t).pvalue)


def f_test_p(x, y):
    """Fisher's two-sided F-test of equal variances."""
    vx, vy = statistics.variance(x), statistics.variance(y)
    if vx == 0 or vy == 0:
        return 1.0 if vx == vy else 0.0
    f = vx / vy
    dfx, dfy = len(x) - 1, len(y) - 1
    return float(min(1.0, 2 * min(stats.f.cdf(f, dfx, dfy), stats.f.sf(f, dfx, dfy))))


def t_test(x, y, equal_var):
    """One-sided p-values (strategy faster, strategy slower)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nearly identical samples: the p-value still decides
        faster = stats.ttest_ind(x, y, equal_var=equal_var, alternative="greater").pvalue
        slower = stats.ttest_ind(x, y, equal_var=equal_var, alternative="less").pvalue
    return float(faster), float(slower)


def _prepare(x, y, center, what):
    """The samples as floats, the speedup of `center`, and the decision when
    no test applies (too few runs, both constant), else None."""
    x, y = [float(v) for v in x], [float(v) for v in y]
    for name, t in (("baseline", x), ("strategy", y)):
        if not t:
            raise AnalysisError("the %s has no runs" % name)
        bad = [v for v in t if not v > 0 or math.isinf(v)]
        if bad:
            raise AnalysisError("the %s's %s is %g in %d of %d runs: a speedup needs positive values"
                                % (name, what, bad[0], len(bad), len(t)))
    speedup = center(x) / center(y)
    if len(x) < MIN_RUNS or len(y) < MIN_RUNS:
        return x, y, speedup, Decision(speedup, float("nan"), "none (fewer than 3 runs)", "need more runs")
    if _constant(x) and _constant(y):
        if x[0] == y[0]:
            return x, y, speedup, Decision(speedup, float("nan"), "none (constant samples)", "not significant")
        return x, y, speedup, Decision(speedup, 0.0, "none (constant samples)",
                                       "speedup" if x[0] > y[0] else "slowdown")
    return x, y, speedup, None


def mean_decision(x, y, options=Options(), what="time"):
    """Speedup of the mean of y (strategy) over x (baseline)."""
    x, y, speedup, early = _prepare(x, y, statistics.fmean, what)
    if early:
        return early
    a = options.alpha
    steps = []
    if _large(x, y):
        equal = not options.welch_large
        test = "Student t (|X|, |Y| > 30)" if equal else "Welch t (|X|, |Y| > 30; --welch-large)"
    else:
        px, py = shapiro_p(x), shapiro_p(y)
        steps += [("Shapiro-Wilk baseline", px), ("Shapiro-Wilk strategy", py)]
        if px < a or py < a:
            return Decision(speedup, float("nan"), "Shapiro-Wilk: not Gaussian", "need more runs", steps)
        pf = f_test_p(x, y)
        steps.append(("Fisher F", pf))
        equal = pf >= a
        test = "Student t (Gaussian, equal variances)" if equal else "Welch t (Gaussian, unequal variances)"
    faster, slower = t_test(x, y, equal)
    verdict, p = _verdict(faster, slower, a)
    steps.append((test, p))
    return Decision(speedup, p, test, verdict, steps)


def _ks_step(x, y, centred):
    """The Kolmogorov-Smirnov step: (name, p), exact with ties."""
    if centred:
        mx, my = statistics.median(x), statistics.median(y)
        p, how = exact_tests.ks_two_sided_p([v - mx for v in x], [v - my for v in y])
        name = "Kolmogorov-Smirnov, centred"
    else:
        p, how = exact_tests.ks_two_sided_p(x, y)
        name = "Kolmogorov-Smirnov"
    return (name if how == "exact" else "%s (%s)" % (name, how)), p


def median_decision(x, y, options=Options(), what="time"):
    """Speedup of the median of y (strategy) over x (baseline)."""
    x, y, speedup, early = _prepare(x, y, statistics.median, what)
    if early:
        early.p_x_greater_y = exact_tests.prob_x_greater(x, y)
        return early
    a = options.alpha
    steps = []
    pxy = exact_tests.prob_x_greater(x, y)
    note = ""
    if options.ks_centred:
        name, pks = _ks_step(x, y, True)
        steps.append((name, pks))
        if pks < a and not _large(x, y):
            return Decision(speedup, float("nan"), name + ": shapes differ, |X| or |Y| <= 30",
                            "need more runs", steps, pxy)
        note = "" if _large(x, y) else " (below 31 runs, one shape; --ks-centred)"
    elif not options.wmw_any_size:
        name, pks = _ks_step(x, y, False)
        steps.append((name, pks))
        if pks >= a:
            return Decision(speedup, pks, name + ": one distribution", "not significant", steps, pxy)
        if not _large(x, y):
            return Decision(speedup, float("nan"), name + ": distributions differ, |X| or |Y| <= 30",
                            "need more runs", steps, pxy)
    elif not _large(x, y):
        note = " (below 31 runs; --wmw-any-size)"
    faster, slower, how = exact_tests.wmw_p(x, y)
    test = "Wilcoxon-Mann-Whitney" + ("" if how == "exact" else " (%s)" % how) + note
    verdict, p = _verdict(faster, slower, a)
    steps.append((test, p))
    return Decision(speedup, p, test, verdict, steps, pxy)


def runs_needed(x, y, alpha=0.05, power=0.8):
    """Runs per strategy the data suggest for a decision: more than 30 (the
    protocol's large samples), or more when the observed difference of the
    means is small against the spread (the usual sample size of a one-sided
    t-test at this power)."""
    need = LARGE + 1
    if len(x) > 1 and len(y) > 1:
        delta = abs(statistics.fmean(x) - statistics.fmean(y))
        var = (statistics.variance(x) + statistics.variance(y)) / 2
        if delta > 0 and var > 0:
            z = stats.norm.ppf(1 - alpha) + stats.norm.ppf(power)
            need = max(need, math.ceil(2 * z * z * var / (delta * delta)))
    return need


def holm(p_values, alpha):
    """Holm's step-down correction for comparing several strategies to one
    baseline: the indexes whose hypothesis is rejected at family-wise risk
    alpha. p_values: one per comparison, None for one without a test."""
    order = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    rejected, k = set(), len(p_values)
    for rank, (p, i) in enumerate(order):
        if p >= alpha / (k - rank):
            break
        rejected.add(i)
    return rejected


def as_dict(d):
    out = asdict(d)
    for k, v in list(out.items()):
        if isinstance(v, float) and math.isnan(v):
            out[k] = None  # JSON has no NaN
    out["steps"] = [{"test": t, "p_value": None if (isinstance(p, float) and math.isnan(p)) else p}
                    for t, p in d.steps]
    return out
