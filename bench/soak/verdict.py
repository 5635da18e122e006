"""The soak's verdict, computed from its samples by one stated rule.

Flat: after a warm-up of the first sixth of the run (at most 5 minutes), the mean of the last window
(at most 10 minutes) against the mean of the first window after the warm-up: RSS within +10 %, the
live heap (after the full GC of `jcmd GC.class_histogram` at every cycle's end) within +15 % (or
+16 MiB, whichever is more: a small live set swings by a few MiB), and at idle samples (no k6
process, no warm-up in progress: each running warm-up holds a few fds and threads of its own) open
fds within +10 % (or +5) and threads within +10 % (or +3). k6: 0 processes at every quiet point (a cycle's end
or the tail where the operator reports no warm-up running or queued and no pod awaits a decision), 0
at the end, never a k6 process of this work tree outside the operator's children, and never more k6
processes than warm-ups in progress at two samples in a row.
Kept working: the operator never restarted, no pod stayed undecided past its timeout + 60 s, every
pod of a failing target was decided by its policy, and no pod was left after the last scale to 0.
"""

import statistics

MIB = 1048576
MEMORY_RULES = (  # key, label, relative limit, absolute slack, unit scale, unit, idle samples only
    ("rss_bytes", "RSS", 0.10, 0, MIB, "MiB", False),
    (None, None, 0.15, 16 * MIB, MIB, "MiB", False),
    ("fds", "open fds at idle", 0.10, 5, 1, "", True),
    ("threads", "threads at idle", 0.10, 3, 1, "", True),
)
HEAP_LABELS = {"live_bytes": "live heap after full GC", "heap_after_gc_bytes": "heap after GC",
               "old_gen_used_bytes": "old gen used"}
EXPECTED = {"open": "failed_open", "closed": "failed_closed"}
RESULT = {True: "ok", False: "FAIL", None: "not measured"}


def outcomes(pods):
    out = {"warmed": 0, "failed_open": 0, "failed_closed": 0, "disabled": 0, "removed_undecided": 0, "undecided": 0}
    for p in pods:
        if p["decision"]:
            out[p["decision"]] += 1
        elif p["gone"] is not None:
            out["removed_undecided"] += 1
        else:
            out["undecided"] += 1
    return out


def decision_times(pods, decision="warmed"):
    return [p["decided"] - p["containers_ready"] for p in pods
            if p["decision"] == decision and p["decided"] and p["containers_ready"]]


def heap_key(samples):
    """The live heap after a full GC when measured; else heap after the last collection (stale for the old
    generation until a mixed or full collection), else the old generation's use."""
    if sum(1 for s in samples if s.get("live_bytes") is not None) >= 3:
        return "live_bytes"
    after = [s.get("heap_after_gc_bytes") for s in samples]
    known = [a for a in after if a is not None]
    if len(known) >= 0.8 * len(samples) and len(set(known)) > 1:
        return "heap_after_gc_bytes"
    return "old_gen_used_bytes"


def windows(data):
    samples = [s for s in data["samples"] if s["kind"] in ("churn", "cycle_end")]
    t0 = data["samples"][0]["t"]
    total = max(s["t"] for s in samples) - t0
    skip = min(300.0, total / 6)
    width = min(600.0, (total - skip) / 2)
    first = [s for s in samples if skip <= s["t"] - t0 < skip + width]
    last = [s for s in samples if s["t"] - t0 >= total - width]
    return first, last, {"skip_s": skip, "width_s": width, "total_s": total}


def memory_checks(data, first, last):
    checks = []
    heap = heap_key(data["samples"])
    for key, label, relative, slack, scale, unit, idle in MEMORY_RULES:
        key, label = key or heap, label or HEAP_LABELS[heap]
        a, b = ([s[key] for s in window if s.get(key) is not None and (not idle or is_idle(s))]
                for window in (first, last))
        if not a or not b:
            checks.append({"label": label, "key": key, "ok": False, "missing": True})
            continue
        mean_a, mean_b = statistics.mean(a), statistics.mean(b)
        limit = max(mean_a * (1 + relative), mean_a + slack)
        checks.append({"label": label, "key": key, "first": mean_a / scale, "last": mean_b / scale, "n": (len(a), len(b)),
                       "change_pct": (mean_b / mean_a - 1) * 100 if mean_a else None,
                       "limit": limit / scale, "unit": unit, "ok": mean_b <= limit})
    return checks


def is_idle(sample):
    return sample.get("k6") == 0 and not sample.get("warmups_in_progress")


