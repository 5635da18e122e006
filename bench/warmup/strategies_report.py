"""The `single` and `scaleup` sections of bench/results/warmup.md and warmup.json: per target and
strategy, how soon the new pods were Ready and how warm they were, and whether the goals were met."""

import statistics
from datetime import datetime

LABELS = {"none": "no warm-up", "serial_fixed100": "serial fixed 100 (simulated peer)", "danki": "danki (defaults)",
          "danki_jit": "danki with danki.dev/jit-metrics"}
GOAL_RATIO = 1.25
GOAL_SINGLE_S = 15.0


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def run_seconds(run, start="startTime", end="completionTime"):
    try:
        parse = lambda t: datetime.fromisoformat(t.replace("Z", "+00:00"))  # noqa: E731
        return (parse(run[end]) - parse(run[start])).total_seconds()
    except (KeyError, TypeError, ValueError):
        return None


def summary(r):
    """The figures warmup.json keeps for one record."""
    pods = r["pods"].values()
    gaps = [p["ready"] - p["containers_ready"] for p in pods if p["ready"] and p["containers_ready"]]
    ratios = [q["ratio"] for q in r["quality"].values() if q["ratio"] is not None]
    runs = list((r.get("runs") or {}).values())
    out = {
        "pods": len(r["pods"]), "pods_ready": sum(1 for p in pods if p["ready"]),
        "all_ready_s": r["all_ready_s"], "containers_ready_to_ready_s_median": median(gaps),
        "containers_ready_to_ready_s_max": max(gaps) if gaps else None,
        "first100_over_fully_warm_median": median(ratios),
        "first100_over_fully_warm": sorted(ratios),
        "first100_p95_ms_median": median(q["first100"]["p95"] for q in r["quality"].values()),
        "fully_warm_p95_ms_median": median(q["steady_p95"] for q in r["quality"].values()),
        "cpu_s": {k: round(v, 2) for k, v in r["cpu"].items() if isinstance(v, float)},
        "machine_busy_share": r["cpu"].get("machine_busy_share"), "wall_s": r["wall_s"],
    }
    if runs:
        out["warmup_requests"] = sorted((x.get("requests") or {}).get("warmup", 0) for x in runs)
        out["stop_reasons"] = sorted(x.get("stopReason") or x.get("reason") or "?" for x in runs)
        out["queue_wait"] = [x.get("queueWait") for x in runs]
    if r["section"] == "single":
        out["containers_ready_to_ready_s"] = gaps[0] if gaps else None
        out["first100_over_fully_warm"] = ratios[0] if ratios else None
    return out


def as_json(records):
    """warmup.json: per target, section and strategy; the sample's also at the top as the issue names them."""
    targets = {}
    for r in records:
        targets.setdefault(r["target"], {}).setdefault(r["section"], {})[r["strategy"]] = summary(r)
    doc = {"targets": targets, "goals": goals(targets)}
    doc.update(targets.get("sample", {}))
    return doc


def goal_row(name, target, value, limit, why=None):
    """One entry of warmup.json's goals: met when VALUE is at most LIMIT; where missed, by how much and why."""
    met = value is not None and value <= limit
    return {"goal": name, "target": target, "value": value, "limit": limit, "met": met,
            "over_by": None if met or value is None else value / limit, "why": None if met else why}


def goals(targets):
    """The throughput issue's goals, each with its measured value and, where missed, by how much."""
    result = []

    def goal(*args):
        result.append(goal_row(*args))

    for target, sections in targets.items():
        up = sections.get("scaleup", {})
        danki, serial = up.get("danki"), up.get("serial_fixed100")
        if danki and serial and danki["all_ready_s"] and serial["all_ready_s"]:
            goal("scale-up all Ready, danki / serial fixed 100", target, danki["all_ready_s"] / serial["all_ready_s"],
                 1.0, cpu_reason(danki))
        if danki:
            goal("scale-up median first-100 P95 / fully warm", target, danki["first100_over_fully_warm_median"],
                 GOAL_RATIO, cpu_reason(danki))
        single = sections.get("single", {}).get("danki")
        if single:
            goal("one new pod: ContainersReady -> Ready (s)", target, single["containers_ready_to_ready_s"],
                 GOAL_SINGLE_S, cpu_reason(single))
            goal("one new pod: first-100 P95 / fully warm", target, single["first100_over_fully_warm"], GOAL_RATIO,
                 cpu_reason(single))
    return result


