"""soak.json -> soak.md: the operator's series per 5 minutes, text charts, what became of every pod, and
the verdict, computed here by the rule the page states (never written by hand).

  python3 report.py bench/results/soak.json > bench/results/soak.md
"""

import json
import statistics
import sys
import time

import verdict as rules

MIB = 1048576.0
SERIES = (  # key, label, scale, decimals
    ("rss_bytes", "RSS (MiB)", MIB, 0),
    ("live_bytes", "live heap after full GC (MiB)", MIB, 1),
    ("heap_used_bytes", "heap used (MiB)", MIB, 0),
    ("heap_after_gc_bytes", "heap after GC (MiB)", MIB, 1),
    ("old_gen_used_bytes", "old gen used (MiB)", MIB, 1),
    ("nonheap_used_bytes", "non-heap used (MiB)", MIB, 0),
    ("fds", "open fds", 1, 0),
    ("threads", "threads", 1, 0),
    ("k6", "k6 processes", 1, 0),
    ("warmups_in_progress", "warm-ups in progress", 1, 0),
    ("pods", "pods in namespace", 1, 0),
    ("load1", "load average (1 min)", 1, 1),
    ("other_share", "CPU share of others (%)", 0.01, 0),
)
CHARTS = ("rss_bytes", "live_bytes", "heap_used_bytes", "fds", "threads", "k6")


def fmt(value, decimals):
    return "–" if value is None else f"{value:,.{decimals}f}"


def values(samples, key, scale=1):
    return [s[key] / scale for s in samples if s.get(key) is not None]


