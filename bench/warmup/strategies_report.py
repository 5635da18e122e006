"""The `single`, `scaleup` and `sweep` sections of bench/results/warmup.md and warmup.json: per target and
strategy, how soon the new pods were Ready and how warm they were then, judged against one reference per
target and run: every fully warm pass of every pod, pooled (stats.py gives each figure its bootstrap 95 %
interval, from resampling pods or passes). Whether the goals were met, and whether strategies differ
beyond those intervals."""

import re
from datetime import datetime

from stats import median, median_interval, pooled_percentile_interval, ratio_interval, relative_half_width

LABELS = {"none": "no warm-up", "peer_node100": "node-local warmer, 100 requests (simulated peer)",
          "danki": "danki (defaults)", "danki_jit": "danki with danki.dev/jit-metrics"}
GOAL_SINGLE_S = 15.0
GOAL_QUALITY = 1.5
GOAL_SCALEUP = 2.0
GOAL_REFERENCE = 0.15
PERCENTILES = ("p50", "p90", "p95")


def run_seconds(run, start="startTime", end="completionTime"):
    try:
        parse = lambda t: datetime.fromisoformat(t.replace("Z", "+00:00"))  # noqa: E731
        return (parse(run[end]) - parse(run[start])).total_seconds()
    except (KeyError, TypeError, ValueError):
        return None


METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


def route(request):
    """'GET /exams/12/answers' -> 'GET /exams/{id}/answers': what code a request runs, not its data. (Records
    of the first runs wrote a named request's method twice, 'GET GET /exams/{id}'.)"""
    method, _, path = request.partition(" ")
    if path.split(" ")[0] in METHODS:
        method, _, path = path.partition(" ")
    path = path.split("?")[0]
    return method + " " + re.sub(r"/\d+(?=/|$)", "/{id}", path)


def plan_requests(paths):
    """The 'METHOD /path' of each line of a danki.dev/paths value."""
    return [" ".join(line.split()[:2]) for line in re.split(r"[;\n]", paths) if line.strip()]


def unwarmed(records, plan_paths):
    """The routes the first 100 of these records' pods sent that the plan never warmed."""
    warmed = {route(r) for r in plan_requests(plan_paths)}
    sent = {route(s) for r in records for q in r["quality"].values() for s in (q.get("first100") or {}).get("sent", [])}
    return sorted(sent - warmed)


def pooled_reference(records):
    """Every fully warm pass of every pod of RECORDS (one target, one run): P50, P90, P95 with intervals."""
    passes = [p["latencies"] for r in records for q in r["quality"].values() for p in q.get("steady_passes") or []
              if p.get("latencies")]
    if not passes:
        return None
    return {pct: pooled_percentile_interval(passes, int(pct[1:])) for pct in PERCENTILES}


def pass_cpu(q, part, key):
    """One figure of the CPU counters of a pod's first 100 (podcpu.spent): e.g. the node's throttled share."""
    spent = ((q.get("first100") or {}).get("cpu") or {}).get("spent") or {}
    return (spent.get(part) or {}).get(key)


