"""Writes a demo work folder (as demo/run-demo.sh leaves it in .work/demo) from the figures of the
recorded demo run in docs/performance.md, plus expected.json: the figures the rendered
demo-report.html must show. The browser test (report_browser_test.mjs) renders and checks it.

Usage: make_fixture.py OUT
"""

import json
import os
import sys

# docs/performance.md, "The demo": ms per exam flow, P25..P95, for the warmed and the cold new pods.
RECORDED = {"exam-warm": [18, 32, 57, 101, 137], "exam-cold": [5002, 7162, 13294, 14878, 15362]}
# Its WarmupRuns: cold P95s of 81 to 1,849 ms and warm P95s of 11 to 57 ms (three new pods).
RUNS = [("exam-warm-6d4b9c7f-2xkqp", 81.0, 11.0, "Converged"),
        ("exam-warm-6d4b9c7f-8hd2m", 640.0, 23.0, "MaxRequests"),
        ("exam-warm-6d4b9c7f-q7t4w", 1849.0, 57.0, "MaxRequests")]
FLOWS = 101
"""101 flows per Deployment: k6's percentile at P25..P95 then falls exactly on a flow (rank p/100 x 100)."""


def flows(p):
    """101 ascending latencies whose P25, P50, P75, P90, P95 are exactly p (linear in between)."""
    anchors = [(0, p[0] * 0.5), (25, p[0]), (50, p[1]), (75, p[2]), (90, p[3]), (95, p[4]), (100, p[4] * 1.1)]
    values = []
    for i in range(FLOWS):
        (i0, v0), (i1, v1) = next((a, b) for a, b in zip(anchors, anchors[1:]) if a[0] <= i <= b[0])
        values.append(v0 + (v1 - v0) * (i - i0) / (i1 - i0))
    return values


def write_load(out, deployment, latencies, t0_ms):
    """k6 CSV (--out csv, unix_milli): one exam_flow_duration row per flow, three pods round-robin."""
    pods = [f"{deployment}-6d4b9c7f-{s}" for s in ("a1", "b2", "c3")]
    folder = os.path.join(out, "load", deployment)
    os.makedirs(folder, exist_ok=True)
    files = {pod: open(os.path.join(folder, f"{pod}.csv"), "w") for pod in pods}
    for f in files.values():
        f.write("metric_name,timestamp,metric_value,status,expected_response,name\n")
    # shuffled in time, so the scatter is not one rising line: flow i starts at (i * 37 % 101) / 20 s
    for i, ms in enumerate(latencies):
        start = t0_ms + (i * 37 % FLOWS) * 50
        f = files[pods[i % len(pods)]]
        f.write(f"exam_flow_duration,{start + ms:.0f},{ms:.3f},,true,exam\n")
        f.write(f"http_req_duration,{start + ms:.0f},{ms / 2:.3f},200,true,GET /exams/1\n")
    for f in files.values():
        f.close()


def write_runs(out):
    items = []
    for name, cold, warm, stop in RUNS:
        items.append({"metadata": {"name": name, "creationTimestamp": "2026-11-20T10:00:00Z"},
                      "spec": {"podName": name, "deployment": "exam-warm"},
                      "status": {"phase": "Succeeded", "stopReason": stop, "startTime": "2026-11-20T10:00:05Z",
                                 "requests": {"cold": 100, "warmup": 4500, "warm": 100},
                                 "cold": {"p25": cold / 4, "p50": cold / 3, "p75": cold / 2, "p90": cold * 0.8, "p95": cold,
                                          "source": "warmup", "requests": 100, "concurrency": 4},
                                 "warm": {"p25": warm / 4, "p50": warm / 3, "p75": warm / 2, "p90": warm * 0.8, "p95": warm,
                                          "source": "open", "requests": 100, "ratePerSecond": 20}}})
    json.dump({"items": items}, open(os.path.join(out, "runs.json"), "w"))


def main(out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "meta.env"), "w") as f:
        f.write("started=2026-11-20T10:00:00Z\nmachine=2 cores (recorded demo run)\nreplicas=4\npoll_s=2\n"
                "load_order=exam-warm then exam-cold\nold_pods=exam-warm-old exam-cold-old\n")
    for k, (dep, p) in enumerate(RECORDED.items()):
        write_load(out, dep, flows(p), 1_763_632_800_000 + k * 60_000)
    write_runs(out)
    with open(os.path.join(out, "timeline.jsonl"), "w") as f:
        for t, ready in ((2.0, False), (30.0, True)):
            pods = [{"name": n, "app": "exam-warm", "containersReady": True, "ready": ready} for n, *_ in RUNS]
            f.write(json.dumps({"t": t, "pods": pods}) + "\n")
    fmt = lambda v: f"{v:,.0f}" if v >= 10 else f"{v:.1f}"
    expected = {
        # section heading -> texts its first table must show
        "tables": {
            "Exam start, side by side": ["exam-warm (danki, warmed)", "exam-cold (no warm-up)"]
            + [fmt(v) for p in RECORDED.values() for v in p],
            "danki's record: WarmupRuns": [n for n, *_ in RUNS] + [fmt(c) for _, c, _, _ in RUNS] + [fmt(w) for _, _, w, _ in RUNS],
            "What the warm-up cost: time to Ready": [n for n, *_ in RUNS] + ["28.0"],
        },
        # chart title (start) -> bar labels whose widths must keep the figures' ratio
        "bars": {"Exam-start latency": [f"{RECORDED['exam-warm'][4]:,} ms", f"{RECORDED['exam-cold'][4]:,} ms"],
                 "WarmupRun P95 per pod": [f"{RUNS[0][2]:,.0f} ms", f"{RUNS[2][1]:,.0f} ms"]},
        "svgs": 4,
        "verdict": "danki won: exam-start P95 137 ms on the warmed pods vs 15,362 ms on the cold ones",
    }
    json.dump(expected, open(os.path.join(out, "expected.json"), "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
