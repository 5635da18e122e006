"""Unit tests of demo/pod_trouble.py: which pod states stop the demo, and which are only slow."""

import datetime
import io
import json
import os
import sys
import unittest
from contextlib import redirect_stdout
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import pod_trouble  # noqa: E402

NOW = datetime.datetime(2026, 11, 26, 12, 0, 0, tzinfo=datetime.timezone.utc)


def pod(name="p", phase="Pending", containers=(), conditions=(), deleting=False):
    meta = {"namespace": "ns", "name": name}
    if deleting:
        meta["deletionTimestamp"] = "2026-11-26T11:59:00Z"
    return {"metadata": meta, "status": {"phase": phase, "containerStatuses": list(containers), "conditions": list(conditions)}}


def waiting(reason, message="", restarts=0, last_exit=None):
    status = {"name": "app", "restartCount": restarts, "state": {"waiting": {"reason": reason, "message": message}}}
    if last_exit is not None:
        status["lastState"] = {"terminated": {"exitCode": last_exit, "reason": "Error"}}
    return status


def ago(seconds):
    return (NOW - datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def unschedulable(seconds_ago):
    return {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes: Insufficient cpu", "lastTransitionTime": ago(seconds_ago)}


def no_sandbox(seconds_ago):
    # as the kubelet (1.37) writes it while it cannot make the sandbox
    return {"type": "PodReadyToStartContainers", "status": "False", "reason": "PodSandboxNotReady", "message": "no pod sandbox exists",
            "lastTransitionTime": ago(seconds_ago)}


class PodTroubleTest(unittest.TestCase):
    def find(self, *pods):
        return pod_trouble.troubles(list(pods), NOW, unschedulable_grace=30)

    def test_crash_loop_names_the_container_and_its_last_exit(self):
        found = self.find(pod(containers=[waiting("CrashLoopBackOff", "back-off 10s", restarts=2, last_exit=111)]))
        self.assertEqual(found, [("ns", "p", "app", 2, "CrashLoopBackOff", "exit 111 (Error) back-off 10s")])

    def test_image_and_config_errors_stop_the_demo(self):
        for reason in ("ErrImagePull", "ImagePullBackOff", "CreateContainerConfigError", "RunContainerError"):
            with self.subTest(reason=reason):
                self.assertEqual(self.find(pod(containers=[waiting(reason)]))[0][4], reason)

    def test_an_image_the_registry_lacks_stops_the_demo_with_the_pull_message(self):
        # the kubelet's message when the local cluster's registry answers 404 (kubelet 1.37, containerd 1.6)
        message = ('rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/danki/no-such-image:dev": failed to resolve reference '
                   '"docker.io/danki/no-such-image:dev": docker.io/danki/no-such-image:dev: not found')
        for reason in ("ErrImagePull", "ImagePullBackOff"):
            with self.subTest(reason=reason):
                found = self.find(pod(containers=[waiting(reason, message)]))
                self.assertEqual(found, [("ns", "p", "app", 0, reason, message)])

    def test_a_starting_pod_is_not_trouble(self):
        self.assertEqual(self.find(pod(containers=[waiting("ContainerCreating")]), pod(phase="Running")), [])

    def test_a_failed_pod_is_trouble(self):
        self.assertEqual(self.find(pod(phase="Failed"))[0][2:5], ("-", 0, "Failed"))

    def test_unschedulable_only_after_the_grace_period(self):
        self.assertEqual(self.find(pod(conditions=[unschedulable(10)])), [])
        self.assertEqual(self.find(pod(conditions=[unschedulable(31)]))[0][4], "Unschedulable")

    def test_a_pod_without_a_sandbox_only_after_the_grace_period(self):
        self.assertEqual(self.find(pod(conditions=[no_sandbox(60)], containers=[waiting("ContainerCreating")])), [])
        found = self.find(pod(conditions=[no_sandbox(91)], containers=[waiting("ContainerCreating")]))
        self.assertEqual(found, [("ns", "p", "-", 0, "PodSandboxNotReady", "no pod sandbox exists after 91 s (its Events say why)")])

    def test_a_running_pod_whose_sandbox_went_is_not_start_up_trouble(self):
        self.assertEqual(self.find(pod(phase="Running", conditions=[no_sandbox(300)])), [])

    def test_a_pod_being_deleted_is_left_alone(self):
        self.assertEqual(self.find(pod(deleting=True, containers=[waiting("CrashLoopBackOff")])), [])

    def test_main_prints_tab_separated_lines_and_exits_3(self):
        pods = {"items": [pod(containers=[waiting("CrashLoopBackOff", "back-off\n10s", restarts=1, last_exit=1)])]}
        out = io.StringIO()
        with mock.patch("sys.stdin", io.StringIO(json.dumps(pods))), redirect_stdout(out):
            self.assertEqual(pod_trouble.main([]), 3)
        self.assertEqual(out.getvalue(), "ns\tp\tapp\t1\tCrashLoopBackOff\texit 1 (Error) back-off 10s\n")

    def test_main_exits_0_without_trouble_and_2_on_bad_input(self):
        with mock.patch("sys.stdin", io.StringIO('{"items": []}')):
            self.assertEqual(pod_trouble.main([]), 0)
        with mock.patch("sys.stdin", io.StringIO("not json")), redirect_stdout(io.StringIO()), mock.patch("sys.stderr", io.StringIO()):
            self.assertEqual(pod_trouble.main([]), 2)


if __name__ == "__main__":
    unittest.main()
