"""Replays candidate warm-up stop rules over the cluster's JIT traces (trace.py): where each would have
stopped, and how much of the JIT's work was done there.

  stop_rules.py TRACES_JSONL [JSON_PATH]   markdown on stdout; with JSON_PATH the figures as JSON
                                          (stop_rule_report.py writes bench/results/stop-rule.md from it)

A trace is one fresh pod under danki's warm-up loop (4 in flight) for a fixed number of requests, with its
CPU, its node's throttling and its JIT compiler threads' CPU sampled on the host. Its answers are cut into
blocks as warmup.js cuts them, and each block gets what k6 could see of it (throughput, P50, P95) and what
only the host sees (the pod's CPU per request, the compiler threads' share of the block's wall time). A
rule sees the blocks one by one, as warmup.js would, and stops at the first block where it says so; the
verdict is read from the host's side at that block: the share of the trace's JIT CPU already spent, and the
CPU per request against the trace's last blocks.
"""

import json
import statistics
import sys

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), "..", "lib"))
from stats import percentile  # noqa: E402


def interpolate(samples, key, t):
    """A counter of SAMPLES (sorted by t; KEY picks its value, None where unread) at host time T."""
    points = [(s["t"], key(s)) for s in samples if key(s) is not None]
    if not points:
        return None
    if t <= points[0][0]:
        return points[0][1]
    for (t0, v0), (t1, v1) in zip(points, points[1:]):
        if t0 <= t <= t1:
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0) if t1 > t0 else v1
    return points[-1][1]


def pod_cpu(s):
    return (s.get("pod") or {}).get("cpu_s")


def compiler_cpu(s):
    return (s.get("jit") or {}).get("compiler_s")


def mxbean(s):
    return s.get("mxbean_ms")


def blocks(trace, size):
    """The trace's answers in blocks of SIZE, each with what k6 and the host saw of it."""
    answers = sorted(trace["answers"])
    samples = sorted(trace["samples"], key=lambda s: s["t"])
    out, start = [], answers[0][0] - answers[0][1] / 1000 if answers else None
    for i in range(0, len(answers) - size + 1, size):
        block = answers[i:i + size]
        end = block[-1][0]
        wall = end - start
        latencies = [ms for _, ms in block]
        cpu = [interpolate(samples, pod_cpu, t) for t in (start, end)]
        jit = [interpolate(samples, compiler_cpu, t) for t in (start, end)]
        mx = [interpolate(samples, mxbean, t) for t in (start, end)]
        out.append({"requests": i + size, "end": end, "wall_s": wall, "throughput": size / wall if wall > 0 else None,
                    "p50": percentile(latencies, 50), "p95": percentile(latencies, 95),
                    "cpu_ms_per_request": (cpu[1] - cpu[0]) * 1000 / size if None not in cpu else None,
                    "jit_cpu_s": jit[1], "jit_share": (jit[1] - jit[0]) / wall if None not in jit and wall > 0 else None,
                    "mxbean_share": (mx[1] - mx[0]) / 1000 / wall if None not in mx and wall > 0 else None})
        start = end
    return out


# ---- the rules, each a function of the blocks seen so far -> stop now? -------------------------------------

def plateau(values, stable, tolerance, better):
    """The last STABLE values did not beat the best before them by more than TOLERANCE (a share of it)."""
    if len(values) < stable + 1:
        return False
    earlier, recent = values[:-stable], values[-stable:]
    if better == "lower":
        best, now = min(earlier), min(recent)
        return best - now <= tolerance * best
    best, now = max(earlier), max(recent)
    return now - best <= tolerance * best


def rule(name, key, better, stable, tolerance, floor):
    def stop(seen):
        return seen[-1]["requests"] >= floor and plateau([b[key] for b in seen], stable, tolerance, better)
    return {"name": name, "key": key, "stable": stable, "tolerance": tolerance, "floor": floor, "stop": stop}