def summary(r, reference):
    """The figures warmup.json keeps for one cell (a target and a strategy, or a floor of the sweep)."""
    pods, quality = r["pods"], r["quality"]
    gaps = [p["ready"] - p["containers_ready"] for p in pods.values() if p["ready"] and p["containers_ready"]]
    first = {pct: [(q.get("first100") or {}).get(pct) for q in quality.values()] for pct in PERCENTILES}
    out = {
        "pods": len(pods), "pods_ready": sum(1 for p in pods.values() if p["ready"]), "trials": len(r["trials"]),
        "all_ready_s": r["all_ready_s"], "all_ready_s_trials": [t["all_ready_s"] for t in r["trials"]],
        "containers_ready_to_ready_s": sorted(gaps), "containers_ready_to_ready_s_median": median(gaps),
        "containers_ready_to_ready_s_interval": median_interval(gaps),
        "serving_after_ready_s_median": median(p["serving"] - p["ready"] for p in pods.values()
                                               if p.get("serving") and p["ready"]),
        "first100_p95_ms_median": median(first["p95"]),
        # requests k6 gave up on after its 30 s grace: where any, the pod's percentiles are a floor
        "first100_unanswered": sum((q.get("first100") or {}).get("unanswered", 0) for q in quality.values()),
        "first100_values": first,
        "first100": {pct: median_interval(first[pct]) for pct in PERCENTILES},
        "fully_warm_p95_ms_median": median(q.get("steady_p95") for q in quality.values()),
        "jit_cpu_done_at_ready": median_interval([q["jit_cpu_s_at_ready"] / q["jit_cpu_s_fully_warm"]
                                                  for q in quality.values()
                                                  if q.get("jit_cpu_s_at_ready") is not None
                                                  and q.get("jit_cpu_s_fully_warm")]),
        "jit_cpu_s_at_ready_median": median(q.get("jit_cpu_s_at_ready") for q in quality.values()),
        "first100_node_throttled_share_median": median(pass_cpu(q, "node", "throttled_share") for q in quality.values()),
        "first100_node_throttled_s_median": median(pass_cpu(q, "node", "throttled_s") for q in quality.values()),
        "first100_pod_cpu_s_median": median(pass_cpu(q, "pod", "cpu_s") for q in quality.values()),
        "cpu_s": {k: round(sum((t["cpu"] or {}).get(k, 0) for t in r["trials"]), 2)
                  for k in (r["trials"][0]["cpu"] if r["trials"] else {}) if k not in ("machine_busy_share", "cores")},
        "machine_busy_share": median((t["cpu"] or {}).get("machine_busy_share") for t in r["trials"]),
        "wall_s": sum(t["wall_s"] for t in r["trials"]), "cores": (r["trials"][0]["cpu"] or {}).get("cores") if r["trials"] else None,
        "first_errors": r.get("first_errors") or {},
    }
    if reference:
        out["first100_p95_over_pooled"] = [v / reference["p95"]["value"] for v in first["p95"] if v is not None]
        out["first100_p95_over_pooled_median"] = median(out["first100_p95_over_pooled"])
    runs = list((r.get("runs") or {}).values())
    if runs:
        # what the stop rules judged: the closed loop's requests (danki from the throughput rule on also counts
        # the cold figures' first answers there, and its drain in the warm-up phase's count)
        out["warmup_requests"] = sorted((x.get("stopEvidence") or {}).get("requests")
                                        or (x.get("requests") or {}).get("warmup", 0) for x in runs)
        out["stop_reasons"] = sorted(x.get("stopReason") or x.get("reason") or "?" for x in runs)
        out["queue_wait"] = [x.get("queueWait") for x in runs]
        out["run_seconds"] = sorted(s for x in runs if (s := run_seconds(x)) is not None)
    return out


def as_json(records, targets_by_name):
    """warmup.json: per target its pooled reference and, per section, each strategy's (the sweep: each floor's)."""
    targets = {}
    for name in sorted({r["target"] for r in records}):
        mine = [r for r in records if r["target"] == name]
        reference = pooled_reference([r for r in mine if r["section"] in ("single", "scaleup")])
        doc = targets.setdefault(name, {})
        if reference:
            doc["pooled_fully_warm"] = reference
            doc["pooled_fully_warm_p95_ms"] = reference["p95"]["value"]
        plan = targets_by_name.get(name)
        # the sweep's pods are not fully warmed themselves: their JIT work is judged against the median
        # fully warm JIT CPU of the target's pods that were
        full_jit = median(q.get("jit_cpu_s_fully_warm") for r in mine for q in r["quality"].values())
        for r in mine:
            key = f"floor {r.get('floor')}" if r["section"] == "sweep" else r["strategy"]
            cell = doc.setdefault(r["section"], {})[key] = summary(r, reference)
            if r["section"] == "sweep" and full_jit:
                cell["jit_cpu_done_at_ready"] = median_interval([q["jit_cpu_s_at_ready"] / full_jit
                                                                 for q in r["quality"].values()
                                                                 if q.get("jit_cpu_s_at_ready") is not None])
        if full_jit:
            doc["jit_cpu_s_fully_warm_median"] = full_jit
        if plan:
            doc["unwarmed_routes"] = unwarmed(mine, plan.warmup_paths)
    return {"targets": targets, "goals": goals(targets)}


def goal_row(name, target, value, limit, why=None, evidence=None):
    """One entry of warmup.json's goals: met when VALUE is at most LIMIT; where missed, by how much and why;
    EVIDENCE: the interval or comparison the verdict rests on."""
    met = value is not None and value <= limit
    return {"goal": name, "target": target, "value": value, "limit": limit, "met": met,
            "over_by": None if met or value is None else value / limit, "why": None if met else why,
            "evidence": evidence}


