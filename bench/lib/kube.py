"""kubectl for the benchmark harnesses: apply, read, scale, patch a pod condition, and a pod watch that
timestamps, on the host clock, the first moment each pod was seen ContainersReady and Ready."""

import json
import os
import subprocess
import threading
import time

from targets import REPO

KUBECTL = os.environ.get("KUBECTL", os.path.join(REPO, "bin", "kubectl"))


def kubectl(*args, stdin=None, check=True, timeout=120):
    result = subprocess.run([KUBECTL, *args], input=stdin, capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise RuntimeError(f"kubectl {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


def apply(namespace, *objects):
    """Creates or updates OBJECTS in NAMESPACE (the manifests name none, so never the kubeconfig's default)."""
    items = {"apiVersion": "v1", "kind": "List", "items": list(objects)}
    kubectl("-n", namespace, "apply", "-f", "-", stdin=json.dumps(items))


def get_json(*args):
    return json.loads(kubectl("get", *args, "-o", "json"))


def find_json(*args):
    """get_json, or None while the object does not exist (yet)."""
    result = subprocess.run([KUBECTL, "get", *args, "-o", "json"], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        if "NotFound" in result.stderr:
            return None
        raise RuntimeError(f"kubectl get {' '.join(args)}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def scale(namespace, deployment, replicas):
    kubectl("-n", namespace, "scale", "deployment", deployment, f"--replicas={replicas}")


def wait_settled(namespace, name, replicas, gate=None, timeout_s=300):
    """Waits until Deployment NAME has rolled out: REPLICAS pods, all of the current template, all Ready,
    and with GATE (when given) among the readiness gates of every pod. danki puts the gate on each new
    pod (webhook mode, its default) or on the template, which rolls the Deployment once (template mode);
    a scale before either makes pods without it."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        d = get_json("-n", namespace, "deployment", name)
        status = d.get("status", {})
        if (status.get("observedGeneration", 0) >= d["metadata"]["generation"]
                and all(status.get(k, 0) == replicas for k in ("replicas", "updatedReplicas", "readyReplicas"))
                and (gate is None or all_gated(namespace, d, gate))):
            return
        time.sleep(0.5)
    raise RuntimeError(f"deployment {namespace}/{name} did not settle at {replicas} replicas"
                       f"{' with gate ' + gate if gate else ''} within {timeout_s} s")


def all_gated(namespace, deployment, gate):
    """Whether every live pod of DEPLOYMENT (its object) has GATE among its readiness gates."""
    selector = ",".join(f"{k}={v}" for k, v in deployment["spec"]["selector"]["matchLabels"].items())
    pods = [p for p in get_json("-n", namespace, "pods", "-l", selector)["items"]
            if "deletionTimestamp" not in p["metadata"]]
    return all(gate in [g.get("conditionType") for g in p["spec"].get("readinessGates") or []] for p in pods)


def set_condition(namespace, pod, condition_type, message):
    """Sets a readiness-gate condition True, as a warm-up operator does when it is done."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    patch = {"status": {"conditions": [{"type": condition_type, "status": "True", "reason": "Warmed",
                                        "message": message, "lastTransitionTime": now}]}}
    kubectl("-n", namespace, "patch", "pod", pod, "--subresource=status", "--type=strategic", "-p", json.dumps(patch))


def delete_deployment(namespace, name, timeout_s=180):
    """Deletes a Deployment and waits until its pods are gone (forcing stragglers after the timeout)."""
    kubectl("-n", namespace, "delete", "deployment,service", name, "--ignore-not-found", "--wait=true", check=False)
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if not get_json("-n", namespace, "pods", "-l", f"app={name}")["items"]:
            return
        time.sleep(1)
    kubectl("-n", namespace, "delete", "pods", "-l", f"app={name}", "--force", "--grace-period=0", check=False)