def k6_checks(samples):
    quiet = [s for s in samples if s["kind"] in ("cycle_end", "tail") and s["pending"] == 0
             and not s.get("warmups_in_progress") and not s.get("warmups_queued")]
    busy_quiet = [round(s["t"]) for s in quiet if s["k6"]]
    strays = [round(s["t"]) for s in samples if s.get("k6_not_children")]
    over = [s.get("k6", 0) > (s.get("warmups_in_progress") or 0) for s in samples]
    over_twice = sum(1 for a, b in zip(over, over[1:]) if a and b)
    end = samples[-1]
    return [
        {"label": "k6 at quiet points", "ok": not busy_quiet,
         "detail": f"{len(quiet)} quiet points, {len(busy_quiet)} with k6 running"},
        {"label": "k6 at the end", "ok": end["k6"] == 0 and not end.get("k6_not_children"),
         "detail": f"{end['k6']} children, {end.get('k6_not_children', 0)} others"},
        {"label": "k6 outside the operator", "ok": not strays, "detail": f"{len(strays)} samples with one"},
        {"label": "k6 above warm-ups in progress", "ok": over_twice == 0,
         "detail": f"{sum(over)} samples, {over_twice} twice in a row"},
    ]


def working_checks(data):
    samples, pods, failing = data["samples"], data["pods"], data["settings"]["failing"]
    stuck = sorted({name for s in samples for name in s.get("stuck") or []})
    wrong = [p["name"] for p in pods if p["deployment"] in failing and p["decision"]
             and p["decision"] != EXPECTED[failing[p["deployment"]]]]
    tail = [s for s in samples if s["kind"] == "tail"]
    left = tail[-1]["pods"] if tail else None
    return [
        {"label": "operator restarts", "ok": not data["operator_restarts"] and all(s["alive"] for s in samples),
         "detail": f"{len(data['operator_restarts'])}"},
        {"label": "pods undecided past timeout + 60 s", "ok": not stuck, "detail": ", ".join(stuck) or "none"},
        {"label": "failing targets decided by policy", "ok": not wrong, "detail": ", ".join(wrong) or "all"},
        {"label": "pods left after the last scale to 0", "ok": left == 0 if tail else None,
         "detail": f"{left}" if tail else "not measured (no tail: the run stopped early)"},
    ]


def judge(data):
    first, last, span = windows(data)
    memory, k6, working = memory_checks(data, first, last), k6_checks(data["samples"]), working_checks(data)
    flat = all(c["ok"] is not False for c in memory + k6)
    kept = all(c["ok"] is not False for c in working)
    failed = [c["label"] for c in memory + k6 + working if c["ok"] is False]
    verdict = ("flat" if flat else "NOT flat") + (", and danki kept working" if kept else ", and danki did NOT keep working")
    parts = [f"{c['label']} {c['first']:.1f} -> {c['last']:.1f}{' ' + c['unit'] if c['unit'] else ''} "
             f"({c['change_pct']:+.1f} %)" for c in memory if not c.get("missing")]
    summary = ("Mean of the first window after warm-up -> mean of the last: " + "; ".join(parts) + ". "
               + k6[0]["detail"] + "; " + k6[1]["detail"] + " at the end."
               + (f" Failed checks: {', '.join(failed)}." if failed else ""))
    return {"verdict": verdict, "flat": flat, "kept_working": kept, "summary": summary, "span": span,
            "first_n": len(first), "last_n": len(last), "memory": memory, "k6": k6, "working": working}


def describe(v, settings):
    span = v["span"]
    out = ["## Verdict", "", f"Rule ({__name__}.py): " + " ".join(__doc__.split("\n\n", 1)[1].split()), "",
           f"Windows: warm-up skipped {span['skip_s'] / 60:.1f} min; first window {span['skip_s'] / 60:.1f}-"
           f"{(span['skip_s'] + span['width_s']) / 60:.1f} min ({v['first_n']} samples), last window "
           f"{(span['total_s'] - span['width_s']) / 60:.1f}-{span['total_s'] / 60:.1f} min ({v['last_n']} samples).", "",
           "| check | samples (first / last) | first window mean | last window mean | change | limit | result |",
           "|---|---|---|---|---|---|---|"]
    for c in v["memory"]:
        if c.get("missing"):
            out.append(f"| {c['label']} ({c['key']}) | – | – | – | – | – | no data |")
            continue
        out.append(f"| {c['label']} ({c['key']}) | {c['n'][0]} / {c['n'][1]} | {c['first']:.1f} | {c['last']:.1f} "
                   f"| {c['change_pct']:+.1f} % "
                   f"| {c['limit']:.1f} | {RESULT[c['ok']]} |")
    out += ["", "| check | observed | result |", "|---|---|---|"]
    for c in v["k6"] + v["working"]:
        out.append(f"| {c['label']} | {c['detail']} | {RESULT[c['ok']]} |")
    return out


