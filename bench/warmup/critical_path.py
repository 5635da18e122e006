"""The waits on danki's own path (docs/architecture.md, "The critical path, hop by hop"), over every pod
that danki warmed in a run's records, whatever the section:

  - ContainersReady -> the first warm-up request: the WarmupRun's reactionMillis, and of it k6's own
    start-up (k6StartupMillis);
  - decision -> Ready: the WarmupRun's completionTime, stamped just before the gate patch (k6 has ended,
    the result is parsed), to the host time at which the bench's pod watch saw the pod Ready. That holds
    the gate patch, the kubelet's Ready condition and the watch's own delay. Operator and watch share the
    host clock.
"""

import datetime
import math


def _instant(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _runs(record):
    """(pod name, WarmupRun status) of a record: a dict by pod, or the scale section's list."""
    runs = record.get("runs")
    if isinstance(runs, dict):
        return list(runs.items())
    if isinstance(runs, list):
        return [(r.get("pod"), r) for r in runs]
    return []


def samples(records):
    """Per warmed pod: reaction ms, k6 start-up ms, decision -> Ready ms (None where not known)."""
    out = []
    for record in records:
        pods = record.get("pods") or {}
        for name, run in _runs(record):
            if not run or run.get("phase") != "Succeeded":
                continue
            ready = (pods.get(name) or {}).get("ready")
            done = run.get("completionTime")
            out.append({
                "reaction_ms": run.get("reactionMillis"),
                "k6_startup_ms": run.get("k6StartupMillis"),
                "decision_to_ready_ms": (ready - _instant(done)) * 1000 if ready and done else None,
            })
    return out


def nearest_rank(values, p):
    """The p-th percentile by nearest rank: a value that was measured, not an interpolation."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def as_json(records):
    pods = samples(records)
    doc = {"pods": len(pods)}
    for key in ("reaction_ms", "k6_startup_ms", "decision_to_ready_ms"):
        values = [p[key] for p in pods if p[key] is not None]
        doc[key] = ({"n": len(values), "p50": nearest_rank(values, 50), "p95": nearest_rank(values, 95),
                     "max": max(values)} if values else None)
    return doc


def section_markdown(doc, table, ms):
    rows = []
    for key, what in (("reaction_ms", "ContainersReady -> first warm-up request"),
                      ("k6_startup_ms", "of which k6's start-up"),
                      ("decision_to_ready_ms", "decision (k6 ended, result parsed) -> pod Ready")):
        s = doc.get(key)
        rows.append([what, s["n"], ms(s["p50"]), ms(s["p95"]), ms(s["max"])] if s else [what, 0, "-", "-", "-"])
    return table(["wait", "pods", "p50 (ms)", "p95 (ms)", "max (ms)"], rows)
