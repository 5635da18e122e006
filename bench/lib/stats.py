"""Figures with their uncertainty: percentiles as k6 computes them, medians over pods, and bootstrap 95 %
intervals, so that the bench says whether two strategies differ beyond the noise of a few pods.

A bootstrap resamples whole units (pods, or passes of 100 requests), never single requests: the requests
of one pass share its pod's JVM, node and moment, so resampling them one by one would pretend to far
more independent evidence than a run has. The random generator is seeded, so a report re-rendered from
the same records shows the same intervals.
"""

import math
import random
import statistics

RESAMPLES = 2000
LEVEL = 0.95


def percentile(values, pct):
    """k6's TrendSink.P: linear interpolation between the closest ranks, over n - 1."""
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    i = pct / 100.0 * (len(ordered) - 1)
    lo, hi = ordered[int(math.floor(i))], ordered[int(math.ceil(i))]
    return lo + (hi - lo) * (i - math.floor(i))


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _interval(estimates):
    estimates = sorted(e for e in estimates if e is not None)
    if not estimates:
        return None
    lo = (1 - LEVEL) / 2 * 100
    return [percentile(estimates, lo), percentile(estimates, 100 - lo)]


def median_interval(values, seed=1):
    """The median of VALUES (one per pod) and its bootstrap 95 % interval over the pods; None for no values."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    rng = random.Random(seed)
    estimates = [statistics.median(rng.choices(values, k=len(values))) for _ in range(RESAMPLES)]
    return {"value": statistics.median(values), "ci95": _interval(estimates), "n": len(values)}


def pooled_percentile_interval(groups, pct, seed=1):
    """The PCT percentile of every sample of GROUPS (lists of latencies, e.g. one per pass) pooled, and its
    bootstrap 95 % interval from resampling whole groups."""
    groups = [g for g in groups if g]
    if not groups:
        return None
    rng = random.Random(seed)
    pooled = [v for g in groups for v in g]
    estimates = []
    for _ in range(RESAMPLES):
        sample = rng.choices(groups, k=len(groups))
        estimates.append(percentile([v for g in sample for v in g], pct))
    return {"value": percentile(pooled, pct), "ci95": _interval(estimates), "groups": len(groups),
            "samples": len(pooled)}


def ratio_interval(a, b, seed=1):
    """The ratio of the medians of A and B (independent pods) and its bootstrap 95 % interval; `differs`
    when that interval leaves out 1, i.e. the two differ beyond the noise of their pods."""
    a, b = [v for v in a if v is not None], [v for v in b if v is not None]
    if not a or not b or statistics.median(b) == 0:
        return None
    rng = random.Random(seed)
    estimates = []
    for _ in range(RESAMPLES):
        denominator = statistics.median(rng.choices(b, k=len(b)))
        if denominator:
            estimates.append(statistics.median(rng.choices(a, k=len(a))) / denominator)
    ci = _interval(estimates)
    return {"value": statistics.median(a) / statistics.median(b), "ci95": ci,
            "differs": ci is not None and (ci[0] > 1 or ci[1] < 1)}


def relative_half_width(interval):
    """How wide an interval is around its value: the larger of its two sides as a share of the value."""
    if not interval or not interval.get("ci95") or not interval["value"]:
        return None
    lo, hi = interval["ci95"]
    return max(interval["value"] - lo, hi - interval["value"]) / interval["value"]