def goals(targets):
    """The stop-rule issue's goals, each with its measured value, its interval, and, where missed, by how much."""
    result = []
    for target, t in targets.items():
        single = (t.get("single") or {}).get("danki")
        up = t.get("scaleup") or {}
        danki, none, peer = up.get("danki"), up.get("none"), up.get("peer_node100")
        reference = (t.get("pooled_fully_warm") or {}).get("p95")
        if single:
            interval = single["containers_ready_to_ready_s_interval"]
            result.append(goal_row("one new pod: ContainersReady -> Ready (s), median over pods", target,
                                   single["containers_ready_to_ready_s_median"], GOAL_SINGLE_S, cpu_reason(single),
                                   f"95 % interval {interval_text(interval, ' s')} over {single['pods']} pods"
                                   if interval else None))
        for section, cell in (("one new pod", single), ("scale-up", danki)):
            if cell and reference:
                quality = median_interval(cell["first100_p95_over_pooled"])
                result.append(goal_row(f"{section}: first-100 P95 / pooled fully warm P95, median over pods", target,
                                       cell["first100_p95_over_pooled_median"], GOAL_QUALITY, cpu_reason(cell),
                                       f"95 % interval {interval_text(quality, 'x')}; pooled P95 "
                                       f"{reference['value']:.1f} ms"))
        if danki and none and danki["all_ready_s"] and none["all_ready_s"]:
            result.append(goal_row("scale-up all Ready, danki / no warm-up", target,
                                   danki["all_ready_s"] / none["all_ready_s"], GOAL_SCALEUP, cpu_reason(danki),
                                   f"trials {fmt_list(danki['all_ready_s_trials'], ' s')} against "
                                   f"{fmt_list(none['all_ready_s_trials'], ' s')}"))
        if danki and peer:
            cmp = compare(danki, peer, "p95")
            if cmp:
                # met: the upper end of the ratio's interval is under 1, i.e. lower beyond the noise
                result.append(goal_row("scale-up first-100 P95, danki / peer (upper end of its 95 % interval)", target,
                                       cmp["ci95"][1] if cmp["ci95"] else None, 1.0, cpu_reason(danki),
                                       f"ratio {cmp['value']:.2f}, interval {interval_text(cmp, 'x')}"))
        if reference:
            width = relative_half_width(reference)
            result.append(goal_row("pooled fully warm P95: 95 % interval within +-15 %", target, width, GOAL_REFERENCE,
                                   None, f"{reference['value']:.1f} ms, interval {interval_text(reference, ' ms')} "
                                   f"over {reference['groups']} passes"))
    return result


def compare(a, b, pct):
    """A's median first-100 PCT over B's, with its interval: do they differ beyond their pods' noise?"""
    return ratio_interval(a["first100_values"][pct], b["first100_values"][pct])


def cpu_reason(s):
    busy = s.get("machine_busy_share")
    cpu = s.get("cpu_s") or {}
    if busy is None:
        return None
    throttled = s.get("first100_node_throttled_share_median")
    return (f"machine {busy * 100:.0f} % busy over {s['wall_s']:.0f} s on {s.get('cores') or 2} cores: pod JVMs "
            f"{cpu.get('pods', 0):.0f} CPU s, operator {cpu.get('operator', 0):.0f}, its k6 {cpu.get('operator_k6', 0):.0f}, "
            f"harness k6 {cpu.get('harness_children', 0):.0f}, control plane {cpu.get('control_plane', 0):.0f}, "
            f"kubelets, containerd and net agent {cpu.get('node_daemons', 0):.0f}"
            + (f"; node throttled in {throttled * 100:.0f} % of CFS periods during the first 100" if throttled is not None
               else ""))


def interval_text(interval, unit=""):
    if not interval or not interval.get("ci95"):
        return "-"
    lo, hi = interval["ci95"]
    return f"{lo:,.2f} to {hi:,.2f}{unit}" if hi < 10 else f"{lo:,.1f} to {hi:,.1f}{unit}"


def fmt_list(values, unit=""):
    return ", ".join("-" if v is None else f"{v:.1f}{unit}" for v in values)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def fmt(v, unit="", digits=1):
    return "-" if v is None else f"{v:,.{digits}f}{unit}"


def with_interval(interval, unit, digits=1):
    if not interval:
        return "-"
    return f"{fmt(interval['value'], unit, digits)} ({interval_text(interval)})"


SINGLE_HEADER = ["strategy", "Ready", "ContainersReady -> Ready (median, 95 % interval)", "first 100 unanswered",
                 "first-100 P50",
                 "first-100 P90", "first-100 P95", "first-100 P95 / pooled (median)", "JIT CPU done at Ready",
                 "warm-up requests", "node throttled (first 100)", "pod CPU s (first 100)", "CPU busy"]


def cell_row(label, s):
    """One strategy's (or floor's) row: times and first-100 percentiles with their intervals, and the CPU."""
    return [label, f"{s['pods_ready']}/{s['pods']}", with_interval(s["containers_ready_to_ready_s_interval"], " s"),
            s["first100_unanswered"], with_interval(s["first100"]["p50"], " ms"), with_interval(s["first100"]["p90"], " ms"),
            with_interval(s["first100"]["p95"], " ms"), fmt(s.get("first100_p95_over_pooled_median"), "x", 2),
            with_interval(s["jit_cpu_done_at_ready"], "", 2),
            ", ".join(str(n) for n in s.get("warmup_requests", [])) or "-",
            fmt((s["first100_node_throttled_share_median"] or 0) * 100, " %", 0)
            if s["first100_node_throttled_share_median"] is not None else "-",
            fmt(s["first100_pod_cpu_s_median"], " s", 2), fmt((s["machine_busy_share"] or 0) * 100, " %", 0)]


