"""Writes bench/results/stop-rule.md (on stdout) from one `make bench-stop-rule` run's folder."""

import glob
import json
import os
import statistics
import sys


def load(out):
    meta = dict(line.rstrip("\n").split("=", 1) for line in open(os.path.join(out, "meta.env")))
    variants = []
    for path in sorted(glob.glob(os.path.join(out, "v*.variant")), key=lambda p: int(os.path.basename(p)[1:-8])):
        v = os.path.basename(path)[:-8]
        runs = []
        for summary in sorted(glob.glob(os.path.join(out, f"{v}-r*.json"))):
            if summary.endswith("-steady.json"):
                continue
            run = json.load(open(summary))
            steady = json.load(open(summary[:-5] + "-steady.json"))
            runs.append({"stop": run["stopReason"], "warmup": run["phases"]["warmup"]["requests"],
                         "seconds": run["durationSeconds"], "cold": run["phases"]["cold"]["p95"],
                         "warm": run["phases"]["warm"]["p95"], "steady": steady["phases"]["cold"]["p95"]})
        variants.append({"env": open(path).read().strip(), "runs": runs})
    return meta, variants


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, unit=""):
    return "-" if v is None else (f"{v:,.0f}{unit}" if v >= 10 else f"{v:.1f}{unit}")


def main(out):
    meta, variants = load(out)
    lines = ["# The warm-up stop rule (`make bench-stop-rule`)", "",
             f"Machine: {meta['machine']}. Run {meta['date']} at commit {meta['commit']}, {meta['k6']}; "
             f"load average at the end {meta['load']}.", "",
             f"Each variant ran `k6-scripts/warmup.js` with the variant's settings and the script's defaults at that "
             f"commit for the rest (cold and warm pass 100 requests at 20/s, warm-up windows of 1 s at 100/s, at "
             f"most 5,000 requests) on the demo's exam flow, against {meta['repeats']} fresh JVMs of the sample service on "
             f"loopback. Each pod then got {int(meta['full_warm']):,} more requests at 200/s and one more pass of 100: "
             "its fully warm P95. Medians over the runs; latencies in ms of single requests.", "",
             "| variant | stop reasons | warm-up requests | warm-up run (s) | cold P95 | warm P95 | fully warm P95 "
             "| warm / fully warm | cold / warm |",
             "|---|---|---|---|---|---|---|---|---|"]
    for v in variants:
        runs = v["runs"]
        stops = ", ".join(sorted({r["stop"] for r in runs}))
        warm, steady, cold = median(r["warm"] for r in runs), median(r["steady"] for r in runs), median(r["cold"] for r in runs)
        lines.append(f"| `{v['env']}` | {stops} | {fmt(median(r['warmup'] for r in runs))} "
                     f"| {fmt(median(r['seconds'] for r in runs))} | {fmt(cold)} | {fmt(warm)} | {fmt(steady)} "
                     f"| {warm / steady:.2f}x | {cold / warm:.0f}x |" if warm and steady and cold else
                     f"| `{v['env']}` | {stops} | - | - | - | - | - | - | - |")
    lines += ["", "Every run:", "", "| variant | stop | warm-up requests | s | cold P95 | warm P95 | fully warm P95 |",
              "|---|---|---|---|---|---|---|"]
    for v in variants:
        for r in v["runs"]:
            lines.append(f"| `{v['env']}` | {r['stop']} | {r['warmup']:,} | {fmt(r['seconds'])} | {fmt(r['cold'])} "
                         f"| {fmt(r['warm'])} | {fmt(r['steady'])} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
