"""The `speed` section of bench/results/warmup.md and warmup.json: "warm at the speed of cold" (issue 47). Per
JDK 25 target, new pods whose CPU limit is below their node's budget: no warm-up; danki with every lever on; danki
at the pod's own limit without a cache; and every lever but one, in turn. Goals: with every lever on, a warmed
pod's median time from `kubectl scale` to Ready at most GOAL_SPEED times a pod without warm-up, and its first-100
P95 at most GOAL_QUALITY times the pooled fully warm P95 (the stop-rule issue's goal).

The pooled reference is this section's own: every fully warm pass of the no-warm-up and all-levers pods of the
target, at the pods' own CPU limit (the other sections' pods have no limit, so their floor is lower). A lever's
share is how much slower the pods were Ready without it (its side's median over all levers' median, in seconds),
over what all levers saved against danki at the pod's own limit."""

from aot_report import pod_figures
from stats import median, median_interval
from strategies_report import GOAL_QUALITY, cpu_reason, fmt, goal_row, interval_text, pooled_reference, table
from strategies_report import summary as cell_summary

GOAL_SPEED = 1.5
COLD, ALL, OWN, ALL_CPU = "none", "danki_all", "danki_own", "danki_all_cpu"
SIDES = {COLD: "no warm-up (no boost)", ALL: "danki, every lever on",
         OWN: "danki at the pod's own limit (no boost, no cache)",
         "danki_no_boost": "every lever but the boost", "danki_no_aot": "every lever but the AOT cache",
         "danki_no_apc": "every lever but -XX:ActiveProcessorCount",
         "danki_all_cpu": "every lever, and the metrics page (the cpu rule)"}
LEVERS = {"danki_no_boost": "the boost from admission", "danki_no_aot": "the AOT cache",
          "danki_no_apc": "-XX:ActiveProcessorCount (the declared CPU)"}


def pod_speed(r, name):
    """One pod's figures: aot_report's, and its time from the scale to Ready, its declared CPU and JVM options."""
    figures = pod_figures(r, name)
    pod = r["pods"][name]
    figures["scale_to_ready_s"] = pod["ready"] - r["t_scale"] if pod.get("ready") else None
    figures["declared_cpu"] = (r.get("pod_declared_cpu") or {}).get(name)
    figures["jvm_options"] = (r.get("pod_jvm_options") or {}).get(name)
    return figures


def side(r, reference):
    """One strategy of one target: each pod, the medians with intervals, and the first 100 against the pool."""
    pods = {n: pod_speed(r, n) for n in sorted(r["pods"])}
    cell = cell_summary(r, reference)
    times = [p["scale_to_ready_s"] for p in pods.values()]
    out = {"strategy": r["strategy"], "label": SIDES.get(r["strategy"], r["strategy"]), "pods": pods,
           "own_cpu": r.get("own_cpu"), "training": r.get("training"),
           "pods_ready": sum(1 for p in r["pods"].values() if p["ready"]),
           "scale_to_ready_s_median": median(times), "scale_to_ready_s_interval": median_interval(times)}
    for key in ("start_to_containers_ready_s", "containers_ready_to_ready_s", "first100_p95_ms", "warmup_requests"):
        out[key + "_median"] = median(p[key] for p in pods.values())
    for key in ("first100_p95_over_pooled", "first100_p95_over_pooled_median", "first100_unanswered",
                "first100_node_throttled_share_median", "first100_pod_cpu_s_median", "cpu_s", "machine_busy_share",
                "wall_s", "cores"):
        out[key] = cell.get(key)
    out["first100_p95_over_pooled_interval"] = median_interval(cell.get("first100_p95_over_pooled") or [])
    out["boosts"] = sorted(p["cpu_boost"] or "-" for p in pods.values())
    out["aot_cache_used"] = sum(1 for p in pods.values() if p["aot_cache"] == "used")
    return out


def as_json(records):
    """warmup.json's `speed`: per target its pooled reference, each side, the goals' ratios and each lever's share."""
    doc = {}
    for target in sorted({r["target"] for r in records}):
        mine = [r for r in records if r["target"] == target]
        reference = pooled_reference(mine)
        sides = {r["strategy"]: side(r, reference) for r in mine}
        cold, every, own = (sides.get(s) or {} for s in (COLD, ALL, OWN))
        speed = divide(every.get("scale_to_ready_s_median"), cold.get("scale_to_ready_s_median"))
        saved = minus(own.get("scale_to_ready_s_median"), every.get("scale_to_ready_s_median"))
        levers = {}
        for strategy, lever in LEVERS.items():
            off = sides.get(strategy)
            if off:
                slower = minus(off["scale_to_ready_s_median"], every.get("scale_to_ready_s_median"))
                levers[strategy] = {"lever": lever, "slower_without_s": slower,
                                    "share_of_saving": divide(slower, saved) if saved and saved > 0 else None,
                                    "first100_p95_over_pooled_median": off["first100_p95_over_pooled_median"]}
        doc[target] = {"pooled_fully_warm": reference, "sides": sides, "all_over_cold": speed,
                       "saved_against_own_limit_s": saved, "levers": levers}
    return doc


