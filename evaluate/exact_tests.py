# SPDX-License-Identifier: GPL-2.0-or-later
"""Two-sample rank tests whose p-values stay exact when run times tie.

Timers have a resolution, so two runs often print the same time. scipy's
Kolmogorov-Smirnov p-value assumes no ties (with ties it is too high: a
difference the protocol should declare is missed), and its Mann-Whitney is
the normal approximation at most sizes. Both tests here are conditional on
the pooled sample as observed, ties included: under the null hypothesis
every way of splitting the pooled values into |X| and |Y| is equally likely,
and the p-value is the share of splits at least as extreme as the one seen.

- ks_two_sided_p: Kolmogorov-Smirnov, D = max |F_X - F_Y| taken where the
  empirical distributions can change (after each block of tied values);
  the splits are counted as lattice paths (Hodges 1958; with ties, Schroer
  and Trenkler 1995) whose band is checked at block ends only.
- wmw_p: Wilcoxon-Mann-Whitney on midranks, the rank sum's exact
  distribution counted over every split (Streitberg and Roehmel's shift
  algorithm, on doubled midranks so sums stay integers).
- prob_x_greater: the estimate of P[X > Y] the median comparison rests on
  (ties count one half): U / (|X| |Y|).
- proportion_ci: Clopper-Pearson's interval of a proportion, exact at any
  count (the share of programs a strategy accelerates).

Past a size where exact counting would take long, each test says so in the
name it returns: a permutation estimate for Kolmogorov-Smirnov, the normal
approximation with tie and continuity corrections for Mann-Whitney."""
import math

import numpy as np
from scipy import stats

KS_EXACT_CELLS = 4_000_000       # lattice points counted exactly (about 2 s)
KS_PERMUTATIONS = 20_000         # splits drawn beyond that
WMW_EXACT_WORK = 300_000_000     # item x subset size x sum cells counted exactly


def _pooled(x, y):
    """The pooled sample sorted, each value with 0 (from x) or 1 (from y),
    and the sorted positions 1..N after which the value changes."""
    pooled = sorted([(v, 0) for v in x] + [(v, 1) for v in y])
    ends = [k for k in range(1, len(pooled)) if pooled[k - 1][0] != pooled[k][0]] + [len(pooled)]
    return pooled, ends


def _ks_distance(labels, ends, m, n):
    """max |i n - j m| at the block ends: D times m n, an integer."""
    d, i, j, at = 0, 0, 0, 0
    for end in ends:
        while at < end:
            if labels[at]:
                j += 1
            else:
                i += 1
            at += 1
        d = max(d, abs(i * n - j * m))
    return d


def _ks_inside_share(m, n, block_end, d):
    """The share of the C(m + n, m) paths from (0, 0) to (m, n) that stay
    inside |i n - j m| < d at every block end, counted with each cell
    normalized by the paths reaching it, so nothing overflows."""
    row = [0.0] * (n + 1)
    for i in range(m + 1):
        for j in range(n + 1):
            if i == 0 and j == 0:
                row[0] = 1.0
                continue
            k = i + j
            value = (row[j] * i / k if i else 0.0) + (row[j - 1] * j / k if j else 0.0)
            if block_end[k] and abs(i * n - j * m) >= d:
                value = 0.0
            row[j] = value
    return row[n]


def ks_two_sided_p(x, y, seed=0):
    """(p, how): the two-sided Kolmogorov-Smirnov p-value of samples x and
    y, exact with ties, and how it was obtained."""
    m, n = len(x), len(y)
    pooled, ends = _pooled(x, y)
    labels = [lab for _, lab in pooled]
    d = _ks_distance(labels, ends, m, n)
    if d == 0:
        return 1.0, "exact"
    if (m + 1) * (n + 1) <= KS_EXACT_CELLS:
        block_end = [False] * (m + n + 1)
        for e in ends:
            block_end[e] = True
        return max(0.0, min(1.0, 1.0 - _ks_inside_share(m, n, block_end, d))), "exact"
    # A permutation estimate: (hits + 1) / (draws + 1) never reports 0.
    rng = np.random.default_rng(seed)
    cuts = np.asarray(ends) - 1
    base = np.zeros(m + n, dtype=np.int64)
    base[m:] = 1
    hits = 0
    for _ in range(KS_PERMUTATIONS):
        lab = rng.permutation(base)
        j = np.cumsum(lab)[cuts]
        i = cuts + 1 - j
        hits += int(np.max(np.abs(i * n - j * m)) >= d)
    return (hits + 1) / (KS_PERMUTATIONS + 1), "permutation, %d splits" % KS_PERMUTATIONS


def _doubled_midranks(x, y):
    """Twice the midrank of every pooled value (integers), x's first."""
    r = stats.rankdata(list(x) + list(y))
    return [int(round(2 * v)) for v in r]


def _rank_sum_distribution(ranks2, m):
    """counts[s]: the share of the C(N, m) subsets of size m whose doubled
    rank sum is s (floats, normalized at the end; every count is at most
    C(N, m), well inside a double's range for the sizes counted)."""
    total = sum(sorted(ranks2)[-m:])
    f = np.zeros((m + 1, total + 1))
    f[0, 0] = 1.0
    for t, w in enumerate(ranks2, 1):
        for k in range(min(t, m), 0, -1):
            f[k, w:] += f[k - 1, :total + 1 - w]
    return f[m] / f[m].sum()


def wmw_p(x, y):
    """(p_greater, p_less, how): one-sided Wilcoxon-Mann-Whitney p-values
    that x tends to be larger (smaller) than y, exact with ties when the
    sizes allow, else the normal approximation."""
    m, n = len(x), len(y)
    ranks2 = _doubled_midranks(x, y)
    observed = sum(ranks2[:m])
    if (m + n) * m * (2 * (m + n) * m) <= WMW_EXACT_WORK:
        dist = _rank_sum_distribution(ranks2, m)
        greater = float(dist[observed:].sum())
        less = float(dist[:observed + 1].sum())
        return min(1.0, greater), min(1.0, less), "exact"
    greater = stats.mannwhitneyu(x, y, alternative="greater", method="asymptotic").pvalue
    less = stats.mannwhitneyu(x, y, alternative="less", method="asymptotic").pvalue
    return float(greater), float(less), "normal approximation"


def prob_x_greater(x, y):
    """The estimate of P[X > Y]: the share of (x, y) pairs with x > y,
    a tie counting one half."""
    m, n = len(x), len(y)
    ranks2 = _doubled_midranks(x, y)
    u = sum(ranks2[:m]) / 2 - m * (m + 1) / 2
    return u / (m * n)


def proportion_ci(k, n, alpha):
    """Clopper-Pearson's two-sided interval, confidence 1 - alpha, of a
    proportion of which k of n were seen."""
    if n <= 0:
        raise ValueError("a proportion of nothing")
    low = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return low, high
