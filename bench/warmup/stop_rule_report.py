"""Writes bench/results/stop-rule.md (on stdout): why danki's warm-up stops where it does, from the cluster's JIT
traces (stop-rule-traces.json, stop_rules.py) and the floor sweep of the bench (warmup.json's `sweep` cells).

  stop_rule_report.py STOP_RULE_TRACES_JSON WARMUP_JSON
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from strategies_report import interval_text, table  # noqa: E402

RULE = "throughput medians, windows of 3, gain <= 10%, floor 300"
"""The replayed candidate that is danki's default rule (BLOCK_SIZE 200, WINDOW 3, TOLERANCE 0.1)."""


def fmt(v, digits=1, unit=""):
    return "-" if v is None else f"{v:,.{digits}f}{unit}"


def jit_section(traces):
    out = []
    for target, t in traces["jit_at_work"].items():
        rows = [[f"{m['requests']:,}", fmt(m["seconds"], 1, " s"), fmt(m["throughput"], 0, "/s"),
                 fmt(m["cpu_ms_per_request"], 2, " ms"), fmt(m["jit_share_of_wall"] * 100, 0, " %")]
                for m in t["milestones"]]
        out += [f"### {target}", "",
                table(["requests", "since the first answer", "requests/s (that block)", "pod CPU per request",
                       "compiler threads' CPU, share of wall time"], rows), "",
                f"Over the whole trace the compiler threads took {t['compiler_share_of_pod_cpu'] * 100:.0f} % of the "
                f"pod's CPU, and the node was throttled in {t['node_throttled_share'] * 100:.1f} % of its CFS periods "
                f"(the closed loop keeps it saturated). In the {fmt(t['tail_s'], 1)} s after the load stopped they spent "
                f"{fmt(t['compiler_cpu_s_after_load'], 2)} CPU s more, most of it in the first two seconds.", ""]
    return out


def replay_section(traces):
    out = []
    for size, targets in sorted(traces["replay"].items(), key=lambda kv: int(kv[0])):
        for target, r in targets.items():
            rows = [[row["rule"] + (" **(default)**" if row["rule"] == RULE and size == "200" else ""),
                     f"{row['stopped']}/{row['pods']}", f"{row['requests']:,.0f}", fmt(row["seconds"], 1, " s"),
                     f"{row['jit_done']:.0%} ({row['jit_done_min']:.0%})", fmt(row["cpu_per_request_over_final"], 2, "x")]
                    for row in r["rules"] if "floor 1000" not in row["rule"]]
            out += [f"### {target}, blocks of {size}", "",
                    table(["rule", "stopped", "requests (median)", "since the first answer (median)",
                           "JIT CPU done (median, min)", "CPU per request / at 8,000"], rows), ""]
    return out


def share_section(traces):
    """Where the throughput and cpu rules stop when the pod's share of its node's CPU changes (stop_rules.py
    share_changes): the traces replayed with their throughput scaled as the share would scale it."""
    changes = traces.get("share_changes")
    if not changes:
        return []
    out = ["## When the pod's share of the CPU changes", "",
           "The traces ran one pod per node, each with its node's quota to itself. On a busy node a pod's share of the "
           "CPU moves: a neighbour's JVM finishes starting and frees CPU, or a neighbour's burst takes it. The closed "
           "loop keeps the pod saturated, so its requests/s is its share over its CPU per request: the share moves the "
           "throughput and leaves the cost. Replayed here with each trace's throughput scaled by the share from "
           "1,000 requests on (blocks of 200; a simulation on the measured traces, not a run): the throughput rule "
           "(danki's default) against the cpu rule's plateau, CPU per request medians of 3 reads falling at most "
           "10 % (`danki.dev/jit-metrics` on a page with the process CPU counter; the rule also waits for the "
           "compiler, left out here to show the plateau alone). On the traces as they ran the two stop at the same "
           "block, as they must at a fixed share (the candidates above).", ""]
    for target, t in changes.items():
        rows = [[r["rule"], r["change"], f"{r['requests_fixed']:,.0f}", f"{r['requests']:,.0f}",
                 ", ".join(f"{n:,}" for n in r["requests_each"]), fmt(r["cpu_per_request_over_final"], 2, "x")]
                for r in t["rows"]]
        out += [f"### {target}, blocks of {t['block_size']}, {t['pods']} pods", "",
                table(["rule", "share", "stop as it ran (median)", "stop with the change (median)", "each pod",
                       "CPU per request / at 8,000"], rows), ""]
    return out


def sweep_section(warmup):
    out = []
    for target, t in (warmup.get("targets") or {}).items():
        cells = t.get("sweep") or {}
        if not cells:
            continue
        rows = []
        for key, c in sorted(cells.items(), key=lambda kc: int(kc[0].split()[-1])):
            rows.append([key.split()[-1], f"{c['pods_ready']}/{c['pods']}",
                         fmt(c["containers_ready_to_ready_s_median"], 1, " s") + " ("
                         + interval_text(c["containers_ready_to_ready_s_interval"], " s") + ")",
                         ", ".join(f"{n:,}" for n in c.get("warmup_requests", [])) or "-",
                         ", ".join(sorted(set(c.get("stop_reasons", [])))) or "-",
                         fmt((c["first100"]["p95"] or {}).get("value"), 1, " ms") + " ("
                         + interval_text(c["first100"]["p95"], " ms") + ")",
                         fmt(c.get("first100_p95_over_pooled_median"), 2, "x"),
                         fmt((c.get("jit_cpu_done_at_ready") or {}).get("value"), 2)])
        pooled = t.get("pooled_fully_warm_p95_ms")
        out += [f"### {target}", "",
                table(["floor", "Ready", "ContainersReady -> Ready (median, 95 % interval)", "warm-up requests",
                       "stop", "first-100 P95 (median, interval)", "/ pooled fully warm P95", "JIT CPU done at Ready"],
                      rows), "",
                f"Pooled fully warm P95 of {target} in the same run: {fmt(pooled, 1, ' ms')}.", ""]
    return out