def windows(name, key, window, tolerance, floor, better="higher"):
    """The median of the last WINDOW blocks' KEY gained at most TOLERANCE over the median of the WINDOW blocks
    before them: a plateau judged on medians, so one lucky or unlucky block moves neither. With better="lower" KEY
    is a cost, which fell by at most TOLERANCE of the recent median: warmup.js's cpu rule (convergence.js
    cpuStopReason), which at a fixed CPU share stops where the higher-is-better rule does on throughput."""
    def stop(seen):
        if seen[-1]["requests"] < floor or len(seen) < 2 * window or any(b[key] is None for b in seen[-2 * window:]):
            return False
        now = statistics.median(b[key] for b in seen[-window:])
        before = statistics.median(b[key] for b in seen[-2 * window:-window])
        if better == "lower":
            return before - now <= tolerance * now
        return now - before <= tolerance * before
    return {"name": name, "key": key, "window": window, "tolerance": tolerance, "floor": floor, "stop": stop}


def both(name, first, second):
    """FIRST and SECOND both say stop: a plateau rule with the compiler quiet, as warmup.js's jit and cpu rules."""
    return {"name": name, "floor": first["floor"], "stop": lambda seen: first["stop"](seen) and second["stop"](seen)}


def slope(name, key, window, per_1000, floor):
    """The least-squares slope of log KEY over the last WINDOW blocks, per 1,000 requests, is at most PER_1000:
    throughput still rising by less than that share per 1,000 more requests."""
    import math

    def stop(seen):
        if seen[-1]["requests"] < floor or len(seen) < window:
            return False
        xs = [b["requests"] / 1000 for b in seen[-window:]]
        ys = [math.log(b[key]) for b in seen[-window:]]
        mx, my = sum(xs) / window, sum(ys) / window
        k = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        return k <= math.log(1 + per_1000)
    return {"name": name, "key": key, "window": window, "per_1000": per_1000, "floor": floor, "stop": stop}


def share_rule(name, key, quiet, stable, floor):
    def stop(seen):
        shares = [b[key] for b in seen[-stable:]]
        return (seen[-1]["requests"] >= floor and len(seen) >= stable
                and all(s is not None and s <= quiet for s in shares))
    return {"name": name, "key": key, "quiet": quiet, "stable": stable, "floor": floor, "stop": stop}


def candidates():
    rules = [rule("latency P95 (the rule before)", "p95", "lower", 3, 0.05, 2000)]
    for floor in (300, 1000):
        for stable in (2, 3):
            for tolerance in (0.05, 0.1):
                rules.append(rule(f"throughput best, {stable} blocks within {tolerance:.0%}, floor {floor}", "throughput",
                                  "higher", stable, tolerance, floor))
        for window in (2, 3):
            for tolerance in (0.05, 0.1):
                rules.append(windows(f"throughput medians, windows of {window}, gain <= {tolerance:.0%}, floor {floor}",
                                     "throughput", window, tolerance, floor))
        for window in (4, 6):
            for per_1000 in (0.05, 0.1):
                rules.append(slope(f"throughput slope over {window} blocks <= {per_1000:.0%} per 1,000, floor {floor}",
                                   "throughput", window, per_1000, floor))
        rules.append(rule(f"P50, 3 blocks within 5%, floor {floor}", "p50", "lower", 3, 0.05, floor))
        rules.append(share_rule(f"compile share (MXBean) <= 50%, 2 blocks, floor {floor}", "mxbean_share", 0.5, 2, floor))
        rules.append(windows(f"CPU per request medians, windows of 3, fall <= 10%, floor {floor}",
                             "cpu_ms_per_request", 3, 0.1, floor, better="lower"))
        quiet = share_rule("", "mxbean_share", 0.5, 2, floor)
        rules.append(both(f"jit: throughput medians (3, 10%) and compile share <= 50% twice, floor {floor}",
                          windows("", "throughput", 3, 0.1, floor), quiet))
        rules.append(both(f"cpu: CPU per request medians (3, 10%) and compile share <= 50% twice, floor {floor}",
                          windows("", "cpu_ms_per_request", 3, 0.1, floor, better="lower"), quiet))
    return rules


