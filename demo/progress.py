"""Progress of the scale-up, one line per poll, and the pod timeline the report draws from.

Reads `kubectl get pods -o json` and `kubectl get warmupruns -o json` (concatenated) on stdin.
"""

import json
import sys

GATE = "danki.dev/warmed"
"""The readiness-gate condition danki's operator sets on a warmed pod."""


def read_documents(text):
    """Every JSON document in text, in order (kubectl outputs are simply concatenated)."""
    decoder, docs, i = json.JSONDecoder(), [], 0
    while i < len(text):
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            break
        doc, i = decoder.raw_decode(text, i)
        docs.append(doc)
    return docs


def condition(pod, kind):
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == kind:
            return c.get("status") == "True"
    return False


def pod_state(pod):
    """The few facts about a pod the demo follows."""
    spec_gates = [g.get("conditionType") for g in (pod.get("spec") or {}).get("readinessGates") or []]
    return {"name": pod["metadata"]["name"], "app": (pod["metadata"].get("labels") or {}).get("app", ""),
            "ip": (pod.get("status") or {}).get("podIP"), "gated": GATE in spec_gates,
            "containersReady": condition(pod, "ContainersReady"), "ready": condition(pod, "Ready"),
            "warmed": condition(pod, GATE), "deleting": "deletionTimestamp" in pod["metadata"]}


def run_phase_counts(runs):
    counts = {}
    for run in runs:
        phase = (run.get("status") or {}).get("phase") or "New"
        counts[phase] = counts.get(phase, 0) + 1
    return counts


def run_pod(run):
    """The pod a WarmupRun warms (spec.podName; older records had it in the status only)."""
    return (run.get("spec") or {}).get("podName") or (run.get("status") or {}).get("podName") \
        or run["metadata"]["name"]


def all_ready(pods, app, want):
    """Whether app has exactly `want` live pods (none being deleted), every one Ready."""
    live = [p for p in pods if p["app"] == app and not p["deleting"]]
    return len(live) == want and all(p["ready"] for p in live)


def describe(app, pods, runs, want):
    live = [p for p in pods if p["app"] == app and not p["deleting"]]
    ready = sum(p["ready"] for p in live)
    text = f"{app}: {ready}/{want} ready"
    starting = sum(1 for p in live if not p["containersReady"])
    gated = sum(1 for p in live if p["containersReady"] and not p["ready"])
    if starting:
        text += f", {starting} starting"
    if gated:
        text += f", {gated} gated"
    app_runs = [r for r in runs if run_pod(r).startswith(app + "-")]
    counts = run_phase_counts(app_runs)
    if counts:
        text += " (WarmupRuns: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + ")"
    return text


def main(argv):
    """progress.py ELAPSED_S WANT TIMELINE_FILE APP...: print a line, append the poll to the timeline."""
    elapsed, want, timeline, apps = float(argv[1]), int(argv[2]), argv[3], argv[4:]
    docs = read_documents(sys.stdin.read())
    pods = [pod_state(p) for p in docs[0]["items"]] if docs else []
    runs = docs[1]["items"] if len(docs) > 1 else []
    print(f"    {elapsed:6.1f}s  " + "   ".join(describe(a, pods, runs, want) for a in apps), flush=True)
    with open(timeline, "a") as f:
        f.write(json.dumps({"t": elapsed, "pods": pods}) + "\n")
    return 0 if all(all_ready(pods, a, want) for a in apps) else 3


if __name__ == "__main__":
    sys.exit(main(sys.argv))
