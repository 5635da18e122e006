"""Tables and the self-contained HTML report of `make demo`.

Usage (run by demo/run-demo.sh; OUT is the demo's work folder):
  report.py runs-table OUT     the per-pod WarmupRun table: cold vs warm, P25-P95
  report.py load-table OUT     the exam-start results side by side, in the published table's layout
  report.py html OUT PAGE      write the HTML page with charts and tables
  report.py verdict OUT        one honest sentence on who won; exit 0 either way
  report.py scale-times OUT    how long each Deployment's scale-up took to be all Ready, side by side
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from latency import PERCENTILES, failed_http_requests, load_requests, summarize  # noqa: E402
from progress import all_ready, run_pod  # noqa: E402

WARM, COLD = "exam-warm", "exam-cold"
PUBLISHED = [("published: cold", [2148, 2521, 2768, 2971, 3045]),
             ("published: fully warm", [27, 30, 33, 56, 94])]
"""Rows of the published exam-server table (100 requests at 20 rps, ms), shown for reference."""


def load_meta(out):
    meta = {}
    path = os.path.join(out, "meta.env")
    if os.path.exists(path):
        for line in open(path):
            key, _, value = line.rstrip("\n").partition("=")
            if key:
                meta[key] = value
    return meta


def load_runs(out):
    path = os.path.join(out, "runs.json")
    if not os.path.exists(path):
        return []
    return sorted(json.load(open(path)).get("items", []),
                  key=lambda r: (r.get("status") or {}).get("startTime") or r["metadata"]["creationTimestamp"])


def run_row(run):
    """One WarmupRun as a flat dict; tolerant of fields the operator left empty."""
    st = run.get("status") or {}
    req = st.get("requests") or {}
    req_text = "/".join(str(req.get(k, "-")) for k in ("cold", "warmup", "warm")) if isinstance(req, dict) else str(req)
    return {"pod": run_pod(run), "phase": st.get("phase") or "-",
            "stop": st.get("stopReason") or "-", "requests": req_text,
            # e.g. 250m->3: the CPU the pod started and warmed at, restored before its warm pass
            "boost": (st.get("cpuBoost") or {}).get("summary") or "-",
            # used, absent (why) or rejected (why): what the pod's JVM made of danki's AOT cache
            "aot": st.get("aotCache") or "-",
            "cold": [(st.get("cold") or {}).get(f"p{p}") for p in PERCENTILES],
            "warm": [(st.get("warm") or {}).get(f"p{p}") for p in PERCENTILES],
            "protocol": {k: protocol(st.get(k)) for k in ("cold", "warm")},
            "start": st.get("startTime"), "end": st.get("completionTime")}


def protocol(figures):
    """How a WarmupRun's pass was measured, in words: `100 at 20/s`, `the warm-up's first 100, 4 in flight` or
    `100, 4 in flight` (a closed pass of its own)."""
    figures = figures or {}
    if figures.get("source") == "warmup":
        return f"the warm-up's first {figures.get('requests', '?')}, {figures.get('concurrency', '?')} in flight"
    if figures.get("source") == "closed":
        return f"{figures.get('requests', '?')}, {figures.get('concurrency', '?')} in flight"
    if figures.get("source") == "open":
        return f"{figures.get('requests', '?')} at {fmt(figures.get('ratePerSecond'))}/s"
    return "?"


def protocols(runs):
    """The passes' protocols of RUNS, each once: what the cold and warm columns measured."""
    seen = {k: sorted({run_row(r)["protocol"][k] for r in runs}) for k in ("cold", "warm")}
    return "; ".join(f"{k}: {', '.join(v)}" for k, v in seen.items() if v)


def fmt(v):
    return "-" if v is None else f"{v:,.0f}" if v >= 10 else f"{v:.1f}"


def text_table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def runs_table(out):
    header = ["pod", "phase", "stop", "CPU boost", "AOT cache", "req cold/warm-up/warm"] + [f"cold P{p}" for p in PERCENTILES] \
        + [f"warm P{p}" for p in PERCENTILES]
    runs = load_runs(out)
    rows = [[r["pod"], r["phase"], r["stop"], r["boost"], r["aot"], r["requests"]] + [fmt(v) for v in r["cold"]]
            + [fmt(v) for v in r["warm"]] for r in map(run_row, runs)]
    return text_table(header, rows) + f"\n(measured as {protocols(runs)})" if rows else "(no WarmupRuns found)"


def load_results(out):
    """{deployment: {"pods": {pod: [flows]}, "all": [flows], "failed_http": n}} from
    load/<deployment>/<pod>.csv (exam-start.js: one flow is a candidate's GET exam + POST answers)."""
    results = {}
    for dep in (WARM, COLD):
        folder = os.path.join(out, "load", dep)
        pods, failed = {}, 0
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                if name.endswith(".csv"):
                    pods[name[:-4]] = load_requests(os.path.join(folder, name))
                    failed += failed_http_requests(os.path.join(folder, name))
        results[dep] = {"pods": pods, "all": [r for reqs in pods.values() for r in reqs], "failed_http": failed}
    return results


def state_rows(results):
    """(label, summary) for the two Deployments, in the published table's row order (warm first)."""
    labels = {WARM: "exam-warm (danki, warmed)", COLD: "exam-cold (no warm-up)"}
    rows = []
    for d in (WARM, COLD):
        summary = summarize(results[d]["all"])
        summary["errors"] = results[d]["failed_http"]
        rows.append((labels[d], summary))
    return rows


def load_table(out):
    header = ["state"] + [f"P{p}" for p in PERCENTILES] + ["flows", "failed HTTP", "pods"]
    results = load_results(out)
    rows = [[label] + [fmt(s[f"p{p}"]) for p in PERCENTILES] + [s["count"], s["errors"], len(results[d]["pods"])]
            for (label, s), d in zip(state_rows(results), (WARM, COLD))]
    rows += [[label] + [fmt(v) for v in vs] + ["100", "-", "1"] for label, vs in PUBLISHED]
    return text_table(header, rows) + ("\n(ms per exam start: GET /exams/{id} then POST its answers; each new pod got "
                                       "20 of them a second for 5 s. Published rows for reference.)")


def verdict(out):
    (_, warm), (_, cold) = state_rows(load_results(out))
    if not warm["count"] or not cold["count"]:
        return "No comparison: one of the Deployments got no load (see the log above)."
    w, c = warm["p95"], cold["p95"]
    results = load_results(out)
    pods = f" ({len(results[WARM]['pods'])} warmed and {len(results[COLD]['pods'])} cold new pods were Ready for the load.)"
    if w < c:
        return (f"danki won: exam-start P95 {fmt(w)} ms on the warmed pods vs {fmt(c)} ms on the cold ones "
                f"({c / w:.1f}x lower).{pods}")
    return f"danki did NOT win this run: exam-start P95 {fmt(w)} ms on the warmed pods vs {fmt(c)} ms on the cold ones.{pods}"


def all_ready_at(out, app, want):
    """Seconds from the scale to the first poll where app was all Ready (progress.all_ready; None: never)."""
    path = os.path.join(out, "timeline.jsonl")
    if not os.path.exists(path):
        return None
    for line in open(path):
        poll = json.loads(line)
        if all_ready(poll["pods"], app, want):
            return poll["t"]
    return None


def scale_times(out):
    """One line per Deployment: time to all Ready after the scale, and what that time is made of."""
    meta = load_meta(out)
    want = int(meta.get("replicas", "0"))
    why = {COLD: "new pods joined their Service as soon as they answered /readyz, cold",
           WARM: "each new pod joined only once warmed: its wait for a warm-up slot plus its warm-up "
                 "(WAITED and DURATION in the WarmupRun table below)"}
    lines = [f"time from `kubectl scale` (1 -> {want}) to every pod Ready:"]
    for app in (COLD, WARM):
        t = all_ready_at(out, app, want)
        took = f"{t:6.1f} s" if t is not None else "  not all Ready before the demo's timeout"
        lines.append(f"  {app}  {took}  ({why[app]})")
    return "\n".join(lines)


def main(argv):
    command, out = argv[1], argv[2]
    if command == "runs-table":
        print(runs_table(out))
    elif command == "load-table":
        print(load_table(out))
    elif command == "verdict":
        print(verdict(out))
    elif command == "scale-times":
        print(scale_times(out))
    elif command == "html":
        from html_page import render
        with open(argv[3], "w") as f:
            f.write(render(out, load_meta(out), load_runs(out), load_results(out)))
        print(f"    wrote {argv[3]}")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
