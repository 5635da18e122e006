"""How the demo's WarmupRun table says its passes were measured (report.protocols)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report import protocols  # noqa: E402


def run(cold, warm):
    return {"metadata": {"name": "p"}, "spec": {"podName": "p"}, "status": {"cold": cold, "warm": warm}}


class ProtocolsTest(unittest.TestCase):
    def test_cold_figures_from_the_warm_up_and_an_open_warm_pass_are_named_as_such(self):
        runs = [run({"source": "warmup", "requests": 100, "concurrency": 4},
                    {"source": "open", "requests": 100, "ratePerSecond": 20})] * 2
        self.assertEqual(protocols(runs), "cold: the warm-up's first 100, 4 in flight; warm: 100 at 20/s")

    def test_the_default_warm_pass_is_closed_like_the_cold_figures(self):
        runs = [run({"source": "warmup", "requests": 100, "concurrency": 4},
                    {"source": "closed", "requests": 100, "concurrency": 4})]
        self.assertEqual(protocols(runs), "cold: the warm-up's first 100, 4 in flight; warm: 100, 4 in flight")

    def test_runs_of_an_operator_before_the_protocol_was_recorded_say_unknown(self):
        self.assertEqual(protocols([run({"p95": 10}, {"p95": 1})]), "cold: ?; warm: ?")


if __name__ == "__main__":
    unittest.main()
