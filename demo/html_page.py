"""demo-report.html: one self-contained page (inline CSS and SVG, nothing fetched)."""

import json
import os
from html import escape

from latency import PERCENTILES, summarize
from report import COLD, PUBLISHED, WARM, fmt, protocols, run_row, state_rows, verdict
from svg_chart import grouped_bars, latency_over_time

COLOURS = {WARM: "#1a7f37", COLD: "#cf222e"}
CSS = """body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:900px;
color:#1f2328}h1{font-size:24px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #d0d7de;padding:3px 8px;
text-align:right}td:first-child,th:first-child{text-align:left}.verdict{font-size:18px;padding:10px 14px;
background:#f6f8fa;border-left:5px solid #1a7f37}.lose{border-left-color:#cf222e}.note{color:#57606a;font-size:13px}
tr.ref td{color:#57606a}.wide{overflow-x:auto}.wide table{font-size:12px}"""


def table(header, rows, ref_from=None):
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = []
    for i, row in enumerate(rows):
        cls = ' class="ref"' if ref_from is not None and i >= ref_from else ""
        body.append(f"<tr{cls}>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def timeline_rows(out, old_pods):
    """Seconds after the scale-up at which each new pod was first seen ContainersReady, and Ready."""
    path, first = os.path.join(out, "timeline.jsonl"), {}
    if not os.path.exists(path):
        return []
    for line in open(path):
        poll = json.loads(line)
        for p in poll["pods"]:
            if p["name"] in old_pods:
                continue
            seen = first.setdefault(p["name"], {"app": p["app"], "cr": None, "ready": None})
            if p["containersReady"] and seen["cr"] is None:
                seen["cr"] = poll["t"]
            if p["ready"] and seen["ready"] is None:
                seen["ready"] = poll["t"]
    rows = []
    for name, s in sorted(first.items(), key=lambda kv: (kv[1]["app"], kv[0])):
        gap = s["ready"] - s["cr"] if s["cr"] is not None and s["ready"] is not None else None
        rows.append([s["app"], name, fmt(s["cr"]), fmt(s["ready"]), "-" if gap is None else f"{gap:.1f}"])
    return rows


def latency_charts(results):
    all_requests = results[WARM]["all"] + results[COLD]["all"]
    if not all_requests:
        return "<p>No load results.</p>"
    lo = max(1.0, min(r["ms"] for r in all_requests) * 0.8)
    hi = max(r["ms"] for r in all_requests) * 1.25
    spans = []
    for dep in (WARM, COLD):
        reqs = results[dep]["all"]
        if reqs:
            spans.append(max(r["start_ms"] for r in reqs) - min(r["start_ms"] for r in reqs))
    x_max = max(5.0, max(spans) / 1000.0 + 0.5)
    charts = []
    for dep, label in ((WARM, "exam-warm: new pods warmed by danki"), (COLD, "exam-cold: new pods, no warm-up")):
        reqs = results[dep]["all"]
        t0 = min((r["start_ms"] for r in reqs), default=0)
        points = [((r["start_ms"] - t0) / 1000.0, r["ms"], r["ok"]) for r in reqs]
        s = summarize(reqs)
        title = f"{label}: P95 {fmt(s['p95'])} ms, {s['count']} requests"
        charts.append(latency_over_time(title, points, COLOURS[dep], x_max, (lo, hi)))
    return "\n".join(charts)


def render(out, meta, runs, results):
    rows = state_rows(results)
    text = verdict(out)
    won = text.startswith("danki won")
    summary_rows = [[label] + [fmt(s[f"p{p}"]) for p in PERCENTILES] + [s["count"], s["errors"]]
                    for label, s in rows]
    summary_rows += [[label] + [fmt(v) for v in vs] + [100, "-"] for label, vs in PUBLISHED]
    pcts = [f"P{p}" for p in PERCENTILES]
    bars = grouped_bars("Exam-start latency, all new pods (ms, linear scale)", pcts,
                        [(label, COLOURS[d], [s[f"p{p}"] for p in PERCENTILES])
                         for (label, s), d in zip(rows, (WARM, COLD))])
    per_pod = [[dep, pod] + [fmt(summarize(reqs)[f"p{p}"]) for p in PERCENTILES] + [len(reqs)]
               for dep in (WARM, COLD) for pod, reqs in results[dep]["pods"].items()]
    run_rows = [run_row(r) for r in runs]
    run_table = [[r["pod"], r["phase"], r["stop"], r["boost"], r["aot"], r["requests"]] + [fmt(v) for v in r["cold"]]
                 + [fmt(v) for v in r["warm"]] for r in run_rows]
    run_bars = grouped_bars("WarmupRun P95 per pod: what a user would have met cold vs after danki (ms)",
                            [r["pod"].rsplit("-", 1)[-1] for r in run_rows],
                            [("cold pass P95", COLOURS[COLD], [r["cold"][-1] for r in run_rows]),
                             ("warm pass P95", COLOURS[WARM], [r["warm"][-1] for r in run_rows])]) if run_rows else ""
    machine = escape(meta.get("machine", "unknown machine"))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>danki demo report</title><style>{CSS}</style></head>
<body>
<h1>danki demo: the pre-exam scale-up, warmed vs cold</h1>
<p class="verdict{'' if won else ' lose'}">{escape(text)}</p>
<p class="note">Two identical Deployments of <code>{escape(meta.get('image', 'danki/sample-service:dev'))}</code> (same image, configuration and
probes), scaled from 1 to {escape(meta.get('replicas', '4'))} replicas at the same moment. Only
<code>exam-warm</code> carries <code>danki.dev/warmup: "enabled"</code> (and <code>danki.dev/aot-cache</code>, where the
table below says so). Once every pod was Ready, each new pod got
the exam-start load through its Service's EndpointSlice address: 20 requests/s for 5 s, one Deployment after the
other ({escape(meta.get('load_order', ''))}), nothing else running. Run {escape(meta.get('started', ''))} on {machine}.</p>

<h2>Exam start, side by side</h2>
{table(['state'] + pcts + ['exam starts', 'failed HTTP requests'], summary_rows, ref_from=2)}
<p class="note">ms per exam start: one candidate's <code>GET /exams/{{id}}</code> then <code>POST /exams/{{id}}/answers</code>
(k6-scripts/exam-start.js). The grey rows are the published exam-server figures (100 requests at 20 rps), for
reference.</p>
{bars}

<h2>Request latency over time</h2>
<p class="note">Each dot is one exam start. Both charts share their axes (log scale).</p>
{latency_charts(results)}

<h2>Per pod</h2>
{table(['deployment', 'pod'] + pcts + ['exam starts'], per_pod)}

<h2>danki's record: WarmupRuns</h2>
<p class="note">The operator's cold figures are what the pod answered before it was warm; the warm pass is what
its users get. These are single HTTP requests of the paths in <code>danki.dev/paths</code> (ms), not whole exam
starts, measured as the WarmupRuns record it ({escape(protocols(runs))}): figures taken from the warm-up's first
answers show the pod's cold service time, not the queue users arriving at a fixed rate would build.
Requests: cold / warm-up (with the drain) / warm pass.</p>
<div class="wide">{table(['pod', 'phase', 'stop', 'CPU boost', 'AOT cache', 'requests'] + ['cold ' + p for p in pcts] + ['warm ' + p for p in pcts], run_table)}</div>
{run_bars}

<h2>What the warm-up cost: time to Ready</h2>
<p class="note">Seconds after the scale-up at which each pod was seen ContainersReady and Ready (polled every
{escape(meta.get('poll_s', '2'))} s). The gap is the time a warmed pod waited outside its Service.</p>
{table(['deployment', 'pod', 'ContainersReady (s)', 'Ready (s)', 'gap (s)'],
        timeline_rows(out, set(meta.get('old_pods', '').split())))}
<p class="note">"-": not seen in that state before the demo stopped waiting.</p>
</body></html>
"""
