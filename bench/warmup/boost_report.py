"""The `boost` section of bench/results/warmup.md and warmup.json: per target, new pods whose CPU limit is below
their node's budget, warmed by danki at that limit and with danki.dev/warmup-cpu raising it to the node's budget
while they are gated (issue 28's CPU boost). No goal of its own: it measures the lever."""

from aot_report import outcomes, ready_of, summary
from strategies_report import fmt, table

SIDES = {"danki_limited": "own_cpu", "danki_boost": "boosted"}
RATIOS = {"containers_ready_to_ready": "containers_ready_to_ready_s",
          "first100_over_fully_warm": "first100_over_fully_warm",
          "warmup_requests": "warmup_requests"}
"""Each boosted / own-CPU ratio and the figure whose medians it divides."""


def as_json(records):
    """warmup.json's `boost`: per target, both sides, the CPU they had, and boosted / own-CPU ratios."""
    doc = {}
    for r in records:
        if r["strategy"] in SIDES:
            side = summary(r)
            side["cpu_limits"] = r.get("boost")
            doc.setdefault(r["target"], {})[SIDES[r["strategy"]]] = side
    for figures in doc.values():
        own, boosted = figures.get("own_cpu") or {}, figures.get("boosted") or {}
        figures["ratios"] = {name: divide(boosted.get(key + "_median"), own.get(key + "_median"))
                             for name, key in RATIOS.items()}
    return doc


def divide(a, b):
    return a / b if a is not None and b else None


ROWS = [("ContainersReady -> Ready (median)", "containers_ready_to_ready_s", " s", 1),
        ("danki's cold P95 (median)", "cold_p95_ms", " ms", 1), ("danki's warm P95 (median)", "warm_p95_ms", " ms", 1),
        ("warm-up requests (median)", "warmup_requests", "", 0),
        ("first-100 P95 (median)", "first100_p95_ms", " ms", 1),
        ("fully warm P95 (median)", "fully_warm_p95_ms", " ms", 1),
        ("first-100 / fully warm (median)", "first100_over_fully_warm", "x", 2)]


def target_markdown(target, figures):
    own, boosted = figures.get("own_cpu") or {}, figures.get("boosted") or {}
    rows = [["pods Ready", ready_of(own), ready_of(boosted), ""]]
    for label, key, unit, digits in ROWS:
        a, b = own.get(key + "_median"), boosted.get(key + "_median")
        rows.append([label, fmt(a, unit, digits), fmt(b, unit, digits), fmt(divide(b, a), "x", 2)])
    rows.append(["WarmupRun status.cpuBoost.summary", outcomes(own, "cpu_boost"), outcomes(boosted, "cpu_boost"), ""])
    limits = (boosted.get("cpu_limits") or own.get("cpu_limits") or {})
    own_cpu, boost_cpu = limits.get("own_cpu", "?"), limits.get("boost_cpu", "?")
    header = ["", f"danki at the pod's limit ({own_cpu})", f"danki, boosted to {boost_cpu} while gated",
              "boosted / own"]
    return f"### {target}\n\n" + table(header, rows)


def section_markdown(doc):
    return "\n\n".join(target_markdown(t, f) for t, f in doc.items())
