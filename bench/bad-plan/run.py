"""`make bench-bad-plan`: how soon is a pod whose Deployment's warm-up plan is invalid decided, when many
Deployments scale at once? 40 Deployments of one `danki/http-status:dev` pod each, scaled 0 -> 1 in one
kubectl call: 28 with an invalid plan (policy open: released at once), 8 with a valid plan and 4 whose
target answers 500 (both take warm-up slots, the failing ones through every retry). A `kubectl get -w`
timestamps, on the host clock, each pod's ContainersReady, the first `danki.dev/warmed` condition
(danki's decision) and Ready.

The operator runs as a host process (`java -jar OPERATOR_JAR`, as the operator E2E runs it), so the
same harness measures an older build: OPERATOR_JAR=/path/to/old/operator-all.jar LABEL="before".
Appends one record per run to bench/results/bad-plan.json and renders bench/results/bad-plan.md.

Env: CLUSTER_INSTANCE (11), OPERATOR_JAR (operator/target/operator-all.jar), LABEL (the commit),
     KEEP=1 keeps the cluster. Set by the Makefile: REPO, KUBECTL, K6.
"""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "lib"), os.path.join(HERE, "..", "targets")]
from targets import REPO  # noqa: E402

INSTANCE = os.environ.get("CLUSTER_INSTANCE", "11")
os.environ["KUBECONFIG"] = os.path.join(REPO, ".cluster", f"instance-{INSTANCE}", "admin.kubeconfig")

from kube import PodWatch, apply, kubectl  # noqa: E402

import report  # noqa: E402

NAMESPACE = "bench-bad-plan"
GATE = "danki.dev/warmed"
OPERATOR_JAR = os.environ.get("OPERATOR_JAR", os.path.join(REPO, "operator", "target", "operator-all.jar"))
K6 = os.environ.get("K6", os.path.join(REPO, "bin", "k6"))
RESULTS = os.path.join(REPO, "bench", "results", "bad-plan.json")
SETTLE_S = 300
GOOD = {"danki.dev/warmup": "enabled", "danki.dev/port": "http", "danki.dev/paths": "GET /",
        "danki.dev/requests": "20", "danki.dev/rate": "50", "danki.dev/max-warmup-requests": "200",
        "danki.dev/timeout": "60s"}
MISTAKES = [("danki.dev/rate", "fast"), ("danki.dev/port", "grpc"), ("danki.dev/timeout", "5s"),
            ("danki.dev/paths", "FETCH /"), ("danki.dev/headers", "not json"), ("danki.dev/warmup", "enabeld"),
            ("danki.dev/requests", "0")]


def log(message):
    print(f"    [{time.strftime('%H:%M:%S')}] {message}", flush=True)


def deployments():
    """(name, group, manifest) of the 40 Deployments, at 0 replicas."""
    plans = [(f"invalid-{i:02d}", "invalid", {**GOOD, MISTAKES[i % len(MISTAKES)][0]: MISTAKES[i % len(MISTAKES)][1]},
              {}) for i in range(28)]
    plans += [(f"valid-{i:02d}", "valid", GOOD, {}) for i in range(8)]
    plans += [(f"failing-{i:02d}", "failing", GOOD, {"STATUS": "500"}) for i in range(4)]
    for name, group, annotations, env in plans:
        labels = {"app": name, "app.kubernetes.io/part-of": "danki-bench-bad-plan", "danki.dev/warmup": "enabled"}
        pod = {"terminationGracePeriodSeconds": 1, "readinessGates": [{"conditionType": GATE}],
               "containers": [{"name": "app", "image": "danki/http-status:dev",
                               "env": [{"name": "PORT", "value": "8080"}] +
                                      [{"name": k, "value": v} for k, v in env.items()],
                               "ports": [{"name": "http", "containerPort": 8080}]}]}
        yield name, group, {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "labels": labels, "annotations": annotations},
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": labels}, "spec": pod}}}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_operator(log_path):
    port = free_port()
    env = {**os.environ, "DANKI_WATCH_NAMESPACES": NAMESPACE, "DANKI_LEASE_NAMESPACE": NAMESPACE,
           "DANKI_LEASE_NAME": "bench-bad-plan", "POD_NAME": "bench-bad-plan", "DANKI_HTTP_PORT": str(port),
           "DANKI_K6_BINARY": K6, "DANKI_K6_SCRIPT": os.path.join(REPO, "k6-scripts", "warmup.js")}
    process = subprocess.Popen(["java", "-jar", OPERATOR_JAR], env=env, stdout=open(log_path, "w"),
                               stderr=subprocess.STDOUT)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2).status == 200:
                holder = kubectl("-n", NAMESPACE, "get", "lease", "bench-bad-plan", "-o",
                                 "jsonpath={.spec.holderIdentity}", check=False).strip()
                if holder == "bench-bad-plan":
                    return process
        except OSError:
            pass
        time.sleep(1)
    process.kill()
    raise RuntimeError(f"operator {OPERATOR_JAR} not ready and leading within 120 s (log {log_path})")


