"""The steps of one bench cell (a target and a strategy): scales of one Deployment, each a trial, and what
each new pod met.

Every pod of a strategy has a worker node of its own (required anti-affinity), so a cell needs more
trials than one scale to reach its pods per cell on 4 workers:
- single: SINGLE_TRIALS (5) new pods, one at a time: 0 -> 1 -> 2 -> ... up to the workers; the earlier
  pods stay, idle (each has had its first 100), until every worker has one; they are then fully warmed
  and the newest is scaled away, so the next trial's pod gets its node.
- scaleup: SCALEUP_TRIALS (2) scale-ups of 1 -> SCALEUP_TO; between two the Deployment goes back to 1
  (the ReplicaSet removes the newest pods) and waits until they are gone.
- sweep: SWEEP_PODS (5) new pods SWEEP_AT_ONCE (2) at a time (0 -> 2, back to 0, ...): the floor sweep's
  danki pods, judged against the run's pooled reference, so not fully warmed themselves.
- aot, boost, speed: one scale 0 -> N.
A trial's time runs from its `kubectl scale` to its last new pod Ready."""

import os
import time

import cpu
from kube import get_json, scale


def plan(section, workers):
    """The trials of SECTION as (from, to) replica counts, and after which trials the pods so far are fully
    warmed (their indexes)."""
    if section == "single":
        trials, steps, warm_after, n = int(os.environ.get("SINGLE_TRIALS", "5")), [], [], 0
        for k in range(trials):
            if n == workers:  # every node has a pod: warm them all, then free the newest one's node
                warm_after.append(len(steps) - 1)
                steps.append((n, n - 1))
                n -= 1
            steps.append((n, n + 1))
            n += 1
        return steps, warm_after + [len(steps) - 1]
    if section == "scaleup":
        to, steps = int(os.environ["SCALEUP_TO"]), []
        for k in range(int(os.environ.get("SCALEUP_TRIALS", "2"))):
            steps += ([(to, 1)] if k else []) + [(1, to)]
        return steps, [i for i, (a, b) in enumerate(steps) if b > a]
    if section == "sweep":
        left, at_once, steps = int(os.environ.get("SWEEP_PODS", "5")), int(os.environ.get("SWEEP_AT_ONCE", "2")), []
        while left > 0:
            batch = min(at_once, left)
            steps += ([(steps[-1][1], 0)] if steps else []) + [(0, batch)]
            left -= batch
        return steps, []
    n = int(os.environ.get({"aot": "AOT_PODS", "speed": "SPEED_PODS"}.get(section, "BOOST_PODS"), "1"))
    return [(0, n)], [0]


def start_replicas(section):
    return 1 if section == "scaleup" else 0


def run_trial(namespace, name, watch, n_from, n_to, timeout_s, pod_jar):
    """One scale of Deployment NAME; for a scale-up, waits until its new pods are Ready (or TIMEOUT_S)."""
    # every pod the watch has seen: those of an earlier trial are gone from the API, not from the watch
    before_pods = set(live_pods(namespace, name)) | set(watch.snapshot())
    before = cpu.snapshot(pod_jar)
    t_scale = time.time()
    scale(namespace, name, n_to)
    if n_to <= n_from:
        wait_gone(namespace, name, n_to)
        return None

    def new_ready(pods):
        return sum(1 for n, p in pods.items() if n not in before_pods and p["ready"])

    all_ready = watch.wait(lambda pods: new_ready(pods) >= n_to - n_from, timeout_s)
    t_end = time.time()
    spent = cpu.spent(before, cpu.snapshot(pod_jar))
    pods = sorted(n for n in watch.snapshot() if n not in before_pods)
    ready = [watch.snapshot()[n]["ready"] for n in pods if watch.snapshot()[n]["ready"]]
    return {"n_from": n_from, "n_to": n_to, "t_scale": t_scale, "pods": pods, "all_ready": all_ready,
            "all_ready_s": max(ready) - t_scale if all_ready and ready else None, "wall_s": t_end - t_scale,
            "cpu": spent}


def live_pods(namespace, name):
    return [p["metadata"]["name"] for p in get_json("-n", namespace, "pods", "-l", f"app={name}")["items"]
            if "deletionTimestamp" not in p["metadata"]]


def wait_gone(namespace, name, replicas, timeout_s=180):
    """After a scale-down: until only REPLICAS pods of NAME are left, terminating ones included, so the
    next trial's pods find their nodes free."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if len(get_json("-n", namespace, "pods", "-l", f"app={name}")["items"]) <= replicas:
            return
        time.sleep(0.5)
    raise RuntimeError(f"{name}: pods not gone {timeout_s} s after the scale to {replicas}")
