"""bench/lib/stats.py: percentiles as k6 computes them, and bootstrap intervals that resample whole units.

  python3 bench/warmup/stats_test.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import stats  # noqa: E402


class StatsTest(unittest.TestCase):
    def test_percentile_interpolates_between_closest_ranks_like_k6(self):
        self.assertEqual(stats.percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50), 5.5)
        self.assertAlmostEqual(stats.percentile(list(range(1, 101)), 95), 95.05)
        self.assertIsNone(stats.percentile([], 95))

    def test_a_median_of_identical_pods_has_no_width(self):
        m = stats.median_interval([10.0] * 5)
        self.assertEqual((m["value"], m["ci95"], m["n"]), (10.0, [10.0, 10.0], 5))

    def test_the_interval_holds_the_median_and_narrows_with_more_pods(self):
        few = stats.median_interval([8, 10, 12, 14, 30])
        many = stats.median_interval([8, 10, 12, 14, 30] * 6)
        self.assertLessEqual(few["ci95"][0], few["value"])
        self.assertGreaterEqual(few["ci95"][1], few["value"])
        self.assertLess(many["ci95"][1] - many["ci95"][0], few["ci95"][1] - few["ci95"][0])

    def test_the_same_records_give_the_same_interval(self):
        self.assertEqual(stats.median_interval([3, 1, 4, 1, 5, 9, 2]), stats.median_interval([3, 1, 4, 1, 5, 9, 2]))

    def test_pooling_resamples_passes_not_requests(self):
        # one pass of 100 slow answers among nine fast ones: resampling whole passes leaves some samples
        # without it (P95 at the fast passes' slowest) and some with it twice, so the interval is wide
        passes = [[1.0] * 95 + [2.0] * 5] * 9 + [[50.0] * 100]
        pooled = stats.pooled_percentile_interval(passes, 95)
        self.assertEqual((pooled["groups"], pooled["samples"]), (10, 1000))
        self.assertEqual(pooled["value"], 50.0)
        self.assertLessEqual(pooled["ci95"][0], 2.0)
        self.assertGreater(stats.relative_half_width(pooled), 0.5)

    def test_a_ratio_differs_only_when_its_interval_leaves_out_one(self):
        slower = stats.ratio_interval([10, 11, 12, 13, 14], [2, 2.1, 2.2, 2.3, 2.4])
        self.assertTrue(slower["differs"])
        self.assertGreater(slower["ci95"][0], 1)
        overlapping = stats.ratio_interval([1, 2, 3, 4, 5], [1.5, 2, 3, 4, 6])
        self.assertFalse(overlapping["differs"])
        self.assertIsNone(stats.ratio_interval([], [1]))


if __name__ == "__main__":
    unittest.main()
