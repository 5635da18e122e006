"""Opted-in pods that no kubelet runs, to fill the operator's informer cache for the scale benchmark.

  fake_pods.py manifest NS COUNT NODE        a v1 List of COUNT pods bound to NODE, on stdout
  fake_pods.py status PROXY_URL NS IP...     write a running, warmed pod status on each of them,
                                             their podIP taken in turn from the real targets IP...

The pods carry danki's label and readiness gate like any opted-in pod, and are bound by nodeName
to a Node that the benchmark registers but that no kubelet serves, so no process starts. Their
status, written here as a kubelet would, says they are running, Ready and already warmed, with the
address of one of a few real pods: the operator caches them, and has nothing to warm.
"""

import json
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

LABEL = {"danki.dev/warmup": "enabled", "app": "bench-fake"}
GATE = "danki.dev/warmed"


def manifest(ns, count, node):
    pods = []
    for i in range(int(count)):
        pods.append({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"fake-{i:04d}", "namespace": ns, "labels": LABEL},
            "spec": {
                "nodeName": node,
                "readinessGates": [{"conditionType": GATE}],
                "terminationGracePeriodSeconds": 0,
                # The node never heartbeats like a kubelet; these keep the pods from being evicted.
                "tolerations": [{"operator": "Exists", "effect": "NoExecute"},
                                {"operator": "Exists", "effect": "NoSchedule"}],
                "containers": [{"name": "exam", "image": "danki/sample-service:dev",
                                "ports": [{"name": "http", "containerPort": 8080}]}],
            },
        })
    return {"apiVersion": "v1", "kind": "List", "items": pods}


def running_status(ip, now):
    def cond(kind, reason=None):
        c = {"type": kind, "status": "True", "lastTransitionTime": now}
        if reason:
            c["reason"] = reason
        return c
    return {"status": {
        "phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}], "hostIP": "127.0.0.1", "startTime": now,
        "conditions": [cond("PodScheduled"), cond("Initialized"), cond("ContainersReady"), cond("Ready"),
                       cond(GATE, "WarmedUp")],
        "containerStatuses": [{"name": "exam", "image": "danki/sample-service:dev", "imageID": "",
                               "ready": True, "started": True, "restartCount": 0,
                               "state": {"running": {"startedAt": now}}}],
    }}


def write_statuses(proxy, ns, ips):
    """PATCHes every fake pod's status through `kubectl proxy`, 8 at a time; returns the count."""
    listing = json.load(urllib.request.urlopen(f"{proxy}/api/v1/namespaces/{ns}/pods?labelSelector=app%3Dbench-fake"))
    names = [p["metadata"]["name"] for p in listing["items"]]
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    def patch(item):
        i, name = item
        body = json.dumps(running_status(ips[i % len(ips)], now)).encode()
        req = urllib.request.Request(f"{proxy}/api/v1/namespaces/{ns}/pods/{name}/status", data=body,
                                     method="PATCH", headers={"Content-Type": "application/merge-patch+json"})
        urllib.request.urlopen(req, timeout=30).read()

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(patch, enumerate(names)))
    return len(names)


def main(argv):
    if argv[1] == "manifest":
        json.dump(manifest(argv[2], argv[3], argv[4]), sys.stdout)
    elif argv[1] == "status":
        print(write_statuses(argv[2], argv[3], argv[4:]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
