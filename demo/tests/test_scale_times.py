"""Unit tests of report.py's scale-up times: when each Deployment first had every pod Ready."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import report  # noqa: E402


def pod(app, n, ready, deleting=False):
    return {"name": f"{app}-{n}", "app": app, "ready": ready, "deleting": deleting}


class ScaleTimesTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        with open(os.path.join(self.out, "meta.env"), "w") as f:
            f.write("replicas=2\n")

    def timeline(self, *polls):
        with open(os.path.join(self.out, "timeline.jsonl"), "w") as f:
            for t, pods in polls:
                f.write(json.dumps({"t": t, "pods": pods}) + "\n")

    def test_the_first_poll_with_every_wanted_pod_ready_and_none_extra(self):
        self.timeline(
            (2.0, [pod("exam-cold", 1, True), pod("exam-cold", 2, False), pod("exam-warm", 1, True)]),
            # a terminating extra pod does not count; a third live one would
            (4.5, [pod("exam-cold", 1, True), pod("exam-cold", 2, True), pod("exam-cold", 3, True, deleting=True),
                   pod("exam-warm", 1, True), pod("exam-warm", 2, False)]),
            (9.0, [pod("exam-cold", 1, True), pod("exam-cold", 2, True),
                   pod("exam-warm", 1, True), pod("exam-warm", 2, True), pod("exam-warm", 3, True)]),
            (11.0, [pod("exam-cold", 1, True), pod("exam-cold", 2, True),
                    pod("exam-warm", 1, True), pod("exam-warm", 2, True)]),
        )
        self.assertEqual(report.all_ready_at(self.out, "exam-cold", 2), 4.5)
        self.assertEqual(report.all_ready_at(self.out, "exam-warm", 2), 11.0)
        text = report.scale_times(self.out)
        self.assertIn("(1 -> 2)", text)
        self.assertIn("exam-cold     4.5 s", text)
        self.assertIn("exam-warm    11.0 s", text)

    def test_never_all_ready_is_said_not_hidden(self):
        self.timeline((3.0, [pod("exam-cold", 1, True), pod("exam-cold", 2, True), pod("exam-warm", 1, False)]))
        self.assertIsNone(report.all_ready_at(self.out, "exam-warm", 2))
        self.assertIn("exam-warm    not all Ready before the demo's timeout", report.scale_times(self.out))


if __name__ == "__main__":
    unittest.main()