def setup_lines(data):
    s, pods = data["settings"], data["pods"]
    names = s["sample_deployments"] + list(s["failing"])
    rows = ["| Deployment | target | pods | warmed | failed open | failed closed | removed undecided "
            "| undecided | decision s (median / max) |", "|---|---|---|---|---|---|---|---|---|"]
    for name in names:
        mine = [p for p in pods if p["deployment"] == name]
        o = outcomes(mine)
        decision = "failed_open" if s["failing"].get(name) == "open" else (
            "failed_closed" if name in s["failing"] else "warmed")
        times = decision_times(mine, decision)
        target = f"http-status 500, policy {s['failing'][name]}" if name in s["failing"] else "sample-service"
        rows.append(f"| {name} | {target} | {len(mine)} | {o['warmed']} | {o['failed_open']} | {o['failed_closed']} "
                    f"| {o['removed_undecided']} | {o['undecided']} | "
                    + (f"{statistics.median(times):.0f} / {max(times):.0f}" if times else "–") + " |")
    ann = "; ".join(f"`{k}: {v}`" for k, v in s["sample_annotations"].items())
    cpu = [x["cpu_s"] for x in data["samples"] if x.get("cpu_s") is not None]
    decided = sum(1 for p in pods if p["decision"])
    cost = (f"- The operator's own CPU over the run: {cpu[-1] - cpu[0]:.0f} s for {decided} decided pods "
            f"({(cpu[-1] - cpu[0]) / decided:.2f} s each; k6's CPU is its children's, not counted here)."
            if cpu and decided else "")
    return [
        f"- {len(data['cycles'])} cycles of {s['cycle_s']:g} s: each sets every Deployment's replicas from a random "
        f"generator seeded {s['seed']} (sample Deployments 0-2, failing ones 0-1), then the quiet tail: all at 0 "
        f"for {s['tail_s']:g} s. A sample every {s['sample_s']:g} s ({len(data['samples'])} in all).",
        f"- Sample Deployments ({', '.join(s['sample_deployments'])}): {ann}.",
        f"- Failing Deployments: `danki/http-status:dev` with STATUS=500, `danki.dev/timeout: "
        f"{s['failing_timeout_s']}s`, one per failure policy.",
        f"- The operator: the chart on local-cluster instance {s['cluster_instance']} (one replica, leader election "
        f"on, the chart's concurrency and node concurrency), {java_options(s['operator_java_options'])}.",
        cost, "", *rows,
    ]


def sharing(data):
    samples = data["samples"]
    load = [s["load1"] for s in samples if s.get("load1") is not None]
    other = [s["other_share"] * 100 for s in samples if s.get("other_share") is not None]
    busy = [s["busy_share"] * 100 for s in samples if s.get("busy_share") is not None]
    apiservers = max((s.get("apiservers") or 0) for s in samples)
    shared = apiservers > 1 or (other and statistics.mean(other) > 5)
    trees = {}
    for s in samples:
        for tree, share in (s.get("other_by_tree") or {}).items():
            trees[tree] = trees.get(tree, 0) + share * 100
    top = sorted(trees.items(), key=lambda kv: -kv[1])[:4]
    who = "; by working directory: " + ", ".join(f"{t} {v / len(samples):.0f} %" for t, v in top) if top else ""
    return (f"**{'Yes' if shared else 'No'}.** Load average (1 min) {min(load):.1f} to {max(load):.1f}, mean "
            f"{statistics.mean(load):.1f}, on {data['machine']['cores']} cores; the machine was "
            f"{statistics.mean(busy) if busy else 0:.0f} % busy on average, and processes outside this work tree "
            f"(other engineers' clusters and builds, the system) took {statistics.mean(other) if other else 0:.0f} % of "
            f"its CPU on average (max {max(other) if other else 0:.0f} %{who}); up to {apiservers} kube-apiserver process(es) "
            "ran at once (this soak's is one). Timings above are upper bounds; the memory and count series do not "
            "depend on it.")


def log_lines(data):
    log = data.get("operator_log") or {}
    if not log or log.get("missing"):
        return [f"No operator log found ({log.get('path', 'no operator')})."]
    out = ["Lines per level: " + ", ".join(f"{k} {v}" for k, v in sorted(log["levels"].items()))
           + f"; {log['non_json_lines']} other lines.", ""]
    if log["warnings"]:
        out += ["| count | level and message |", "|---|---|"]
        out += [f"| {n} | {text.replace('|', '/')[:160]} |" for text, n in log["warnings"]]
    return out


def java_options(options):
    """How the soak's operator JVM was sized: older runs (on the node agent, which enforced no limit) set
    the heap by hand; since the real kubelet, the image's options apply under the chart's enforced limit."""
    if options.startswith("-"):
        return (f"`JAVA_TOOL_OPTIONS={options}` (the heap the image gives the chart's 2Gi limit; the node agent "
                "enforced no limit)")
    return f"JVM options: {options}, the limit enforced by the node's cgroup"
