"""The training of a Deployment's JDK AOT cache by danki (danki.dev/aot-cache: enabled), as the bench's
aot section waits for it: the AotCache named like the Deployment, until its phase is Ready."""

import time

from kube import find_json, kubectl

TERMINAL = ("Failed", "Unsupported")
"""Phases after which waiting is pointless: danki trains again only on a change of the pod template."""


def forget(namespace, name):
    """Deletes a cache left by an earlier run (KEEP=1): a Ready one would skip the training to be measured."""
    kubectl("-n", namespace, "delete", "aotcache", name, "--ignore-not-found", "--wait=true", check=False)


def wait_trained(namespace, name, t_apply, timeout_s):
    """Polls AotCache NAME until Ready, a terminal phase or TIMEOUT_S; the training's figures, with the
    seconds from T_APPLY (the host time the Deployment was applied) to the first poll that saw Ready."""
    deadline = t_apply + timeout_s
    status = {}
    while time.time() < deadline:
        cache = find_json("-n", namespace, "aotcache", name)
        status = (cache or {}).get("status", {})
        if status.get("phase") == "Ready" or status.get("phase") in TERMINAL:
            break
        time.sleep(2)
    ready = status.get("phase") == "Ready"
    return {"ready": ready, "phase": status.get("phase"), "reason": status.get("reason"),
            "message": status.get("message"), "apply_to_ready_s": time.time() - t_apply if ready else None,
            "timeout_s": timeout_s, "training_requests": status.get("trainingRequests"),
            "size_bytes": status.get("sizeBytes"), "sha256": status.get("sha256"),
            "trained_at": status.get("trainedAt")}
