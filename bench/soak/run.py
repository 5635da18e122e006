"""`make soak`: does danki stay flat under churn? SOAK_MINUTES of Deployments scaled up and down on a
seeded schedule, some of them failing every warm-up, with the operator's RSS, heap, open files, threads
and k6 processes sampled every SOAK_SAMPLE_S seconds. Writes bench/results/soak.json (every sample,
every pod's outcome) and soak.md (report.py: tables per 5 minutes, charts and the computed verdict).

It starts local-cluster instance CLUSTER_INSTANCE (6) and installs the chart there, as `make bench`
does (one replica, the shipped heap ceiling), and always tears both down again, k6 processes included.

Env: SOAK_MINUTES (30), SOAK_CYCLE_S (90: one scale step), SOAK_SAMPLE_S (12), SOAK_SEED (13),
     SOAK_TAIL_S (60: quiet time after the last scale to 0), SOAK_RESULTS (bench/results/soak.md),
     CLUSTER_INSTANCE (6), KEEP=1 keeps the cluster. Set by the Makefile: REPO, KUBECTL, HELM, MAKE.
"""

import json
import math
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "lib"), os.path.join(HERE, "..", "targets")]
from targets import REPO  # noqa: E402

INSTANCE = os.environ.get("CLUSTER_INSTANCE", "6")
os.environ["KUBECONFIG"] = os.path.join(REPO, ".cluster", f"instance-{INSTANCE}", "admin.kubeconfig")

import churn  # noqa: E402
import operator_pod  # noqa: E402
import report  # noqa: E402
from kube import apply, kubectl, scale  # noqa: E402
from probe import Probe  # noqa: E402

MINUTES = float(os.environ.get("SOAK_MINUTES", "30"))
CYCLE_S = float(os.environ.get("SOAK_CYCLE_S", "90"))
SAMPLE_S = float(os.environ.get("SOAK_SAMPLE_S", "12"))
SEED = int(os.environ.get("SOAK_SEED", "13"))
TAIL_S = float(os.environ.get("SOAK_TAIL_S", "60"))
RESULTS = os.environ.get("SOAK_RESULTS", os.path.join(REPO, "bench", "results", "soak.md"))
MAKE = os.environ.get("MAKE", "make")
OUT = os.path.join(REPO, ".work", "soak")


def log(message):
    print(f"    [{time.strftime('%H:%M:%S')}] {message}", flush=True)


def cluster_up():
    """Starts the instance unless it answers; True when this run started it (and so stops it)."""
    if kubectl("get", "--raw=/readyz", check=False, timeout=10).strip() == "ok":
        log(f"local cluster instance {INSTANCE} already runs: using it, and leaving it running")
        return False
    subprocess.run([MAKE, "-C", REPO, "--no-print-directory", "cluster-up", f"CLUSTER_INSTANCE={INSTANCE}"],
                   check=True, timeout=600)
    return True


def on_signal(signum, _frame):
    raise SystemExit(128 + signum)