def decided(pod):
    return GATE in pod["condition_seen"]


def measure():
    deadline = time.time() + 180
    # the previous run's namespace may still be terminating
    while kubectl("get", "namespace", NAMESPACE, "--ignore-not-found", "-o", "name", check=False).strip():
        if time.time() > deadline:
            raise RuntimeError(f"namespace {NAMESPACE} still there after 180 s")
        time.sleep(2)
    kubectl("create", "namespace", NAMESPACE)
    plans = list(deployments())
    apply(NAMESPACE, *[manifest for _, _, manifest in plans])
    group_of = {name: group for name, group, _ in plans}
    work = os.path.join(REPO, ".work", "bench-bad-plan")
    os.makedirs(work, exist_ok=True)
    operator = start_operator(os.path.join(work, "operator.log"))
    watch = PodWatch(NAMESPACE, "app.kubernetes.io/part-of=danki-bench-bad-plan")
    try:
        started = time.time()
        kubectl("-n", NAMESPACE, "scale", "deployment", "--all", "--replicas=1")
        log(f"scaled {len(plans)} Deployments 0 -> 1 at once")
        settled = watch.wait(lambda pods: len(pods) >= len(plans) and all(decided(p) for p in pods.values()),
                             SETTLE_S)
        time.sleep(3)
        pods = watch.snapshot()
    finally:
        watch.stop()
        operator.terminate()
        operator.wait(30)
    rows = []
    for name, pod in sorted(pods.items()):
        deployment = name.rsplit("-", 2)[0]
        gate_seen = pod["condition_seen"].get(GATE)
        rows.append({"pod": name, "group": group_of.get(deployment, "?"),
                     "containers_ready_s": rel(pod["containers_ready"], started),
                     "decided_s": rel(gate_seen, started), "ready_s": rel(pod["ready"], started)})
    return {"label": os.environ.get("LABEL") or commit(), "operator_jar": OPERATOR_JAR, "settled": settled,
            "when": time.strftime("%Y-%m-%d %H:%M:%S"), "load_before": os.getloadavg()[0], "pods": rows}


def rel(t, started):
    return None if t is None else round(t - started, 3)


def commit():
    return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def main():
    started_cluster = kubectl("get", "--raw=/readyz", check=False, timeout=10).strip() != "ok"
    if started_cluster:
        subprocess.run([os.environ.get("MAKE", "make"), "-C", REPO, "--no-print-directory", "cluster-up",
                        f"CLUSTER_INSTANCE={INSTANCE}"], check=True, timeout=600)
    try:
        crd = os.path.join(REPO, "charts", "danki", "crds", "warmupruns.danki.dev.yaml")
        kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=bench-bad-plan", "-f", crd)
        record = measure()
    finally:
        kubectl("delete", "namespace", NAMESPACE, "--wait=false", check=False)
        if started_cluster and os.environ.get("KEEP") != "1":
            subprocess.run([os.environ.get("MAKE", "make"), "-C", REPO, "--no-print-directory", "cluster-down",
                            f"CLUSTER_INSTANCE={INSTANCE}"], timeout=300)
    records = json.load(open(RESULTS)) if os.path.exists(RESULTS) else []
    records.append(record)
    with open(RESULTS, "w") as f:
        json.dump(records, f, indent=1)
    with open(RESULTS.replace(".json", ".md"), "w") as f:
        f.write(report.render(records))
    print(report.render(records))


if __name__ == "__main__":
    main()