def main(traces_path, warmup_path):
    traces = json.load(open(traces_path))
    warmup = json.load(open(warmup_path))
    machine = warmup.get("machine") or {}
    layout = warmup.get("layout") or {}
    out = ["# Warm-up stop rule: when the JIT is done, on the cluster", "",
           "How danki's warm-up decides to stop, from what the JVM does at the bench's CPU: 4 worker nodes of "
           f"350m, each a CFS quota over a {fmt(layout.get('node_cfs_period_ms'), 0)} ms period (`make bench`'s "
           f"layout; sweep run {machine.get('date', '?')} at {machine.get('commit', '?')}). "
           "`make bench-stop-rule-cluster` makes it: the traces (`BENCH_SECTIONS=trace`), replayed by "
           "`bench/warmup/stop_rules.py`, and the floor sweep (`sweep`). The loopback runs that chose the earlier "
           "rule stay as history in [stop-rule-loopback.md](stop-rule-loopback.md).", "",
           "## The JIT at work", "",
           f"{traces['pods']} fresh pods (5 per target, 2 at a time, each on a worker node of its own, no CPU limit of "
           "their own) under danki's warm-up loop, 4 in flight, for 8,000 requests of the target's plan, then 5 s of "
           "nothing. Every 0.2 s the host read each pod's CPU (cgroup), its node's CFS throttling and the CPU of "
           "its JVM's JIT compiler threads (`C1/C2 CompilerThread` in /proc). Medians over the pods.", ""]
    out += jit_section(traces)
    out += ["At 350m neither JVM is done compiling after 8,000 requests: the compiler threads hold about 40 % of "
            "the pod's quota the whole time, while the pod's requests/s keeps climbing. HotSpot compiles the "
            "methods its traffic makes hot, and at this CPU it has more of them queued than it can compile, which "
            "is why compiling stops within a second or two of the load stopping (HotSpot drops queued compiles of "
            "methods that stopped running) rather than draining a backlog with the whole quota free. (The "
            "spring-shop traces ran with the 1 s drain at the end of their load, so their tail is after it; the "
            "sample's ran before the drain existed.) That second is the drain's: at 10 requests/s the queue keeps "
            "its methods running and gets the CPU. A stop rule cannot make this JIT finish sooner; more CPU "
            "during the warm-up can (`danki.dev/warmup-cpu`).", "",
            "## Candidate rules, replayed", "",
            "Each candidate sees a trace's blocks one by one, as `warmup.js` would, and stops at the first block "
            "where it says so. What it could not see is read from the host at that block: the share of the "
            "trace's JIT CPU spent by then, and the pod's CPU per request over the median of the trace's last 5 "
            "blocks (so 1.00x is \"as cheap per request as after 8,000\"). `latency P95` is the rule before this "
            "one (3 blocks of 200 not beating the best earlier P95 by 5 %, floor 2,000); `compile share` is the "
            "JIT rule judged on the CompilationMXBean's elapsed compile time as a share of wall time.", ""]
    out += replay_section(traces)
    out += ["What the replay says:",
            "- On blocks of 100 the throughput of one block swings by 10-15 % at 350m, so rules that look at few "
            "blocks stop on a noise plateau: spring-shop at 400-900 requests with 4-6x the final CPU per request.",
            "- On blocks of 200, comparing the medians of two windows of 3 blocks (gain at most 10 %) stops both "
            "targets at about 2,400 requests, where the CPU per request is 1.5-2.1x what it is at 8,000: the pod "
            "has stopped getting faster at a rate worth the wait. It needs 6 blocks (1,200 answers) before its "
            "first verdict, so a floor below that changes nothing: the floor is a safety minimum only.",
            "- The MXBean's compile share never fell below 50 % on the sample (elapsed time on a quota counts the "
            "compiler's waits), so with `danki.dev/jit-metrics` the warm-up runs until the compiler is quiet as well "
            "as the throughput flat, which at 350m means 4,000-8,000 requests: the opt-in for \"as warm as it "
            "gets\".",
            "- CPU per request (the cpu rule's plateau, from the process CPU counter) stops every trace at the "
            "same block as the throughput rule: at a fixed share one is the other's inverse. With the compiler "
            "quiet as well (`jit:` and `cpu:` above) both wait as long as the JIT rule does.", ""]
    out += share_section(traces)
    out += ["## The floor, swept on the cluster", "",
            "danki with the throughput rule at each floor (`danki.dev/min-warmup-requests`), 5 pods per floor and "
            "target, 2 at a time, each on a worker node of its own. Their first 100 users' requests, sent the "
            "moment their Service listed them ready, are compared with the pooled fully warm reference of the "
            "same bench run (warmup.md); JIT CPU done at Ready is their compiler threads' CPU then over the median "
            "fully warm one of the target's pods.", ""]
    out += sweep_section(warmup)
    print("\n".join(out))


if __name__ == "__main__":
    main(*sys.argv[1:3])
