"""stop_rules.py on a synthetic trace: blocks as warmup.js cuts them, and a replay that stops where the rule would.

  python3 bench/warmup/stop_rules_test.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stop_rules  # noqa: E402


def trace(rate_of, n=4000):
    """A pod answering request i at the rate rate_of(i) per second, 2 ms each, its compiler threads spending
    half a CPU second per 1,000 requests, sampled every second."""
    answers, t = [], 100.0
    for i in range(n):
        t += 1 / rate_of(i)
        answers.append([t, 2.0])
    samples = [{"t": 100.0 + s, "pod": {"cpu_s": s * 0.35}, "jit": {"compiler_s": 0.0005 * sum(
        1 for a in answers if a[0] <= 100.0 + s)}, "mxbean_ms": None} for s in range(int(t - 100) + 2)]
    return {"target": "fake", "answers": answers, "samples": samples, "t_end": t, "requests": n}


class StopRulesTest(unittest.TestCase):
    def test_blocks_carry_their_throughput_and_the_hosts_view(self):
        blocks = stop_rules.blocks(trace(lambda i: 100.0), 200)
        self.assertEqual(len(blocks), 20)
        self.assertAlmostEqual(blocks[3]["throughput"], 100.0, places=3)
        self.assertAlmostEqual(blocks[3]["cpu_ms_per_request"], 3.5, places=2)
        self.assertEqual(blocks[-1]["requests"], 4000)

    def test_at_a_fixed_share_the_cpu_plateau_stops_where_the_throughput_rule_does(self):
        # the pod's CPU is fixed (0.35 CPU s per s), so its cost per request is the inverse of its throughput
        blocks = stop_rules.blocks(trace(lambda i: 50.0 + min(i, 1600) / 16), 200)
        throughput = stop_rules.replay(blocks, stop_rules.windows("t", "throughput", 3, 0.1, 300))
        cost = stop_rules.replay(blocks, stop_rules.windows("c", "cpu_ms_per_request", 3, 0.1, 300, better="lower"))
        self.assertEqual(cost, throughput)

    def test_a_halved_share_stops_the_throughput_rule_early_and_not_the_cpu_plateau(self):
        blocks = stop_rules.blocks(trace(lambda i: 50.0 + min(i, 2400) / 16), 200)
        halved = stop_rules.with_share(blocks, lambda requests: 0.5 if requests > 1000 else 1.0)
        self.assertAlmostEqual(halved[-1]["throughput"], blocks[-1]["throughput"] / 2)
        self.assertEqual(halved[-1]["cpu_ms_per_request"], blocks[-1]["cpu_ms_per_request"])
        throughput = stop_rules.replay(halved, stop_rules.windows("t", "throughput", 3, 0.1, 300))
        cost = stop_rules.replay(halved, stop_rules.windows("c", "cpu_ms_per_request", 3, 0.1, 300, better="lower"))
        self.assertLess(halved[throughput]["requests"], 1800)
        self.assertGreaterEqual(halved[cost]["requests"], 3000)

    def test_the_default_rule_stops_two_windows_after_the_throughput_flattens(self):
        # rising until request 1,600, flat after: the windows of 3 blocks are flat from 2,800 on
        blocks = stop_rules.blocks(trace(lambda i: 50.0 + min(i, 1600) / 16), 200)
        rule = stop_rules.windows("default", "throughput", 3, 0.1, 300)
        stop = stop_rules.replay(blocks, rule)
        self.assertIsNotNone(stop)
        self.assertGreaterEqual(blocks[stop]["requests"], 2200)
        self.assertLessEqual(blocks[stop]["requests"], 2800)

    def test_a_floor_holds_the_rule_back(self):
        blocks = stop_rules.blocks(trace(lambda i: 100.0), 200)
        self.assertEqual(blocks[stop_rules.replay(blocks, stop_rules.windows("f", "throughput", 3, 0.1, 300))]["requests"],
                         1200)
        self.assertEqual(blocks[stop_rules.replay(blocks, stop_rules.windows("f", "throughput", 3, 0.1, 2000))]["requests"],
                         2000)


if __name__ == "__main__":
    unittest.main()
