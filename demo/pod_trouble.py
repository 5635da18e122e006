"""Finds the pods that cannot start, from `kubectl get pods -o json` on stdin.

A pod that crash-loops, whose image cannot be had, whose container cannot be created, that failed,
that the scheduler has refused for longer than a grace period, or whose sandbox (its network and
namespaces) the node has not made for longer than another, will not become Ready by waiting. The demo stops at once on such a pod and shows why, instead of waiting for a timeout that
says nothing (a Helm "context deadline exceeded", a rollout that never ends).

Prints one tab-separated line per troubled container (or pod): namespace, pod, container ("-" for
the pod itself), restart count, reason, message. Exits 0 when there is none and 3 when there is.

Usage: kubectl get pods -o json | python3 demo/pod_trouble.py [--unschedulable-grace SECONDS]
                                                               [--sandbox-grace SECONDS]
"""

import argparse
import datetime
import json
import sys

# Waiting reasons that a wait does not fix. ContainerCreating and PodInitializing do not belong here.
STUCK_WAITING = {
    "CrashLoopBackOff",
    "ErrImagePull",
    "ImagePullBackOff",
    "ErrImageNeverPull",
    "InvalidImageName",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
}
TROUBLE_FOUND = 3


def parse_time(value):
    """An RFC 3339 timestamp of the API, as aware UTC, or None."""
    if not value:
        return None
    return datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)


def last_exit(status):
    """'exit N (reason)' of the container's previous run, or None."""
    terminated = (status.get("lastState") or {}).get("terminated")
    if not terminated:
        return None
    reason = terminated.get("reason")
    return f"exit {terminated.get('exitCode')}" + (f" ({reason})" if reason else "")


def container_troubles(pod):
    """(container, restarts, reason, message) for each container stuck in a waiting state."""
    statuses = (pod.get("status") or {}).get("initContainerStatuses") or []
    statuses += (pod.get("status") or {}).get("containerStatuses") or []
    for status in statuses:
        waiting = (status.get("state") or {}).get("waiting") or {}
        reason = waiting.get("reason")
        if reason not in STUCK_WAITING:
            continue
        message = " ".join(part for part in (last_exit(status), waiting.get("message")) if part)
        yield status.get("name", "?"), status.get("restartCount", 0), reason, message


def false_for(condition, now):
    """Seconds since the condition turned False, or None when it is not False or has no time."""
    since = parse_time(condition.get("lastTransitionTime"))
    if condition.get("status") != "False" or not since:
        return None
    return (now - since).total_seconds()


def pod_trouble(pod, now, unschedulable_grace, sandbox_grace):
    """(reason, message) when the pod as a whole cannot start, else None."""
    status = pod.get("status") or {}
    if status.get("phase") == "Failed":
        return status.get("reason") or "Failed", status.get("message") or "the pod failed"
    if status.get("phase") != "Pending":
        return None
    for condition in status.get("conditions") or []:
        seconds = false_for(condition, now)
        if seconds is None:
            continue
        kind = condition.get("type")
        if kind == "PodScheduled" and condition.get("reason") == "Unschedulable" and seconds >= unschedulable_grace:
            return "Unschedulable", condition.get("message") or ""
        # The kubelet retries a sandbox it cannot make (a CNI plugin's error, say) without end, and
        # shows the pod only as ContainerCreating; the reason is in the pod's Events.
        if kind == "PodReadyToStartContainers" and seconds >= sandbox_grace:
            said = condition.get("message") or "no pod sandbox"
            return condition.get("reason") or "PodSandboxNotReady", f"{said} after {seconds:.0f} s (its Events say why)"
    return None


def troubles(pods, now, unschedulable_grace, sandbox_grace=90.0):
    """Every troubled (namespace, pod, container, restarts, reason, message), in the input's order."""
    found = []
    for pod in pods:
        meta = pod.get("metadata") or {}
        if meta.get("deletionTimestamp"):
            continue  # on its way out: a crash while terminating is not a start-up failure
        namespace, name = meta.get("namespace", "?"), meta.get("name", "?")
        whole = pod_trouble(pod, now, unschedulable_grace, sandbox_grace)
        if whole:
            found.append((namespace, name, "-", 0, *whole))
        for container, restarts, reason, message in container_troubles(pod):
            found.append((namespace, name, container, restarts, reason, message))
    return found


def one_line(text):
    return " ".join(str(text).split())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unschedulable-grace", type=float, default=30.0, metavar="SECONDS")
    parser.add_argument("--sandbox-grace", type=float, default=90.0, metavar="SECONDS")
    args = parser.parse_args(argv)
    try:
        pods = json.load(sys.stdin).get("items") or []
    except (json.JSONDecodeError, AttributeError) as e:
        print(f"pod_trouble.py: stdin is not a pod list: {e}", file=sys.stderr)
        return 2
    found = troubles(pods, datetime.datetime.now(datetime.timezone.utc), args.unschedulable_grace, args.sandbox_grace)
    for row in found:
        print("\t".join(one_line(field) for field in row))
    return TROUBLE_FOUND if found else 0


if __name__ == "__main__":
    sys.exit(main())