def window_table(data, t0):
    """One row per 5 minutes (and one for the quiet tail), min / mean / max of each series."""
    churn = [s for s in data["samples"] if s["kind"] != "tail"]
    tail = [s for s in data["samples"] if s["kind"] == "tail"]
    buckets = {}
    for s in churn:
        buckets.setdefault(int((s["t"] - t0) // 300), []).append(s)
    rows = [(f"{k * 5}-{k * 5 + 5} min", buckets[k]) for k in sorted(buckets)]
    if tail:
        rows.append(("tail (all at 0)", tail))
    out = []
    for key, label, scale, decimals in SERIES:
        out += [f"\n**{label}**\n", "| window | samples | min | mean | max |", "|---|---|---|---|---|"]
        for name, group in rows:
            v = values(group, key, scale)
            stats = (min(v), statistics.mean(v), max(v)) if v else (None, None, None)
            out.append(f"| {name} | {len(v)} | " + " | ".join(fmt(x, decimals) for x in stats) + " |")
    return out


def chart(samples, key, scale, t0, width=72, height=8):
    """A text chart of KEY over time: one column per time slice (its mean), rows from min to max."""
    points = [((s["t"] - t0) / 60, s[key] / scale) for s in samples if s.get(key) is not None]
    if not points:
        return ["(no data)"]
    t_max = max(t for t, _ in points) or 1
    columns = [[] for _ in range(width)]
    for t, v in points:
        columns[min(width - 1, int(t / t_max * (width - 1)))].append(v)
    means = [statistics.mean(c) if c else None for c in columns]
    lo, hi = min(v for _, v in points), max(v for _, v in points)
    span = (hi - lo) or 1
    grid = [[" "] * width for _ in range(height)]
    for x, m in enumerate(means):
        if m is not None:
            grid[height - 1 - round((m - lo) / span * (height - 1))][x] = "*"
    lines = [f"{hi:>9.1f} |" + "".join(grid[0])]
    lines += ["          |" + "".join(row) for row in grid[1:-1]]
    lines.append(f"{lo:>9.1f} |" + "".join(grid[-1]))
    lines.append("          +" + "-" * width)
    lines.append(f"           0 min{' ' * (width - 14)}{t_max:.0f} min")
    return lines


def cycle_table(data, t0):
    names = data["settings"]["sample_deployments"] + list(data["settings"]["failing"])
    by_cycle = {}
    for p in data["pods"]:
        by_cycle.setdefault(p["cycle"], []).append(p)
    ends = {s["cycle"]: s for s in data["samples"] if s["kind"] == "cycle_end"}
    out = ["| cycle | min | replicas (" + " ".join(n.replace("soak-", "") for n in names) + ") | new pods | warmed "
           "| failed open | failed closed | removed undecided | decision s (median / max) | k6 at end | undecided at end |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in data["cycles"]:
        pods = by_cycle.get(c["index"], [])
        outcome = rules.outcomes(pods)
        times = rules.decision_times(pods)
        end = ends.get(c["index"], {})
        out.append(f"| {c['index']} | {(c['start'] - t0) / 60:.1f} | {' '.join(str(c['replicas'][n]) for n in names)} "
                   f"| {len(pods)} | {outcome['warmed']} | {outcome['failed_open']} | {outcome['failed_closed']} "
                   f"| {outcome['removed_undecided']} | "
                   + (f"{statistics.median(times):.0f} / {max(times):.0f}" if times else "–")
                   + f" | {end.get('k6', '–')} | {end.get('pending', '–')} |")
    return out


def class_growth(data, top=10):
    """Classes whose live bytes grew most from the first histogram after the warm-up to the last one."""
    first_window, _, span = rules.windows(data)
    histograms = [s for s in data["samples"] if s.get("top_classes")]
    start = next((s for s in histograms if s in first_window), None)
    if not start or len(histograms) < 2:
        return ["(no class histograms)"]
    end = histograms[-1]
    before = {c[0]: c for c in start["top_classes"]}
    after = {c[0]: c for c in end["top_classes"]}
    t0 = data["samples"][0]["t"]
    rows = [f"Live objects by class, from the histogram at {(start['t'] - t0) / 60:.1f} min "
            f"({start['live_bytes'] / MIB:.1f} MiB, {start['live_instances']:,} objects) to the last one at "
            f"{(end['t'] - t0) / 60:.1f} min ({end['live_bytes'] / MIB:.1f} MiB, {end['live_instances']:,} objects); "
            "the classes that grew most among the 25 largest of either:", "",
            "| class | bytes before | bytes after | change | instances before | instances after |",
            "|---|---|---|---|---|---|"]

    def growth(name):
        return (after.get(name) or [name, 0, 0])[2] - (before.get(name) or [name, 0, 0])[2]

    for name in sorted(set(before) | set(after), key=growth, reverse=True)[:top]:
        b, a = before.get(name) or [name, None, None], after.get(name) or [name, None, None]
        change = growth(name)
        rows.append(f"| `{name}` | {fmt(b[2], 0)} | {fmt(a[2], 0)} | {change:+,} | {fmt(b[1], 0)} | {fmt(a[1], 0)} |")
    rows += ["", "(– : not among the 25 largest classes of that histogram.)"]
    return rows


def thread_table(data):
    """Threads by name at the first idle histogram after the warm-up and at the last one."""
    first_window, _, _ = rules.windows(data)
    marked = [s for s in data["samples"] if s.get("thread_groups") and rules.is_idle(s)]
    start = next((s for s in marked if s in first_window), None)
    if not start or len(marked) < 2:
        return ["(no thread names recorded)"]
    end, t0 = marked[-1], data["samples"][0]["t"]
    names = sorted(set(start["thread_groups"]) | set(end["thread_groups"]))
    rows = [f"At idle samples (no k6, no warm-up), {(start['t'] - t0) / 60:.1f} min -> {(end['t'] - t0) / 60:.1f} min; "
            "names as /proc shows them (15 characters), numbers folded to N; only the names whose count changed:", "",
            "| thread name | before | after |", "|---|---|---|"]
    for name in names:
        a, b = start["thread_groups"].get(name, 0), end["thread_groups"].get(name, 0)
        if a != b:
            rows.append(f"| `{name}` | {a} | {b} |")
    if len(rows) == 4:
        rows.append("| (none) | | |")
    return rows


def render(data):
    samples = data["samples"]
    t0 = samples[0]["t"]
    v = rules.judge(data)
    s = data["settings"]
    m = data["machine"]
    out = [
        f"# Soak: danki under {s['minutes']:g} minutes of churn",
        "",
        f"`make soak` (bench/soak/run.py), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(data['started']))}, "
        f"commit {m['commit']}, on {m['cores']} cores ({m['cpu']}), {m['memory_gib']} GiB, Linux {m['kernel']}. "
        "Generated by bench/soak/report.py from soak.json; the verdict is computed, not written.",
        "",
        f"**Verdict: {v['verdict']}.** " + v["summary"],
        "",
    ]
    if data.get("note"):
        out += [f"**Incomplete run:** {data['note']}", ""]
    out += rules.describe(v, s) + [""]
    out += ["## What ran", "", *rules.setup_lines(data), ""]
    out += ["## Was the machine shared?", "", rules.sharing(data), ""]
    out += ["## Charts", "", "Mean per time slice; the churn, then the quiet tail after the last scale to 0.", ""]
    for key in CHARTS:
        label, scale = next((lab, sc) for k, lab, sc, _ in SERIES if k == key)
        out += [f"{label}:", "", "```", *chart(samples, key, scale, t0), "```", ""]
    out += ["## Per 5 minutes", "", "From /proc (RSS, fds, threads, k6 children of the operator) and the operator's "
            "/metrics (heap, non-heap, warm-ups); the live heap from `jcmd PID GC.class_histogram` at every cycle's end "
            "(a full GC first, so the heap-used figures just after it are low and RSS is that of a heap compacted "
            "every 90 s). Heap after GC is the sum of the heap pools' usage after their last collection "
            "(`jvm_memory_pool_collection_used_bytes`): G1 updates the old generation's only on a mixed or full "
            "collection.", *window_table(data, t0), ""]
    out += ["## Live heap by class", "", *class_growth(data), ""]
    out += ["## Threads by name", "", *thread_table(data), ""]
    out += ["## Every cycle", "", "Pods are counted in the cycle in which they were first seen; a decision is "
            "ContainersReady -> the `danki.dev/warmed` condition (API server timestamps, 1 s resolution). "
            "\"Removed undecided\" pods were scaled away before danki decided (their k6 is killed).", "",
            *cycle_table(data, t0), ""]
    out += ["## The operator's log", "", *rules.log_lines(data), ""]
    return "\n".join(out)


def main(argv):
    with open(argv[1]) as f:
        sys.stdout.write(render(json.load(f)))


if __name__ == "__main__":
    main(sys.argv)
