"""Writes bench/results/warmup.md (on stdout) from one run's records.jsonl (bench/warmup/measure.py)."""

import json
import statistics
import sys
from datetime import datetime

STRATEGY_LABELS = {"none": "no warm-up", "fixed3": "fixed 3 requests", "fixed100": "fixed 100 requests",
                   "danki": "danki adaptive"}


def ms(v):
    return "-" if v is None else f"{v:,.0f}" if v >= 10 else f"{v:.1f}"


def sec(v):
    return "-" if v is None else f"{v:.2f}"


def ratio(a, b):
    if a is None or not b:
        return "-"
    return f"{a / b:.2f}x" if a / b < 1 else f"{a / b:.1f}x"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def warmup_requests(r):
    if r["strategy"] == "none":
        return "0"
    if r["strategy"].startswith("fixed"):
        return r["strategy"][5:]
    req = (r.get("run") or {}).get("requests") or {}
    return f"{req.get('total', '?')} ({req.get('cold', '?')} cold + {req.get('warmup', '?')} + {req.get('warm', '?')} warm)"


def steady_of(r):
    """The fully warm pass with the median P95 (a run records several; older runs one)."""
    passes = r["steady"] if isinstance(r["steady"], list) else [r["steady"]]
    passes = [p for p in passes if p.get("p95") is not None] or passes
    return sorted(passes, key=lambda p: p.get("p95") or 0)[len(passes) // 2]


def quality(records):
    rows = []
    none = next((r["first100"].get("p95") for r in records if r["strategy"] == "none"), None)
    for r in records:
        f, s = r["first100"], steady_of(r)
        rows.append([STRATEGY_LABELS.get(r["strategy"], r["strategy"]), warmup_requests(r)]
                    + [ms(f.get(f"p{p}")) for p in (25, 50, 75, 90, 95)]
                    + [ms(s.get("p95")), ratio(f.get("p95"), s.get("p95")), ratio(f.get("p95"), none),
                       f.get("errors", "-")])
    text = table(["strategy", "warm-up requests", "P25", "P50", "P75", "P90", "P95 (first 100)",
                  "fully warm P95", "first-100 P95 / fully warm P95", "first-100 P95 / no warm-up's",
                  "errors"], rows)
    passes = [p["p95"] for r in records for p in (r["steady"] if isinstance(r["steady"], list) else [r["steady"]])
              if p.get("p95") is not None]
    if len(passes) > 1:
        text += (f"\n\nThe fully warm P95 is the median of {len(passes) // max(len(records), 1)} passes per pod; single "
                 f"passes ranged from {min(passes):.0f} to {max(passes):.0f} ms across all pods, which is the noise of "
                 "this machine. A ratio near or below 1x means the pod's first 100 requests were as fast as its later "
                 "fully warm self, within that noise.")
    polled = [r for r in records if r.get("poll")]
    if polled:
        starts = ", ".join(f"{STRATEGY_LABELS.get(r['strategy'], r['strategy'])} {r['t_containers_ready'] - r['t_scale']:.0f} s"
                           for r in records)
        text += ("\n\n**Caveat of this run:** to time danki's warm-up requests from outside, the harness polled every "
                 "pod's `/metrics` about 10 times a second from the moment it had an IP until it was Ready. That "
                 "traffic also warms Netty and Ktor's request pipeline (not the exam routes), for as long as each "
                 f"pod took to start ({starts}). It flatters the strategies whose pods started slowly against no "
                 "warm-up. The harness now leaves it off unless BENCH_POLL=1.")
    return text


def cost(records, startup, shutdown):
    rows = []
    danki = next((r for r in records if r["strategy"] == "danki"), None)
    danki_t = danki["t_ready"] - danki["t_containers_ready"] if danki else None
    for r in records:
        t = r["t_ready"] - r["t_containers_ready"]
        k6_run = r["t_ready"] - r["t_k6_start"] if r.get("t_k6_start") else run_seconds(r.get("run") or {})
        rows.append([STRATEGY_LABELS.get(r["strategy"], r["strategy"]), sec(t), ratio(t, danki_t), sec(k6_run),
                     sec(r["t_containers_ready"] - r["t_scale"])])
    text = table(["strategy", "ContainersReady -> Ready (s)", "/ danki's", "of which the k6 run (exec -> exit, s)",
                  "scale -> ContainersReady (s)"], rows)
    text += ("\n\nThe fixed strategies are simulated by this harness: Ready is when their k6 run exited (a gate "
             "would open then). Their ContainersReady -> Ready also holds the harness's own reaction (a kubectl "
             "watch polled every 0.2 s), so the k6 run alone is their cost with an instant operator.")
    if danki:
        text += "\n\n" + danki_split(danki, startup, shutdown)
    return text


def run_seconds(run):
    """startTime -> completionTime of a WarmupRun: k6 from its start to its exit, and the summary read."""
    try:
        parse = lambda t: datetime.fromisoformat(t.replace("Z", "+00:00"))
        return (parse(run["completionTime"]) - parse(run["startTime"])).total_seconds()
    except (KeyError, TypeError, ValueError):
        return None


def danki_split(r, startup, shutdown):
    poll = r.get("poll") or {}
    run = r.get("run") or {}
    total = r["t_ready"] - r["t_containers_ready"]
    reaction = run.get("reactionMillis")
    k6_startup = run.get("k6StartupMillis")
    before_k6 = (reaction - k6_startup) / 1000.0 if reaction is not None and k6_startup is not None else None
    k6_run = run_seconds(run)
    patch = (r.get("gate_patch") or {}).get("mean_s")
    rest = total - (before_k6 or 0) - (k6_run or 0) if before_k6 is not None and k6_run is not None else None
    first, last = poll.get("first_move"), poll.get("last_move")
    rows = [
        ["total: ContainersReady -> Ready, as a watch on the host saw both", sec(total), "100 %"],
        ["operator reaction before k6: its informer delivers ContainersReady -> k6 started "
         "(`reactionMillis` - `k6StartupMillis`)", sec(before_k6), share(before_k6, total)],
        ["k6 start-up: k6 started -> its first request (`k6StartupMillis`)",
         sec(k6_startup / 1000.0 if k6_startup is not None else None), share(k6_startup and k6_startup / 1000.0, total)],
        ["the warm-up run: k6 started -> k6 exited and its summary read (`startTime` -> `completionTime`; "
         "cold pass, warm-up, warm pass)", sec(k6_run), share(k6_run, total)],
        ["the rest: informer delivery, the status patch, the node agent's Ready, watch delivery",
         sec(rest), share(rest, total)],
        ["  of which the `pods/status` patch itself (`danki_gate_patch_duration_seconds`, mean of "
         f"{(r.get('gate_patch') or {}).get('patches', '?')})", sec(patch), share(patch, total)],
    ]
    text = "danki's time split:\n\n" + table(["part", "s", "of total"], rows)
    k6_start = statistics.median(startup) if startup else None
    k6_stop = statistics.median(shutdown) if shutdown else None
    text += ("\n\nFor scale, a bare k6 on this machine (one request to a warm pod, median of 5 runs) takes "
             f"{sec(k6_start)} s from exec to its first request and {sec(k6_stop)} s from its last answer to its exit.")
    if first and last:
        text += (f" Seen from the pod (its warm-up counter polled every 0.1 s): first warm-up request "
                 f"{sec(first - r['t_containers_ready'])} s after ContainersReady, last one {sec(last - first)} s later.")
    return text


def share(part, total):
    return "-" if part is None or not total else f"{part / total * 100:.0f} %"


def scale(records):
    """One row per (N, concurrency), with ratios to N=4 at the same concurrency (how time grows with N)
    and to the default concurrency 4 at the same N (what the setting buys)."""
    rows, totals = [], {}
    for r in records:
        ready = [p["ready"] for p in r["pods"].values() if p["ready"]]
        if len(ready) == r["n"]:
            totals[(r["n"], r["concurrency"])] = max(ready) - r["t_scale"]
    for r in records:
        pods = r["pods"].values()
        ready = [p["ready"] for p in pods if p["ready"]]
        gaps = [p["ready"] - p["containersReady"] for p in pods if p["ready"] and p["containersReady"]]
        cpu = r["after"]["cpu_s"] - r["before"]["cpu_s"]
        k6 = r["after"]["children_cpu_s"] - r["before"]["children_cpu_s"]
        n, c = r["n"], r["concurrency"]
        total = totals.get((n, c))
        smallest = min((m for m, cc in totals if cc == c), default=None)
        rows.append([n, c, f"{len(ready)}/{n}", sec(total) if total else "- (not all Ready)",
                     ratio(total, totals.get((smallest, c))) if smallest and smallest != n else "1x" if total else "-",
                     ratio(total, totals.get((n, 4))) if c != 4 else "1x" if total else "-",
                     sec(statistics.mean(gaps)) if gaps else "-", sec(max(gaps)) if gaps else "-",
                     sec(cpu / n), sec(k6 / n)])
    return table(["N", "concurrency", "Ready", "scale -> all Ready (s)", "/ smallest N's time",
                  "/ concurrency 4's time", "mean ContainersReady -> Ready (s)", "max ContainersReady -> Ready (s)",
                  "operator JVM CPU s / warmed pod", "k6 CPU s / warmed pod"], rows)


def idle_cpu_per_pod(idle, full, n):
    """Idle CPU a cached pod adds; a full cache idling no busier than an empty one is below what a sample shows."""
    added = (full["cpu_per_s"] - idle["cpu_per_s"]) * 1e6 / n
    return f"{added:.1f} µs per second" if added > 0 else "none measurable (the full cache idled no busier)"


def cache(r):
    idle, full = r["idle"], r["full"]
    n = r["pods"]
    ingest = r["ingest_after"]["cpu_s"] - r["ingest_before"]["cpu_s"]
    heap0, heap1 = r.get("heap_before_mib"), r.get("heap_after_mib")
    rows = [["RSS (MiB)", f"{idle['rss_mib']:.0f}", f"{full['rss_mib']:.0f}",
             f"{(full['rss_mib'] - idle['rss_mib']) * 1024 / n:.1f} KiB"],
            ["CPU while idle (% of one core)", f"{idle['cpu_per_s'] * 100:.1f}", f"{full['cpu_per_s'] * 100:.1f}",
             idle_cpu_per_pod(idle, full, n)],
            ["JVM old generation used (MiB)", "-" if heap0 is None else f"{heap0:.0f}", "-" if heap1 is None else f"{heap1:.0f}",
             "-" if heap0 is None or heap1 is None else f"{(heap1 - heap0) * 1024 / n:.1f} KiB"]]
    text = table(["operator", "no fake pods", f"{n} opted-in pods cached", "per cached pod"], rows)
    text += (f"\n\nRatio, {n} pods cached to none: RSS {ratio(full['rss_mib'], idle['rss_mib'])}"
             + (f", old generation {ratio(heap1, heap0)}" if heap0 and heap1 else "") + ".")
    text += (f"\n\nIngesting the {n} pods (creation plus status writes, 20 s settle) cost the operator "
             f"{ingest:.2f} CPU s ({ingest * 1000 / n:.2f} ms per pod). WarmupRuns created for them: "
             f"{r.get('warmupruns_created', '-')} (expected 0: they are already warmed). RSS and heap are single "
             "samples of a JVM whose memory grows and shrinks with GC, so the per-pod figures are rough.")
    return text


def main(path):
    records = [json.loads(line) for line in open(path)]
    by = lambda s: [r for r in records if r["section"] == s]
    machine = (by("machine") or [{}])[0]
    out = ["# Warm-up benchmarks (`make bench`)", "",
           f"Machine: {machine.get('description', '?')}. Run {machine.get('date', '?')} at commit "
           f"{machine.get('commit', '?')}, {machine.get('k6', 'k6')}. Everything below comes from this one run, "
           "on the embedded local cluster (pods are JVM processes on the same 2 cores as the operator, k6 and "
           "the control plane).", ""]
    if by("quality"):
        out += ["## 1. Warm quality", "",
                "Each strategy gets its own fresh pod (a Deployment scaled 0 -> 1), one strategy at a time. After "
                "its warm-up, the pod gets the exam-start load (20 requests/s for 5 s): the first 100 real requests. "
                f"Then {machine.get('full_warm', '?')} more requests at {machine.get('full_warm_rate', '?')}/s bring "
                "it to its fully warm state, and exam-start runs again on the same pod. Latencies in ms.", "",
                quality(by("quality")), "",
                "## 2. Warm cost", "",
                cost(by("quality"), [s["first"]["first_start_s"] - s["t_exec"] for s in by("k6_startup")
                                     if s["first"].get("count")],
                     [s["t_exit"] - s["first"]["last_end_s"] for s in by("k6_startup")
                      if s["first"].get("count") and s.get("t_exit")]), ""]
    if by("scale"):
        out += ["## 3. Scale", "",
                "An annotated Deployment scaled 0 -> N; time until every new pod is Ready, per operator "
                "concurrency (the chart's `concurrency`). CPU is the operator process's own (JVM) and its k6 "
                "children's, from /proc, over the whole scale-up.", "", scale(by("scale")), ""]
    if by("cache"):
        out += ["## 4. Operator footprint with a full informer cache", "", cache(by("cache")[0]), ""]
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