SHARE_CHANGES = (
    ("halved at 1,000 requests", lambda requests: 0.5 if requests > 1000 else 1.0),
    ("doubled at 1,000 requests", lambda requests: 2.0 if requests > 1000 else 1.0),
    ("halved from 1,000 to 2,000 requests", lambda requests: 0.5 if 1000 < requests <= 2000 else 1.0),
)
"""What a neighbour does to a pod's share of its node's CPU (a burst; a JVM done starting; a burst that ends), as
factors on the share by request count. The traces ran one pod per node, so their share was fixed."""

SHARE_RULES = (("throughput medians (3, 10%), floor 300", lambda: windows("", "throughput", 3, 0.1, 300)),
               ("CPU per request medians (3, 10%), floor 300",
                lambda: windows("", "cpu_ms_per_request", 3, 0.1, 300, better="lower")))


def with_share(trace_blocks, factor):
    """The blocks as a pod whose CPU share was FACTOR(requests) times the trace's would have shown them: the closed
    loop keeps the pod saturated, so a block's throughput scales with the share; its CPU per request does not."""
    return [{**b, "throughput": b["throughput"] * factor(b["requests"])} for b in trace_blocks]


def share_changes(traces, size=200):
    """Per target, change and rule: where the rule stops on the traces with the share changed, against where it
    stops on the traces as they ran (medians over the pods)."""
    out = {}
    for target in sorted({t["target"] for t in traces}):
        all_blocks = [blocks(t, size) for t in traces if t["target"] == target]
        rows = []
        for rule_name, make in SHARE_RULES:
            fixed = [verdict(b, replay(b, make())) for b in all_blocks]
            for change, factor in SHARE_CHANGES:
                changed = [verdict(b, replay(with_share(b, factor), make())) for b in all_blocks]
                rows.append({"rule": rule_name, "change": change,
                             "requests_fixed": statistics.median(v["requests"] for v in fixed),
                             "requests": statistics.median(v["requests"] for v in changed),
                             "requests_each": [v["requests"] for v in changed],
                             "cpu_per_request_over_final": statistics.median(
                                 v["cpu_per_request_over_final"] for v in changed)})
        out[target] = {"block_size": size, "pods": len(all_blocks), "rows": rows}
    return out


def replay(trace_blocks, candidate):
    for i in range(len(trace_blocks)):
        if candidate["stop"](trace_blocks[: i + 1]):
            return i
    return None


def verdict(trace_blocks, i):
    """The host's view at block I: the share of the trace's JIT CPU spent, CPU per request against the last
    five blocks'."""
    jit_end = trace_blocks[-1]["jit_cpu_s"]
    final_cpu = statistics.median(b["cpu_ms_per_request"] for b in trace_blocks[-5:] if b["cpu_ms_per_request"])
    b = trace_blocks[i] if i is not None else trace_blocks[-1]
    return {"requests": b["requests"], "seconds": b["end"] - trace_blocks[0]["end"] + trace_blocks[0]["wall_s"],
            "jit_done": b["jit_cpu_s"] / jit_end if jit_end else None,
            "cpu_per_request_over_final": b["cpu_ms_per_request"] / final_cpu if final_cpu else None,
            "stopped": i is not None}


BLOCK_SIZES = (100, 200)
MILESTONES = (600, 1000, 2000, 4000, 8000)
"""Requests at which the JIT-at-work table reads each trace."""


def analyse(traces, size):
    per_target = {}
    for t in traces:
        per_target.setdefault(t["target"], []).append(blocks(t, size))
    results = {}
    for target, all_blocks in per_target.items():
        rows = []
        for candidate in candidates():
            verdicts = [verdict(b, replay(b, candidate)) for b in all_blocks]
            rows.append({"rule": candidate["name"], "pods": len(verdicts),
                         "stopped": sum(v["stopped"] for v in verdicts),
                         **{k: statistics.median(v[k] for v in verdicts if v[k] is not None)
                            for k in ("requests", "seconds", "jit_done", "cpu_per_request_over_final")},
                         "jit_done_min": min(v["jit_done"] for v in verdicts if v["jit_done"] is not None)})
        results[target] = {"block_size": size, "rules": rows}
    return results