def cpu_reason(s):
    busy = s.get("machine_busy_share")
    cpu = s["cpu_s"]
    if busy is None:
        return None
    return (f"machine {busy * 100:.0f} % busy over {s['wall_s']:.0f} s on {cpu.get('cores', 2)} cores: pod JVMs "
            f"{cpu.get('pods', 0):.0f} CPU s, operator {cpu.get('operator', 0):.0f}, its k6 {cpu.get('operator_k6', 0):.0f}, "
            f"harness k6 {cpu.get('harness_children', 0):.0f}, control plane {cpu.get('control_plane', 0):.0f}, "
            f"kubelets, containerd and net agent {cpu.get('node_daemons', 0):.0f}")


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def fmt(v, unit="", digits=1):
    return "-" if v is None else f"{v:,.{digits}f}{unit}"


def section_markdown(records, section):
    rows = []
    for r in records:
        s = summary(r)
        rows.append([r["target"], LABELS.get(r["strategy"], r["strategy"]), f"{s['pods_ready']}/{s['pods']}",
                     fmt(s["all_ready_s"], " s"), fmt(s["containers_ready_to_ready_s_median"], " s"),
                     ", ".join(str(n) for n in s.get("warmup_requests", [])) or "-",
                     fmt(s["first100_p95_ms_median"], " ms"), fmt(s["fully_warm_p95_ms_median"], " ms"),
                     fmt(s["first100_over_fully_warm_median"], "x", 2),
                     fmt((s["machine_busy_share"] or 0) * 100, " %", 0)])
    return table(["target", "strategy", "Ready", "scale -> all Ready", "ContainersReady -> Ready (median)",
                  "warm-up requests per pod", "first-100 P95 (median)", "fully warm P95 (median)",
                  "first-100 / fully warm (median of pods)", "CPU busy"], rows)


def goals_markdown(doc):
    rows = [[g["goal"], g["target"], fmt(g["value"], "", 2), g["limit"], "met" if g["met"] else
             f"missed by {fmt(g['over_by'], 'x', 2)}", g["why"] or ""] for g in doc["goals"]]
    return table(["goal", "target", "measured", "limit", "", "CPU while it ran (where missed)"], rows)


def danki_split(records):
    """danki's single-pod time, split from its WarmupRun: reaction, k6 start-up, the run."""
    rows = []
    for r in records:
        if r["section"] != "single" or not r["strategy"].startswith("danki"):
            continue
        run = next(iter((r.get("runs") or {}).values()), {})
        pod = next(iter(r["pods"].values()))
        total = pod["ready"] - pod["containers_ready"] if pod["ready"] and pod["containers_ready"] else None
        ev = run.get("stopEvidence") or {}
        reaction, k6_start = run.get("reactionMillis"), run.get("k6StartupMillis")
        rows.append([r["target"], LABELS[r["strategy"]], fmt(total, " s", 2),
                     fmt((reaction - k6_start) / 1000 if reaction is not None and k6_start is not None else None, " s", 2),
                     fmt(k6_start / 1000 if k6_start is not None else None, " s", 2), fmt(run_seconds(run), " s", 2),
                     f"{run.get('stopReason', '-')} after {ev.get('requests', '-')} ({ev.get('requestsPerSecond', '-')}/s)",
                     fmt(ev.get("jitCompileMillis"), " ms", 0)])
    return table(["target", "strategy", "ContainersReady -> Ready", "operator reaction before k6", "k6 start-up",
                  "k6 run (cold, warm-up, warm)", "warm-up stop", "JIT compile time in warm-up"], rows)
