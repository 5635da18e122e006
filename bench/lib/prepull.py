"""Images pulled onto every worker node before a measurement, so that a pod's start is its JVM's and not
the registry's. Without it the first strategy that runs on a node pays the pull (about 1 s for the
sample's 100 MB from the instance's registry) and the strategies after it do not: in the aot section
the side without the cache ran first, so its start -> ContainersReady carried the pull the cached side
was spared."""

import time

from kube import apply, get_json, kubectl
from manifests import NODE_ROLE_LABEL

LABEL = "bench.danki.dev/prepull"
"""Marks the harness's pull pods, so that one run's leftovers are removed by the next."""


def worker_nodes():
    return sorted(n["metadata"]["name"] for n in
                  get_json("nodes", "-l", f"{NODE_ROLE_LABEL}=worker")["items"])


def pod(name, node, image):
    """A pod that only makes NODE pull IMAGE: it exits at once (every image here has sh), on the node its
    nodeName names (no scheduling, and no anti-affinity of the measured pods applies to it)."""
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "labels": {LABEL: "true", "app.kubernetes.io/part-of": "danki-bench"}},
        "spec": {
            "nodeName": node, "restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
            "automountServiceAccountToken": False,
            "containers": [{"name": "pull", "image": image, "imagePullPolicy": "IfNotPresent",
                            "command": ["sh", "-c", "exit 0"],
                            "resources": {"requests": {"cpu": "10m", "memory": "16Mi"},
                                          "limits": {"cpu": "100m", "memory": "64Mi"}}}],
        },
    }


def prepull(namespace, images, timeout_s=300):
    """Pulls IMAGES onto every worker node: one pod per node and image, waited for until it has ended,
    then deleted. A pod whose image could not be pulled fails the run."""
    nodes = worker_nodes()
    if not nodes:
        raise RuntimeError("prepull: no worker nodes")
    clean(namespace)
    pods = {f"prepull-{i}-{n}": (n, image) for i, image in enumerate(images) for n in nodes}
    apply(namespace, *(pod(name, n, image) for name, (n, image) in pods.items()))
    try:
        wait_ended(namespace, pods, timeout_s)
    finally:
        clean(namespace)


def wait_ended(namespace, pods, timeout_s):
    deadline = time.time() + timeout_s
    while True:
        found = {p["metadata"]["name"]: p for p in get_json("-n", namespace, "pods", "-l", LABEL)["items"]}
        stuck = [f"{name}: {reason}" for name in pods if (reason := pull_failure(found.get(name)))]
        if stuck:
            raise RuntimeError(f"prepull: images not pulled: {'; '.join(stuck)}")
        if all((found.get(name) or {}).get("status", {}).get("phase") in ("Succeeded", "Failed") for name in pods):
            return
        if time.time() > deadline:
            raise RuntimeError(f"prepull: pods not done in {timeout_s} s")
        time.sleep(0.5)


def pull_failure(p):
    """The waiting reason of a pod whose image cannot be pulled, else None."""
    for status in ((p or {}).get("status", {}).get("containerStatuses") or []):
        reason = (status.get("state", {}).get("waiting") or {}).get("reason")
        if reason in ("ErrImagePull", "ImagePullBackOff", "InvalidImageName"):
            return reason
    return None


def clean(namespace):
    kubectl("-n", namespace, "delete", "pods", "-l", LABEL, "--ignore-not-found", "--wait=true",
            "--grace-period=0", "--force", check=False)
