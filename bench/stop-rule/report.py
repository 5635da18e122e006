"""Writes bench/results/stop-rule-loopback.md (on stdout) and stop-rule-loopback.json from one `make bench-stop-rule` run's
records (bench/stop-rule/run.py)."""

import json
import statistics
import sys
from collections import defaultdict

GOAL = 1.25
"""First-100 P95 at most this many times the fully warm P95: the issue's bar for "warm"."""


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=1, unit=""):
    return "-" if v is None else f"{v:,.{digits}f}{unit}"


def ratio(r):
    return r["first100"]["p95"] / r["steady_p95"] if r["steady_p95"] else None


def jit_share(r):
    """Share of the JIT work of a fully warm JVM that was done when the warm-up ended."""
    a, b = r.get("jit_ms_after_warmup"), r.get("jit_ms_fully_warm")
    return a / b if a is not None and b else None


def label(variant, section):
    keys = {"needed": ("MAX_WARMUP_REQUESTS",), "concurrency": ("WARMUP_CONCURRENCY",)}.get(section)
    if keys:
        return ", ".join(variant[k] for k in keys)
    return " ".join(f"{k}={v}" for k, v in variant.items() if k != "RULE") or "defaults"


def rows_of(records, section):
    groups = defaultdict(list)
    for r in records:
        if r["section"] == section:
            groups[(r["target"], json.dumps(r["variant"], sort_keys=True))].append(r)
    return groups


def summarize(runs):
    ratios = [ratio(r) for r in runs]
    return {
        "runs": len(runs),
        "stop_reasons": sorted(r["stop"] for r in runs),
        "warmup_requests": median(r["warmup_requests"] for r in runs),
        "warmup_seconds": median((r["evidence"] or {}).get("seconds") for r in runs),
        "requests_per_second": median((r["evidence"] or {}).get("achievedRate") for r in runs),
        "run_seconds": median(r["duration_s"] for r in runs),
        "first100_p95_ms": median(r["first100"]["p95"] for r in runs),
        "fully_warm_p95_ms": median(r["steady_p95"] for r in runs),
        "first100_over_fully_warm_median": median(ratios),
        "first100_over_fully_warm": [round(x, 2) for x in ratios if x is not None],
        "all_within_goal": all(x is not None and x <= GOAL for x in ratios),
        "jit_done_share": median(jit_share(r) for r in runs),
        "jvm_cpu_warmup_s": median(r.get("jvm_cpu_warmup_s") for r in runs),
    }


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def section_table(records, section, first_column):
    rows, doc = [], []
    for (target, variant_json), runs in rows_of(records, section).items():
        variant = json.loads(variant_json)
        s = summarize(runs)
        doc.append({"target": target, "variant": variant, **s})
        rows.append([target, label(variant, section), ", ".join(sorted(set(s["stop_reasons"]))),
                     fmt(s["warmup_requests"], 0), fmt(s["warmup_seconds"], 1, " s"),
                     fmt(s["requests_per_second"], 0), fmt(s["run_seconds"], 1, " s"),
                     fmt(s["first100_p95_ms"], 1), fmt(s["fully_warm_p95_ms"], 1),
                     fmt(s["first100_over_fully_warm_median"], 2, "x"),
                     ", ".join(f"{x:.2f}" for x in s["first100_over_fully_warm"]),
                     fmt(s["jit_done_share"] * 100 if s["jit_done_share"] is not None else None, 0, " %")])
    header = ["target", first_column, "stop", "warm-up requests", "warm-up s", "requests/s", "whole run s",
              "first-100 P95 ms", "fully warm P95 ms", "first-100 / fully warm (median)", "each run",
              "JIT work done at the stop"]
    return table(header, rows), doc


def main(path, json_path):
    records = [json.loads(line) for line in open(path)]
    doc = {"goal_first100_over_fully_warm": GOAL}
    out = ["# Warm-up: requests needed, concurrency, stop rule (`make bench-stop-rule`)", "",
           "Each row is fresh JVMs of a target on loopback (bench/targets/targets.py: the sample service's exam "
           "flow, and spring-shop, a Spring Boot app on Tomcat). Each JVM gets `k6-scripts/warmup.js` with the "
           "row's settings (cold pass of 100 at 20/s, the warm-up, warm pass of 100 at 20/s; the other settings "
           "are the script's defaults), then its first 100 user requests at 20/s (timed from the client), then "
           "6,000 more and 3 passes of 100: the median P95 of those is its fully warm P95. JIT work done at the "
           "stop is the JVM's JIT compile time when the warm-up ended over its JIT time when fully warm. "
           "k6 and the JVM share the same 2 cores, as they would not on a cluster. Medians over the runs.", ""]
    sections = [("needed", "warm-up requests (fixed)", "## Requests needed",
                 "The warm-up sent exactly N requests (4 in flight), whatever the stop rules would say."),
                ("concurrency", "in flight", "## Concurrency",
                 "2,000 warm-up requests with this many in flight: how fast the pod takes them, and whether a "
                 "faster warm-up leaves it as warm."),
                ("rules", "settings", "## Stop rules",
                 "The adaptive warm-up as danki runs it: `latency` judges the block P95, `jit` the pod's JIT "
                 "counter (danki.dev/jit-metrics); each row names the settings it changes from the defaults.")]
    for section, column, title, text in sections:
        if not any(r["section"] == section for r in records):
            continue
        markdown, rows = section_table(records, section, column)
        doc[section] = rows
        out += [title, "", text, "", markdown, ""]
    print("\n".join(out))
    with open(json_path, "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