class PodWatch:
    """`kubectl get pods -w` in a thread: per pod its IP, node and UID, the first host time it was seen
    ContainersReady and Ready, and every condition of a readiness gate (condition_seen: the first host
    time each condition type appeared, whatever its status)."""

    TEMPLATE = ('{{.metadata.name}} {{or .status.podIP "-"}} {{or .spec.nodeName "-"}} {{.metadata.uid}} '
                '{{range .status.conditions}}{{.type}}={{.status}} {{end}}{{"\\n"}}')

    def __init__(self, namespace, selector):
        self.pods = {}
        self.lock = threading.Condition()
        # go-template, not jsonpath: kubectl's jsonpath {range} fails on the second object of a watch
        self.process = subprocess.Popen([KUBECTL, "-n", namespace, "get", "pods", "-l", selector, "-w",
                                         "-o", f"go-template={self.TEMPLATE}"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.process.stdout:
            t = time.time()
            parts = line.split()
            if not parts:
                continue
            conditions = dict(p.split("=", 1) for p in parts[4:] if "=" in p)
            with self.lock:
                pod = self.pods.setdefault(parts[0], {"first_seen": t, "ip": None, "node": None, "uid": None,
                                                      "containers_ready": None, "ready": None, "conditions": {},
                                                      "condition_seen": {}})
                for condition in conditions:
                    pod["condition_seen"].setdefault(condition, t)
                for key, value in zip(("ip", "node", "uid"), parts[1:4]):
                    if value != "-":
                        pod[key] = value
                pod["conditions"] = conditions
                if conditions.get("ContainersReady") == "True" and pod["containers_ready"] is None:
                    pod["containers_ready"] = t
                if conditions.get("Ready") == "True" and pod["ready"] is None:
                    pod["ready"] = t
                self.lock.notify_all()

    def snapshot(self):
        with self.lock:
            return {name: dict(pod) for name, pod in self.pods.items()}

    def wait(self, predicate, timeout_s):
        """Waits until predicate(snapshot) is true; False at the timeout."""
        deadline = time.time() + timeout_s
        with self.lock:
            while not predicate(self.pods):
                left = deadline - time.time()
                if left <= 0:
                    return False
                self.lock.wait(min(left, 1.0))
            return True

    def stop(self):
        self.process.kill()
        self.process.wait()


class EndpointWatch:
    """`kubectl get endpointslices -w` of one Service in a thread: per pod, the first host time its Service
    listed it ready, which is when a Service starts sending it users' requests."""

    TEMPLATE = ('{{range .endpoints}}{{if .targetRef}}{{.targetRef.name}}={{.conditions.ready}} '
                '{{range .addresses}}{{.}} {{end}}{{end}}{{end}}{{"\\n"}}')

    def __init__(self, namespace, service):
        self.ready = {}
        self.address = {}
        self.lock = threading.Condition()
        self.process = subprocess.Popen([KUBECTL, "-n", namespace, "get", "endpointslices", "-l",
                                         f"kubernetes.io/service-name={service}", "-w",
                                         "-o", f"go-template={self.TEMPLATE}"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.process.stdout:
            t = time.time()
            with self.lock:
                pod = None
                for word in line.split():
                    if "=" in word:
                        pod, ready = word.split("=", 1)
                        if ready == "true":
                            self.ready.setdefault(pod, t)
                    elif pod and pod in self.ready:
                        self.address.setdefault(pod, word)
                self.lock.notify_all()

    def snapshot(self):
        """{pod: (first time listed ready, its address)} of every pod the Service has listed ready."""
        with self.lock:
            return {pod: (t, self.address.get(pod)) for pod, t in self.ready.items()}

    def wait(self, predicate, timeout_s):
        deadline = time.time() + timeout_s
        with self.lock:
            while not predicate(self.snapshot()):
                left = deadline - time.time()
                if left <= 0:
                    return False
                self.lock.wait(min(left, 1.0))
            return True

    def stop(self):
        self.process.kill()
        self.process.wait()
