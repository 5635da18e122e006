"""The soak's workload: which Deployments churn, on what seeded schedule, and what became of every pod.

Four sample-service Deployments opted in with short warm-ups, and two that always fail (http-status
answering 500), one per failure policy. Every cycle each gets a replica count drawn from a seeded
random generator, so two runs with the same seed scale the same way. `ClusterView` polls the pods and
WarmupRuns and keeps, per pod, when its containers got ready and how (and when) danki decided its gate.
"""

import calendar
import dataclasses
import random
import time

from kube import get_json
from manifests import danki_annotations, deployment
from targets import SAMPLE

NAMESPACE = "danki-soak"
GATE = "danki.dev/warmed"
DECIDED = {"WarmedUp": "warmed", "WarmupFailedOpen": "failed_open", "WarmupFailed": "failed_closed",
           "WarmupDisabled": "disabled"}
"""Gate reasons that end a pod's warm-up (operator Keys.GateReasons); ContainerRestarted starts another."""

SAMPLE_DEPLOYMENTS = ("soak-a", "soak-b", "soak-c", "soak-d")
FAILING = {"soak-fail-open": "open", "soak-fail-closed": "closed"}
SAMPLE_MAX, FAILING_MAX = 2, 1
"""Replicas drawn per cycle: at most 8 JVM pods at once, which two cores start and warm within a cycle."""
SAMPLE_PATHS = "GET /exams/1; GET /exams/2"
SHORT_WARMUP = {"danki.dev/min-warmup-requests": "300", "danki.dev/max-warmup-requests": "1500"}
FAILING_TIMEOUT_S = 15
SAMPLE_TIMEOUT_S = 300
"""danki.dev/timeout of the failing targets, and danki's default timeout that the sample ones keep."""


def sample_deployment(name):
    extra = {**SHORT_WARMUP, "danki.dev/paths": SAMPLE_PATHS}
    return deployment(SAMPLE, name, 0, annotations=danki_annotations(SAMPLE, extra=extra))


def failing_deployment(name, policy):
    """http-status answering 500 to everything: every warm-up attempt fails on errors until the timeout."""
    d = deployment(dataclasses.replace(SAMPLE, image="danki/http-status:dev"), name, 0, annotations={
        "danki.dev/warmup": "enabled", "danki.dev/port": "http", "danki.dev/paths": "GET /",
        "danki.dev/timeout": f"{FAILING_TIMEOUT_S}s", "danki.dev/failure-policy": policy})
    container = d["spec"]["template"]["spec"]["containers"][0]
    container["env"].append({"name": "STATUS", "value": "500"})
    # every HTTP answer is a 500, so the probes check the socket instead
    container["readinessProbe"] = {"tcpSocket": {"port": "http"}, "periodSeconds": 1}
    container["livenessProbe"] = {"tcpSocket": {"port": "http"}, "periodSeconds": 10}
    container["resources"]["requests"] = {"cpu": "10m", "memory": "32Mi"}
    return d


def manifests():
    return [sample_deployment(n) for n in SAMPLE_DEPLOYMENTS] + [failing_deployment(n, p) for n, p in FAILING.items()]


def schedule(seed, cycles):
    """Replicas per Deployment for each cycle, the same for the same seed."""
    rng = random.Random(seed)
    plan = []
    for _ in range(cycles):
        step = {n: rng.randint(0, SAMPLE_MAX) for n in SAMPLE_DEPLOYMENTS}
        step.update({n: rng.randint(0, FAILING_MAX) for n in FAILING})
        plan.append(step)
    return plan


def timeout_of(deployment_name):
    return FAILING_TIMEOUT_S if deployment_name in FAILING else SAMPLE_TIMEOUT_S


def api_time(stamp):
    """An API server timestamp (second resolution, UTC) as epoch seconds."""
    return calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")) if stamp else None


class ClusterView:
    """Every pod of the soak's namespace seen so far, by UID, with its WarmupRun's last status."""

    def __init__(self):
        self.pods = {}

    def poll(self, cycle):
        now = time.time()
        seen = set()
        runs = {r["spec"].get("podName"): r.get("status") or {}
                for r in get_json("-n", NAMESPACE, "warmupruns")["items"]}
        for p in get_json("-n", NAMESPACE, "pods")["items"]:
            meta, status = p["metadata"], p.get("status") or {}
            uid = meta["uid"]
            seen.add(uid)
            pod = self.pods.setdefault(uid, {
                "name": meta["name"], "deployment": meta.get("labels", {}).get("app"), "cycle": cycle,
                "created": api_time(meta["creationTimestamp"]), "first_seen": now, "gone": None,
                "containers_ready": None, "decision": None, "decided": None, "gate_reason": None, "run": None})
            pod["last_seen"] = now
            conditions = {c["type"]: c for c in status.get("conditions") or []}
            ready = conditions.get("ContainersReady")
            if ready and ready.get("status") == "True" and pod["containers_ready"] is None:
                pod["containers_ready"] = api_time(ready.get("lastTransitionTime"))
            gate = conditions.get(GATE)
            if gate:
                pod["gate_reason"] = gate.get("reason")
                if gate.get("reason") in DECIDED and pod["decision"] is None:
                    pod["decision"] = DECIDED[gate["reason"]]
                    pod["decided"] = api_time(gate.get("lastTransitionTime"))
            pod["restarts"] = sum(c.get("restartCount", 0) for c in status.get("containerStatuses") or [])
            if meta["name"] in runs:
                run = runs[meta["name"]]
                pod["run"] = {k: run.get(k) for k in ("phase", "reason", "stopReason", "attempts", "duration",
                                                       "queueWait", "reactionMillis")}
        for uid, pod in self.pods.items():
            if uid not in seen and pod["gone"] is None:
                pod["gone"] = now
        return now

    def stuck(self, now, grace_s=60):
        """Pods still here whose containers have been ready for longer than their timeout plus GRACE_S,
        with no decision: what danki promises never to leave."""
        return [p["name"] for p in self.pods.values()
                if p["gone"] is None and p["decision"] is None and p["containers_ready"]
                and now - p["containers_ready"] > timeout_of(p["deployment"]) + grace_s]

    def pending(self):
        """Pods still here whose containers are ready and that danki has not decided yet."""
        return [p["name"] for p in self.pods.values()
                if p["gone"] is None and p["decision"] is None and p["containers_ready"]]
