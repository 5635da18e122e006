"""The operator under soak: installed with its chart on the soak's cluster as `make bench` installs it,
its JVM found among the host's processes (the host sees every container's), its log summed up, and
everything the soak made removed again, down to the last k6 process."""

import json
import os
import platform
import signal
import subprocess
import time
from collections import Counter

from kube import KUBECTL, all_gated, get_json, kubectl
from probe import cluster_k6, process_table
from targets import REPO

HELM = os.environ.get("HELM", os.path.join(REPO, "bin", "helm"))
NAMESPACE, RELEASE, LEASE = "danki-system", "danki", "danki-operator"
GATE = "danki.dev/warmed"
OPERATOR_JAR = b"/opt/danki/operator.jar"
"""Where the operator image keeps its jar (Dockerfile): how its JVM is told apart among the host's processes."""
JAVA_OPTIONS = "the image's (-XX:MaxRAMPercentage=25 of the chart's memory limit)"
"""What the soak's record says of the JVM's options: the chart as shipped, its memory limit enforced."""
INSTANCE = os.environ.get("CLUSTER_INSTANCE", "6")
INSTANCE_CGROUP = f"/danki-r{INSTANCE}"
"""Every pod and node daemon of the real kubelet's instance lives under it (local-cluster/kubelet/node-env.sh)."""


def install():
    subprocess.run([HELM, "upgrade", "--install", RELEASE, os.path.join(REPO, "charts", "danki"), "-n", NAMESPACE,
                    "--create-namespace", "--set", "image.tag=dev", "--set", "replicaCount=1",
                    "--set", "podDisruptionBudget.enabled=false",
                    "--wait", "--timeout", "180s"], check=True, timeout=240, stdout=subprocess.DEVNULL)


def find(timeout_s=180):
    """The one operator pod once it holds the Lease: its name, IP, host PID and metrics address."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        pods = [p for p in get_json("-n", NAMESPACE, "pods", "-l", f"app.kubernetes.io/instance={RELEASE}")["items"]
                if "deletionTimestamp" not in p["metadata"] and (p.get("status") or {}).get("podIP")]
        holder = kubectl("-n", NAMESPACE, "get", "lease", LEASE, "-o", "jsonpath={.spec.holderIdentity}", check=False)
        if len(pods) == 1 and pods[0]["metadata"]["name"] == holder.strip():
            pod = pods[0]
            pid = host_pid(pod["metadata"]["name"])
            if pid:
                ip = pod["status"]["podIP"]
                return {"pod": pod["metadata"]["name"], "uid": pod["metadata"]["uid"], "ip": ip, "pid": pid,
                        "metrics_url": f"http://{ip}:8080/metrics"}
        time.sleep(2)
    raise RuntimeError(f"no operator pod holding Lease {LEASE} within {timeout_s} s")


def host_pid(pod_name):
    """The operator JVM of POD_NAME among the host's processes: the chart gives it POD_NAME."""
    wanted = f"POD_NAME={pod_name}".encode()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if OPERATOR_JAR not in f.read():
                    continue
            with open(f"/proc/{name}/environ", "rb") as f:
                if wanted in f.read().split(b"\0"):
                    return int(name)
        except OSError:
            continue
    return None


def wait_gate(namespace, deployment, timeout_s=120):
    """Until danki gates DEPLOYMENT's new pods: the gate on its template (template mode: the opt-in's one
    rollout), or, in webhook mode (the chart's default), danki's admission webhook published with its
    CA, so that every pod created from now on gets the gate as it is admitted (the soak's Deployments
    start at 0 replicas, so there is no pod to look at yet), and every live pod already gated."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        d = get_json("-n", namespace, "deployment", deployment)
        gates = [g.get("conditionType") for g in d["spec"]["template"]["spec"].get("readinessGates") or []]
        if GATE in gates or (webhook_published() and all_gated(namespace, d, GATE)):
            return
        time.sleep(1)
    raise RuntimeError(f"danki did not gate {namespace}/{deployment} within {timeout_s} s")


def webhook_published():
    """Whether danki's MutatingWebhookConfiguration (named after the release) carries its CA bundle."""
    raw = kubectl("get", "mutatingwebhookconfiguration", RELEASE, "-o", "jsonpath={.webhooks[0].clientConfig.caBundle}",
                  check=False)
    return bool(raw.strip())


def machine():
    with open("/proc/meminfo") as f:
        mem_kb = int(f.readline().split()[1])
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "")
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout
    return {"cores": os.cpu_count(), "cpu": model, "memory_gib": round(mem_kb / 1048576), "kernel": platform.release(),
            "commit": commit.strip()}


def log_summary(operator, out):
    """Lines per level of the operator's JSON log, and its most frequent WARN/ERROR messages; the log
    (`kubectl logs`) is saved to OUT, since cluster-down removes it."""
    path = os.path.join(out, "operator.log")
    result = subprocess.run([KUBECTL, "-n", NAMESPACE, "logs", operator["pod"], "-c", "operator"],
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        return {"path": path, "missing": True, "error": result.stderr.strip()[:300]}
    with open(path, "w") as f:
        f.write(result.stdout)
    levels, problems, other = Counter(), Counter(), 0
    for line in result.stdout.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            other += 1
            continue
        level = entry.get("level", "?")
        levels[level] += 1
        if level in ("WARN", "ERROR"):
            problems[f"{level} {entry.get('message', '')}"] += 1
    return {"path": os.path.join(out, "operator.log"), "levels": dict(levels), "non_json_lines": other,
            "warnings": problems.most_common(12)}


def own_k6():
    """PIDs of the k6 processes of the soak's cluster (under its cgroup): only its operator starts k6."""
    return cluster_k6(process_table(), INSTANCE_CGROUP)


def cleanup(operator, keep=False):
    """Removes the soak's namespace and the chart (unless KEEP), then stops any k6 process still running
    this work tree's k6, by PID. Bounded: every call has a timeout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if keep:
        return
    try:
        kubectl("delete", "namespace", "danki-soak", "--ignore-not-found", "--wait=true", "--timeout=120s",
                check=False, timeout=150)
        subprocess.run([HELM, "uninstall", RELEASE, "-n", NAMESPACE, "--wait", "--timeout", "60s"],
                       timeout=90, check=False, capture_output=True)
    except (OSError, subprocess.SubprocessError) as e:
        print(f"    cleanup: {e}", flush=True)
    left = own_k6()
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if left:
        print(f"    cleanup: stopped {len(left)} k6 process(es) left running: {left}", flush=True)