def divide(a, b):
    return a / b if a is not None and b else None


def minus(a, b):
    return a - b if a is not None and b is not None else None


def goals(doc):
    result = []
    for target, t in doc.items():
        every, cold = t["sides"].get(ALL), t["sides"].get(COLD)
        if not every or not cold:
            continue
        why = cpu_reason(every)
        result.append(goal_row("speed of cold: scale -> Ready, every lever / no warm-up (medians over pods)", target,
                               t["all_over_cold"], GOAL_SPEED, why,
                               f"{fmt(every['scale_to_ready_s_median'], ' s')} "
                               f"({interval_text(every['scale_to_ready_s_interval'], ' s')}) against "
                               f"{fmt(cold['scale_to_ready_s_median'], ' s')} "
                               f"({interval_text(cold['scale_to_ready_s_interval'], ' s')}), "
                               f"{every['pods_ready']} and {cold['pods_ready']} pods"))
        result.append(goal_row("speed of cold: first-100 P95 / pooled fully warm P95, every lever", target,
                               every["first100_p95_over_pooled_median"], GOAL_QUALITY, why,
                               f"95 % interval {interval_text(every['first100_p95_over_pooled_interval'], 'x')}"))
    return result


ROWS = [("pods Ready", lambda s: f"{s['pods_ready']}/{len(s['pods'])}"),
        ("kubectl scale -> Ready (median, 95 % interval)",
         lambda s: f"{fmt(s['scale_to_ready_s_median'], ' s')} ({interval_text(s['scale_to_ready_s_interval'])})"),
        ("start -> ContainersReady (median)", lambda s: fmt(s["start_to_containers_ready_s_median"], " s")),
        ("ContainersReady -> Ready (median)", lambda s: fmt(s["containers_ready_to_ready_s_median"], " s")),
        ("warm-up requests (median)", lambda s: fmt(s["warmup_requests_median"], "", 0)),
        ("first-100 P95 (median)", lambda s: fmt(s["first100_p95_ms_median"], " ms")),
        ("first-100 P95 / pooled (median, 95 % interval)",
         lambda s: f"{fmt(s['first100_p95_over_pooled_median'], 'x', 2)} "
                   f"({interval_text(s['first100_p95_over_pooled_interval'])})"),
        ("first 100 unanswered", lambda s: fmt(s["first100_unanswered"], "", 0)),
        ("CPU boost (WarmupRun)", lambda s: ", ".join(s["boosts"])),
        ("pods from the AOT cache", lambda s: f"{s['aot_cache_used']}/{len(s['pods'])}"),
        ("JVM options danki added", lambda s: ", ".join(sorted({p["jvm_options"] or "-" for p in s["pods"].values()}))),
        ("node throttled (first 100)", lambda s: fmt((s["first100_node_throttled_share_median"] or 0) * 100, " %", 0)
         if s["first100_node_throttled_share_median"] is not None else "-"),
        ("pod CPU s (first 100)", lambda s: fmt(s["first100_pod_cpu_s_median"], " s", 2)),
        ("machine busy (scale to last Ready)", lambda s: fmt((s["machine_busy_share"] or 0) * 100, " %", 0))]


def target_markdown(target, t):
    order = [s for s in (COLD, ALL, OWN, *LEVERS, ALL_CPU) if s in t["sides"]]
    sides = [t["sides"][s] for s in order]
    ref = (t.get("pooled_fully_warm") or {}).get("p95")
    out = [f"### {target}", "",
           f"Own CPU limit {sides[0].get('own_cpu') or '?'}; pooled fully warm P95 "
           f"{fmt(ref and ref['value'], ' ms')} ({interval_text(ref, ' ms')}, {ref and ref['groups']} passes). "
           f"Every lever / no warm-up: **{fmt(t['all_over_cold'], 'x', 2)}** (goal at most {GOAL_SPEED}x).", "",
           table([""] + [s["label"] for s in sides], [[label] + [f(s) for s in sides] for label, f in ROWS])]
    if t["levers"]:
        out += ["", f"Each lever's share: all levers saved {fmt(t['saved_against_own_limit_s'], ' s')} against danki "
                "at the pod's own limit (medians, scale -> Ready).", "",
                table(["lever off", "slower without it", "share of the saving", "first-100 P95 / pooled"],
                      [[v["lever"], fmt(v["slower_without_s"], " s"), fmt((v["share_of_saving"] or 0) * 100, " %", 0)
                        if v["share_of_saving"] is not None else "-", fmt(v["first100_p95_over_pooled_median"], "x", 2)]
                       for v in t["levers"].values()])]
    return "\n".join(out)


def section_markdown(doc):
    return "\n\n".join(target_markdown(t, f) for t, f in doc.items())