class Soak:
    def __init__(self):
        self.samples, self.cycles = [], []
        self.view = churn.ClusterView()
        self.operator = None
        self.probe = None
        self.restarts = []
        self.machine = operator_pod.machine()  # at the start: the commit that runs, not one made meanwhile

    def setup(self):
        operator_pod.install()
        self.operator = operator_pod.find()
        self.probe = Probe(self.operator["pid"], self.operator["metrics_url"], operator_pod.INSTANCE_CGROUP, REPO)
        log(f"operator {self.operator['pod']} pid {self.operator['pid']} at {self.operator['metrics_url']}")
        kubectl("create", "namespace", churn.NAMESPACE, check=False)
        apply(churn.NAMESPACE, *churn.manifests())
        for name in list(churn.SAMPLE_DEPLOYMENTS) + list(churn.FAILING):
            operator_pod.wait_gate(churn.NAMESPACE, name)

    def sample(self, cycle, kind, live=False):
        s = self.probe.sample()
        if not s["alive"]:
            self.restarts.append({"t": s["t"], "old_pid": self.operator["pid"]})
            log(f"operator pid {self.operator['pid']} is gone: looking for its successor")
            self.probe.close()
            self.operator = operator_pod.find()
            self.probe = Probe(self.operator["pid"], self.operator["metrics_url"], operator_pod.INSTANCE_CGROUP, REPO)
            s = self.probe.sample()
        if live:
            s.update(self.probe.live_set())
        now = self.view.poll(cycle)
        s.update(cycle=cycle, kind=kind, pending=len(self.view.pending()), stuck=self.view.stuck(now),
                 pods=sum(1 for p in self.view.pods.values() if p["gone"] is None))
        self.samples.append(s)
        return s

    def churn(self):
        cycles = max(1, math.ceil(MINUTES * 60 / CYCLE_S))
        plan = churn.schedule(SEED, cycles)
        t0 = time.time()
        self.sample(-1, "baseline", live=True)
        for i, step in enumerate(plan):
            start = t0 + i * CYCLE_S
            if i:
                end_sample = self.sample(i - 1, "cycle_end", live=True)
                self.cycles[-1]["end"] = end_sample["t"]
                log(f"cycle {i - 1} end: k6 {end_sample['k6']}, pending {end_sample['pending']}, "
                    f"in progress {end_sample.get('warmups_in_progress')}, rss {end_sample.get('rss_bytes', 0) >> 20} MiB, "
                    f"live heap {end_sample.get('live_bytes', 0) / 1048576:.1f} MiB {end_sample.get('live_error', '')}")
            for name, replicas in step.items():
                scale(churn.NAMESPACE, name, replicas)
            self.cycles.append({"index": i, "start": time.time(), "replicas": step})
            next_sample = start + SAMPLE_S
            while next_sample < start + CYCLE_S - SAMPLE_S / 3:
                time.sleep(max(0.0, next_sample - time.time()))
                self.sample(i, "churn")
                next_sample += SAMPLE_S
            time.sleep(max(0.0, start + CYCLE_S - time.time()))
        self.cycles[-1]["end"] = self.sample(len(plan) - 1, "cycle_end", live=True)["t"]

    def tail(self):
        """Everything to 0, then quiet: every k6 process and pod should be gone."""
        for name in list(churn.SAMPLE_DEPLOYMENTS) + list(churn.FAILING):
            scale(churn.NAMESPACE, name, 0)
        end = time.time() + TAIL_S
        while time.time() < end:
            time.sleep(SAMPLE_S)
            self.sample(len(self.cycles), "tail", live=time.time() + SAMPLE_S >= end)

    def record(self, started, finished, note):
        return {
            "settings": {"minutes": MINUTES, "cycle_s": CYCLE_S, "sample_s": SAMPLE_S, "seed": SEED, "tail_s": TAIL_S,
                         "cluster_instance": INSTANCE, "namespace": churn.NAMESPACE,
                         "sample_deployments": list(churn.SAMPLE_DEPLOYMENTS), "failing": churn.FAILING,
                         "sample_annotations": churn.sample_deployment("x")["metadata"]["annotations"],
                         "failing_timeout_s": churn.FAILING_TIMEOUT_S, "operator_java_options": operator_pod.JAVA_OPTIONS},
            "machine": self.machine, "started": started, "finished": finished, "note": note,
            "operator": self.operator, "operator_restarts": self.restarts,
            "operator_log": operator_pod.log_summary(self.operator, OUT) if self.operator else None,
            "cycles": self.cycles, "samples": self.samples, "pods": list(self.view.pods.values()),
        }


def main():
    os.makedirs(OUT, exist_ok=True)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    started_cluster, soak, note = False, Soak(), None
    started = time.time()
    try:
        started_cluster = True  # set first, so a half-started cluster is torn down too
        started_cluster = cluster_up()
        soak.setup()
        log(f"churn for {MINUTES:g} min: a step every {CYCLE_S:g} s, a sample every {SAMPLE_S:g} s, seed {SEED}")
        soak.churn()
        soak.tail()
    except BaseException as e:  # still write what was measured, then re-raise
        note = f"stopped early: {type(e).__name__}: {e}"
        log(note)
        raise
    finally:
        if soak.samples:
            data = soak.record(started, time.time(), note)
            json_path = os.path.splitext(RESULTS)[0] + ".json"
            with open(json_path, "w") as f:
                json.dump(data, f, indent=1)
            with open(RESULTS, "w") as f:
                f.write(report.render(data))
            log(f"wrote {RESULTS} and {json_path}")
        if soak.probe:
            soak.probe.close()
        operator_pod.cleanup(soak.operator, keep=os.environ.get("KEEP") == "1")
        if started_cluster and os.environ.get("KEEP") != "1":
            subprocess.run([MAKE, "-C", REPO, "--no-print-directory", "cluster-down", f"CLUSTER_INSTANCE={INSTANCE}"],
                           timeout=300, check=False)
        log(f"soak finished in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