def jit_at_work(traces):
    """Per target, medians over its traces at each milestone: seconds since the first answer, requests/s of
    the block ending there, CPU per request, the compiler threads' share of the pod's CPU and of the wall
    time; and over each whole trace, its node's throttled share of CFS periods, and the compiler CPU spent
    in the TAIL after the load stopped."""
    out = {}
    for target in sorted({t["target"] for t in traces}):
        mine = [t for t in traces if t["target"] == target]
        rows = []
        for m in MILESTONES:
            at = [next((b for b in blocks(t, 200) if b["requests"] >= m), None) for t in mine]
            at = [b for b in at if b]
            if not at:
                continue
            t0 = [blocks(t, 200)[0] for t in mine]
            rows.append({"requests": m,
                         "seconds": statistics.median(b["end"] - first["end"] + first["wall_s"] for b, first in zip(at, t0)),
                         "throughput": statistics.median(b["throughput"] for b in at),
                         "cpu_ms_per_request": statistics.median(b["cpu_ms_per_request"] for b in at),
                         "jit_share_of_wall": statistics.median(b["jit_share"] for b in at if b["jit_share"] is not None)})
        throttled, tails, shares = [], [], []
        for t in mine:
            samples = sorted(t["samples"], key=lambda x: x["t"])
            loaded = [x for x in samples if x["t"] <= t["t_end"] and x.get("node") and x.get("jit")]
            first, last = loaded[0], loaded[-1]
            periods = last["node"]["nr_periods"] - first["node"]["nr_periods"]
            throttled.append((last["node"]["nr_throttled"] - first["node"]["nr_throttled"]) / periods if periods else None)
            pod = last["pod"]["cpu_s"] - first["pod"]["cpu_s"]
            shares.append((last["jit"]["compiler_s"] - first["jit"]["compiler_s"]) / pod if pod else None)
            after = [x for x in samples if x["t"] > t["t_end"] and x.get("jit")]
            if after:
                tails.append(after[-1]["jit"]["compiler_s"] - last["jit"]["compiler_s"])
        out[target] = {"pods": len(mine), "requests": mine[0]["requests"], "milestones": rows,
                       "node_throttled_share": statistics.median(v for v in throttled if v is not None),
                       "compiler_share_of_pod_cpu": statistics.median(v for v in shares if v is not None),
                       "compiler_cpu_s_after_load": statistics.median(tails) if tails else None,
                       "tail_s": mine[0].get("t_end") and statistics.median(
                           max(x["t"] for x in t["samples"]) - t["t_end"] for t in mine)}
    return out


def markdown(results):
    out = []
    for target, r in results.items():
        out += [f"### {target}, blocks of {r['block_size']}", "",
                "| rule | stopped | requests (median) | seconds (median) | JIT CPU done (median, min) | "
                "CPU per request / final |", "|---|---|---|---|---|---|"]
        for row in r["rules"]:
            out.append(f"| {row['rule']} | {row['stopped']}/{row['pods']} | {row['requests']:,.0f} | "
                       f"{row['seconds']:.1f} | {row['jit_done']:.0%}, {row['jit_done_min']:.0%} | "
                       f"{row['cpu_per_request_over_final']:.2f}x |")
        out.append("")
    return "\n".join(out)


def main(argv):
    traces = [json.loads(line) for line in open(argv[1])]
    by_size = {size: analyse(traces, size) for size in BLOCK_SIZES}
    print("\n".join(markdown(r) for r in by_size.values()))
    if len(argv) > 2 and argv[2] != "-":
        with open(argv[2], "w") as f:
            json.dump({"pods": len(traces), "jit_at_work": jit_at_work(traces),
                       "replay": {str(size): r for size, r in by_size.items()},
                       "share_changes": share_changes(traces)}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
