"""95 % confidence intervals for simulation and tournament summaries.

Two intervals, both from the standard library's `statistics.NormalDist`
(its quantile gives z = 1.959964 for 95 %):

- `wilson` — the Wilson score interval of a proportion (win rates, bust
  and Flip 7 rates): it stays inside [0, 1] and behaves near 0 and 1, where the
  plain normal interval does not.
- `mean_interval` — the normal interval of a mean, ``mean ± z·s/√n`` with
  ``s`` the sample standard deviation.  With the hundreds of games a summary
  rests on, Student's t quantile differs from z in the third decimal at most
  (t = 1.984 for n = 100, 1.962 for n = 1000).
- `difference` — the normal interval of the difference of two
  independent estimates.
- `paired` — the normal interval of the mean of paired differences (two
  runs over the same deals, as every reading of a tournament sweep replays
  the baseline's deals: "how much a reading changes it").

Every function returns ``(low, high)`` floats; with no data, ``(nan, nan)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

LEVEL = 0.95
Z = NormalDist().inv_cdf(0.5 + LEVEL / 2)  # 1.959963984540054
_NAN = (math.nan, math.nan)


def wilson(successes: int | float, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of ``successes`` out of ``n`` trials (fractions of 1)."""
    if n <= 0:
        return _NAN
    p = successes / n
    z2 = Z * Z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if successes <= 0 else max(0.0, centre - half)  # exactly 0 and 1 at the ends (no rounding dust)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return (low, high)


def mean_interval(n: int, total: float, squares: float) -> tuple[float, float]:
    """The 95 % normal interval of a mean from ``n`` values, their sum and the sum
    of their squares (a single value: the mean itself on both sides)."""
    if n <= 0:
        return _NAN
    mean = total / n
    if n == 1:
        return (mean, mean)
    variance = max(0.0, (squares - total * total / n) / (n - 1))
    half = Z * math.sqrt(variance / n)
    return (mean - half, mean + half)


def half_width(interval: tuple[float, float]) -> float:
    """Half the width of an interval."""
    return (interval[1] - interval[0]) / 2


def difference(a: float, a_half: float, b: float, b_half: float) -> tuple[float, float, float]:
    """``(b - a, low, high)``: the difference of two independent estimates and its
    95 % normal interval, from each estimate's 95 % half-width (standard errors
    add in quadrature)."""
    d = b - a
    half = math.hypot(a_half, b_half)
    return (d, d - half, d + half)


def paired(differences: Sequence[float]) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of paired differences (one per deal: the same deal
    played under two readings) and its 95 % normal interval, ``mean ± z·s/√n`` with ``s``
    the differences' sample standard deviation.  Differences that are all equal (all 0:
    the reading changed nothing) give an interval of width 0; no differences give nans.
    """
    n = len(differences)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    total = math.fsum(differences)
    low, high = mean_interval(n, total, math.fsum(d * d for d in differences))
    mean = total / n
    if all(d == differences[0] for d in differences):  # no spread: no rounding dust either
        return (mean, mean, mean)
    return (mean, low, high)