def section_markdown(doc, section):
    """Per target: its strategies' rows, and how danki compares with each other strategy."""
    out = []
    for target, t in doc["targets"].items():
        cells = t.get(section) or {}
        if not cells:
            continue
        rows = [cell_row(LABELS.get(k, k), c) for k, c in cells.items()]
        header = SINGLE_HEADER[:]
        if section == "scaleup":
            header.insert(2, "scale -> all Ready (each trial)")
            for row, c in zip(rows, cells.values()):
                row.insert(2, fmt_list(c["all_ready_s_trials"], " s"))
        out += [f"### {target}", "", table(header, rows), ""]
        danki = cells.get("danki")
        comparisons = []
        for other in (k for k in cells if k != "danki"):
            if not danki:
                break
            for pct in PERCENTILES:
                cmp = compare(danki, cells[other], pct)
                if cmp:
                    comparisons.append([f"first-100 {pct.upper()}", LABELS.get(other, other), fmt(cmp["value"], "x", 2),
                                        interval_text(cmp, "x"), "yes" if cmp["differs"] else "no"])
        if comparisons:
            out += ["danki against the others (the ratio of medians over pods, and whether its 95 % interval leaves "
                    "out 1):", "", table(["figure", "against", "danki / other", "95 % interval", "differ"],
                                         comparisons), ""]
    return "\n".join(out)


def sweep_markdown(doc):
    out = []
    for target, t in doc["targets"].items():
        cells = t.get("sweep") or {}
        if cells:
            rows = [cell_row(k, c) + [", ".join(sorted(set(c.get("stop_reasons", []))))]
                    for k, c in sorted(cells.items(), key=lambda kc: int(kc[0].split()[-1]))]
            out += [f"### {target}", "", table(SINGLE_HEADER + ["stop reasons"], rows), ""]
    return "\n".join(out)


def reference_markdown(doc):
    rows = []
    for target, t in doc["targets"].items():
        ref = t.get("pooled_fully_warm")
        if ref:
            rows.append([target, ref["p95"]["groups"], ref["p95"]["samples"]]
                        + [with_interval(ref[p], " ms") for p in PERCENTILES]
                        + [fmt(relative_half_width(ref["p95"]) * 100, " %", 1),
                           ", ".join(t.get("unwarmed_routes") or []) or "none"])
    return table(["target", "passes pooled", "requests", "P50", "P90", "P95", "P95 interval, +-", "paths users sent "
                  "that the plan never sent (ids folded to {id})"], rows)


def goals_markdown(doc):
    rows = [[g["goal"], g["target"], fmt(g["value"], "", 2), g["limit"], "met" if g["met"] else
             f"missed by {fmt(g['over_by'], 'x', 2)}", g.get("evidence") or "", g["why"] or ""] for g in doc["goals"]]
    return table(["goal", "target", "measured", "limit", "", "evidence", "CPU while it ran (where missed)"], rows)


def danki_split(records):
    """danki's time from ContainersReady to Ready, pod by pod, from its WarmupRun."""
    rows = []
    for r in records:
        if r["section"] != "single" or not r["strategy"].startswith("danki"):
            continue
        for name, pod in sorted(r["pods"].items(), key=lambda np: np[1]["first_seen"]):
            run = (r.get("runs") or {}).get(name) or {}
            total = pod["ready"] - pod["containers_ready"] if pod["ready"] and pod["containers_ready"] else None
            ev = run.get("stopEvidence") or {}
            reaction, k6_start = run.get("reactionMillis"), run.get("k6StartupMillis")
            rows.append([r["target"], LABELS.get(r["strategy"], r["strategy"]), fmt(total, " s", 2),
                         fmt((reaction - k6_start) / 1000 if reaction is not None and k6_start is not None else None,
                             " s", 2),
                         fmt(k6_start / 1000 if k6_start is not None else None, " s", 2), fmt(run_seconds(run), " s", 2),
                         f"{run.get('stopReason', '-')} after {ev.get('requests', '-')} "
                         f"({fmt(ev.get('requestsPerSecond'), '/s', 0)})"])
    return table(["target", "strategy", "ContainersReady -> Ready", "operator reaction before k6", "k6 start-up",
                  "k6 run (passes and warm-up)", "warm-up stop"], rows)
