"""Writes bench/results/warmup.md (on stdout) from one run's records.jsonl (bench/warmup/measure.py), and
with JSON_PATH warmup.json; sections the run did not measure are kept from the earlier runs' records beside
JSON_PATH (merged_records.py), and the .md says which run each of those came from.

  results.py RECORDS [JSON_PATH]
"""

import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "targets"))
import aot_report  # noqa: E402
import boost_report  # noqa: E402
import speed_report  # noqa: E402
import critical_path  # noqa: E402
import merged_records  # noqa: E402
import strategies_report  # noqa: E402
from targets import TARGETS  # noqa: E402

RENAMED_KEYS = [
    ("single, scaleup (the sample's, at the top)", "targets.<target>.single, .scaleup",
     "each target under `targets` only"),
    ("<section>.serial_fixed100", "<section>.peer_node100",
     "the simulated peer is the common node-local design now (a warmer per node, 10 pods at once), not a serial one"),
    ("first100_over_fully_warm, first100_over_fully_warm_median", "first100_p95_over_pooled, first100_p95_over_pooled_median",
     "first-100 P95 over the target's pooled fully warm P95, not over each pod's own (which swung 27x on one pod)"),
    ("containers_ready_to_ready_s (one number, single)", "containers_ready_to_ready_s (every pod), _median, _interval",
     "5 trials per cell"),
    ("all_ready_s (one scale)", "all_ready_s (median of the trials), all_ready_s_trials", "2 trials of 1 -> 4 per cell"),
    ("", "pooled_fully_warm, pooled_fully_warm_p95_ms, first100.{p50,p90,p95}, jit_cpu_done_at_ready, "
         "first100_node_throttled_share_median, unwarmed_routes, layout.node_cfs_period_ms, sweep", "new"),
]
"""warmup.json keys renamed or replaced by the bench that pools its reference (issue 46 asks them listed)."""


def ms(v):
    return "-" if v is None else f"{v:,.0f}" if v >= 10 else f"{v:.1f}"


def sec(v):
    return "-" if v is None else f"{v:.2f}"


def ratio(a, b):
    if a is None or not b:
        return "-"
    return f"{a / b:.2f}x" if a / b < 1 else f"{a / b:.1f}x"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def scale(records):
    """One row per (N, concurrency), with ratios to N=4 at the same concurrency (how time grows with N)
    and to the default concurrency 4 at the same N (what the setting buys)."""
    rows, totals = [], {}
    for r in records:
        ready = [p["ready"] for p in r["pods"].values() if p["ready"]]
        if len(ready) == r["n"]:
            totals[(r["n"], r["concurrency"])] = max(ready) - r["t_scale"]
    for r in records:
        pods = r["pods"].values()
        ready = [p["ready"] for p in pods if p["ready"]]
        gaps = [p["ready"] - p["containersReady"] for p in pods if p["ready"] and p["containersReady"]]
        cpu = r["after"]["cpu_s"] - r["before"]["cpu_s"]
        k6 = r["after"]["children_cpu_s"] - r["before"]["children_cpu_s"]
        n, c = r["n"], r["concurrency"]
        total = totals.get((n, c))
        smallest = min((m for m, cc in totals if cc == c), default=None)
        rows.append([n, c, f"{len(ready)}/{n}", sec(total) if total else "- (not all Ready)",
                     ratio(total, totals.get((smallest, c))) if smallest and smallest != n else "1x" if total else "-",
                     ratio(total, totals.get((n, 4))) if c != 4 else "1x" if total else "-",
                     sec(statistics.mean(gaps)) if gaps else "-", sec(max(gaps)) if gaps else "-",
                     sec(cpu / n), sec(k6 / n)])
    return table(["N", "concurrency", "Ready", "scale -> all Ready (s)", "/ smallest N's time",
                  "/ concurrency 4's time", "mean ContainersReady -> Ready (s)", "max ContainersReady -> Ready (s)",
                  "operator JVM CPU s / warmed pod", "k6 CPU s / warmed pod"], rows)


def idle_cpu_per_pod(idle, full, n):
    """Idle CPU a cached pod adds; a full cache idling no busier than an empty one is below what a sample shows."""
    added = (full["cpu_per_s"] - idle["cpu_per_s"]) * 1e6 / n
    return f"{added:.1f} µs per second" if added > 0 else "none measurable (the full cache idled no busier)"


def cache(r):
    idle, full = r["idle"], r["full"]
    n = r["pods"]
    ingest = r["ingest_after"]["cpu_s"] - r["ingest_before"]["cpu_s"]
    heap0, heap1 = r.get("heap_before_mib"), r.get("heap_after_mib")
    rows = [["RSS (MiB)", f"{idle['rss_mib']:.0f}", f"{full['rss_mib']:.0f}",
             f"{(full['rss_mib'] - idle['rss_mib']) * 1024 / n:.1f} KiB"],
            ["CPU while idle (% of one core)", f"{idle['cpu_per_s'] * 100:.1f}", f"{full['cpu_per_s'] * 100:.1f}",
             idle_cpu_per_pod(idle, full, n)],
            ["JVM old generation used (MiB)", "-" if heap0 is None else f"{heap0:.0f}", "-" if heap1 is None else f"{heap1:.0f}",
             "-" if heap0 is None or heap1 is None else f"{(heap1 - heap0) * 1024 / n:.1f} KiB"]]
    text = table(["operator", "no fake pods", f"{n} opted-in pods cached", "per cached pod"], rows)
    text += (f"\n\nRatio, {n} pods cached to none: RSS {ratio(full['rss_mib'], idle['rss_mib'])}"
             + (f", old generation {ratio(heap1, heap0)}" if heap0 and heap1 else "") + ".")
    text += (f"\n\nIngesting the {n} pods (creation plus status writes, 20 s settle) cost the operator "
             f"{ingest:.2f} CPU s ({ingest * 1000 / n:.2f} ms per pod). WarmupRuns created for them: "
             f"{r.get('warmupruns_created', '-')} (expected 0: they are already warmed). RSS and heap are single "
             "samples of a JVM whose memory grows and shrinks with GC, so the per-pod figures are rough.")
    return text


def worker_cpu(layout):
    """The allocatable CPU of the layout's workers, as the node reports it (e.g. 350m or 2)."""
    return next((n["cpu"] for n in layout.get("nodes", []) if n["role"] == "worker"), "1")


def layout_markdown(layout):
    """The nodes, their roles and CPU budgets, and where the strategies' pods ran."""
    rows = [[n["node"], n["role"] or "-", n["cpu"], n["memory"]] for n in layout["nodes"]]
    workers = sum(1 for n in layout["nodes"] if n["role"] == "worker")
    period = layout.get("node_cfs_period_ms")
    cpu = worker_cpu(layout)
    share = int(cpu[:-1]) / 1000 if cpu.endswith("m") else float(cpu)
    # under one CPU a single busy thread spends the quota and waits out the period's rest; at one or more
    # only threads beyond the budget's cores do
    stall = (f"so at most {period * (1 - share):g} ms on a {cpu} node" if period and share < 1 else
             f"which on a node of {cpu} CPU takes more threads than its budget's cores to reach")
    return (table(["node", "role", "allocatable CPU (its budget)", "allocatable memory"], rows)
            + (f"\n\nEach node's budget is a CFS quota over a period of {period:g} ms, as the workers' cgroups had it: "
               f"a JVM that spends its node's quota stalls until the next period, {stall}." if period else "")
            + f"\n\n{workers} worker nodes run the targets' pods, one pod of a strategy per node (required "
            "anti-affinity), so a scale-up goes 1 -> " + str(layout["scaleup_to"]) + ". The system node is tainted: "
            "only the operator, with its k6 children, runs there. The scale section's exam pods (100m requests) "
            "share the workers.")


def operators_note(records):
    """Which operator image (and chart values) this run measured danki with."""
    seen = sorted({(r.get("image") or "?", r.get("set") or "") for r in records})
    if not seen:
        return ""
    return "danki ran as " + "; then ".join(f"`{image}`" + (f" with `{values}`" if values else "")
                                           for image, values in seen) + ". "


def pulled_note(records):
    """Whether the section's pods found their images on their nodes (cluster_bench.py pulls them first)."""
    pulled = [bool(r.get("prepulled")) for r in records]
    if pulled and all(pulled):
        return ("Before each strategy the harness pulled its images onto every worker node, so no pod's start "
                "includes a pull.")
    if any(pulled):
        return "Some strategies' images were pulled onto the workers beforehand, others' were not."
    return ("The images were not pulled beforehand: the first strategy to run on a node paid the pull from "
            "the instance's registry (about 1 s for 100 MB), the ones after it did not.")


def main(path, json_path=None):
    with open(path) as f:
        records = [json.loads(line) for line in f]
    current = merged_records.run_of(records)
    if json_path:
        records = merged_records.merge(records, merged_records.load(json_path))
    by = lambda s: [r for r in records if r["section"] == s]  # noqa: E731
    machine = (by("machine") or [{}])[0]
    layout = (by("layout") or [{}])[0]
    notes = {s: merged_records.earlier_run_note(by(s), current) for s in
             ("layout", "single", "scaleup", "sweep", "scale", "cache", "aot", "boost", "speed")}
    from_one_run = not any(notes.values())
    out = ["# Warm-up benchmarks (`make bench`)", "",
           f"Machine: {machine.get('description', '?')}. Run {machine.get('date', '?')} at commit "
           f"{machine.get('commit', '?')}, {machine.get('k6', 'k6')}. "
           + ("Everything below comes from this one run, " if from_one_run else
              "Everything below comes from this run except the sections that name an earlier one, ")
           + "on the embedded local cluster: the real kubelet on containerd, each node's CPU a CFS quota on its "
           "cgroup, the control plane, kubelets and containerd outside every budget. "
           + operators_note([r for r in by("operator") if r.get("run") == current or "run" not in r])
           + "`bench/results/warmup.json` holds the same figures.", ""]
    note = lambda s: [notes[s], ""] if notes[s] else []  # noqa: E731
    if layout:
        out += ["## Layout", ""] + note("layout") + [layout_markdown(layout), ""]
    # records of the bench before its trials and pooled reference (no "trials") cannot be judged by them
    strategies = [r for r in by("single") + by("scaleup") + by("sweep") if "trials" in r]
    doc = strategies_report.as_json(strategies, TARGETS)
    if by("aot"):
        doc["aot"] = aot_report.as_json(by("aot"))
        doc["goals"] += aot_report.goals(doc["aot"])
    if by("boost"):
        doc["boost"] = boost_report.as_json(by("boost"))
    if by("speed"):
        doc["speed"] = speed_report.as_json(by("speed"))
        doc["goals"] += speed_report.goals(doc["speed"])
    if doc["goals"]:
        out += ["## Goals", "", strategies_report.goals_markdown(doc), ""]
    if strategies:
        out += ["## Reference: fully warm, pooled", "",
                "Each pod of sections 1 and 2, once its first 100 users are served, gets 6,000 more requests, 4 at a "
                "time, then 3 passes of 100 user requests at 20/s. Every pass of every pod of a target, all strategies "
                "together, is pooled into that target's fully warm reference: the figure a first 100 is compared "
                "with. Intervals are bootstrap 95 % intervals from resampling whole passes (stats.py). The routes "
                "column checks the first 100 against the plan: a route users sent that the warm-up never sent "
                "would be measured cold whatever the strategy.", "", strategies_report.reference_markdown(doc), ""]
    cells = lambda s: [r for r in strategies if r["section"] == s]  # noqa: E731
    if cells("single"):
        out += ["## 1. One new pod", ""] + note("single") + [
                "Per strategy one Deployment; its pods come one at a time, each on a worker node of its own (0 -> 1 "
                "-> 2 ...; once every worker has one, the earlier pods are fully warmed and the newest is scaled "
                "away), so every trial is one new pod with nothing else starting. A pod gets its first 100 user "
                "requests at 20/s the moment its Service's EndpointSlice lists it ready, at the address listed "
                "there. Figures are medians over the pods with bootstrap 95 % intervals over the pods; the CPU "
                "columns are of the first 100: the share of the node's CFS periods that were throttled, and the "
                "pod's CPU seconds. JIT CPU done at Ready is the CPU the JVM's compiler threads had spent when the "
                "pod was listed ready, over what they had spent once fully warm. " + pulled_note(by("single")), "",
                strategies_report.section_markdown(doc, "single"),
                "danki's time from ContainersReady to Ready, from its WarmupRun:", "",
                strategies_report.danki_split(cells("single")), ""]
    if cells("scaleup"):
        to = (by("scaleup") or [{}])[0].get("n_to", "?")
        out += [f"## 2. Scale-up 1 -> {to}", ""] + note("scaleup") + [
                f"A Deployment at 1 replica scaled to {to}, twice (back to 1 between, which removes the newest "
                "pods); each new pod, on a node of its own, gets its first 100 user requests the moment its "
                "Service lists it ready, while the others may still be warming, as in a real scale-up. The peer is "
                "this harness's simulation of the common design: a warmer per node sends each pod 100 requests one "
                "after another at up to 100/s as soon as its containers are ready, up to 10 pods at once per node, "
                "then sets its gate. " + pulled_note(by("scaleup")), "",
                strategies_report.section_markdown(doc, "scaleup")]
    if cells("sweep"):
        out += ["## 3. danki's floor", ""] + note("sweep") + [
                "danki at each floor (`danki.dev/min-warmup-requests`: requests before any stop rule is asked), "
                "its pods 2 at a time, each on a worker node of its own. Their first 100 are judged against the "
                "run's pooled reference above, and their JIT CPU at Ready against the median fully warm JIT CPU "
                "of the target's pods of sections 1 and 2. " + pulled_note(by("sweep")), "",
                strategies_report.sweep_markdown(doc)]
    if by("scale"):
        out += ["## 4. Scale", ""] + note("scale") + [
                "An annotated Deployment scaled 0 -> N; time until every new pod is Ready, per operator "
                "concurrency (the chart's `concurrency`). CPU is the operator process's own (JVM) and its k6 "
                "children's, from /proc, over the whole scale-up.", "", scale(by("scale")), ""]
    if by("cache"):
        out += ["## 5. Operator footprint with a full informer cache", ""] + note("cache") + [cache(by("cache")[0]), ""]
    if by("aot"):
        to = by("aot")[0].get("n_to", 1)
        pods = ("One new pod (0 -> 1)" if to == 1
                else f"{to} new pods at once (0 -> {to}), each on a worker node of its own,")
        out += ["## 6. JDK AOT cache (JDK 25)", ""] + note("aot") + [
                f"{pods} per JDK 25 target, warmed by danki without and with its AOT cache "
                "(`danki.dev/aot-cache: enabled`), on the same image. With the cache the Deployment is applied at "
                "0 replicas first and the scale waits until danki has trained its AotCache. Start is the host "
                "time the pod watch first saw the pod (its creation); danki's cold and warm P95 and its warm-up "
                f"requests are the WarmupRun's; first-100 / fully warm as in section {1 if to == 1 else 2}; each "
                f"figure is the median over the pods. Goal: with / without at most {aot_report.GOAL_RATIO}x for "
                "both times, and a first-100 P95 no worse: the latency the pod's first users meet, compared as it "
                "is, since both sides run one image on equal nodes (the ratio to each pod's own fully warm P95 "
                "is shown, not judged). " + pulled_note(by("aot")), "",
                aot_report.section_markdown(doc["aot"]), ""]
    if by("boost"):
        to = by("boost")[0].get("n_to", 1)
        out += ["## 7. CPU boost while gated", ""] + note("boost") + [
                f"{to} new pod{'s' if to > 1 else ''} at once (0 -> {to}) per target, each on a worker node of its own, "
                "with a CPU limit below the node's budget (request the same), warmed by danki at that limit, and "
                "with `danki.dev/warmup-cpu` raising the limit to the node's budget by an in-place resize for the "
                "warm-up phase while the pod is gated, restored before the warm pass and the gate "
                "(`cpuBoost.enabled`; runs before commit 7f0733a boosted the cold and warm passes too). "
                "The local cluster's node budget is a "
                "CFS quota above the pods, so no boost can go past it. First-100 / fully warm as in section 2, both "
                "at the pod's own limit; each figure is the median over the pods. " + pulled_note(by("boost")), "",
                boost_report.section_markdown(doc["boost"]), ""]
    if by("speed"):
        to = by("speed")[0].get("n_to", 1)
        out += ["## 8. Warm at the speed of cold", ""] + note("speed") + [
                f"{to} new pods at once (0 -> {to}) per JDK 25 target, each on a worker node of its own, with a CPU "
                "limit below the node's budget (request the same), as users set one. Sides: no warm-up and no boost "
                "(the pod is Ready at ContainersReady); danki with every lever on: the boost from admission at the "
                "chart's default (cpuBoost.enabled auto, byDefault: the JVM's size, 3 CPUs for this limit, capped by "
                f"the largest allocatable CPU of the nodes the pod may run on: the workers' {worker_cpu(layout)}), the AOT cache, the "
                "JVM told its declared CPU (cpuBoost.activeProcessorCount) and the stop rule's defaults; danki at the pod's own limit without "
                "a cache (`danki.dev/warmup-cpu: off`); every lever but one, in turn; and, where the run has it, every lever with the "
                "target's metrics page (`danki.dev/jit-metrics`: its JIT and process CPU counters, so the cpu rule judges the stop). Time runs from `kubectl "
                "scale` to each pod's Ready; with the cache, the Deployment is applied at 0 replicas first and the "
                "scale waits for its training. First-100 quality against this section's own pooled fully warm "
                "passes (the no-warm-up and all-levers pods, 6,000 requests and 3 passes of 100 each, at their own "
                f"limit). Goals: every lever / no warm-up at most {speed_report.GOAL_SPEED}x, first-100 P95 / "
                f"pooled at most {strategies_report.GOAL_QUALITY}x. " + pulled_note(by("speed")), "",
                speed_report.section_markdown(doc["speed"]), ""]
    warmed = [r for r in records if r["section"] in ("single", "scaleup", "scale", "aot", "boost", "speed")]
    waits = critical_path.as_json(warmed)
    if waits["pods"]:
        doc["critical_path"] = waits
        out += ["## 9. danki's own waits", "",
                "Over every pod danki warmed in the sections above (each from the run its section names): the "
                "operator's reaction, from ContainersReady to the first warm-up request (the WarmupRun's "
                "`reactionMillis`, k6's start-up included), and from its decision (the WarmupRun's "
                "`completionTime`, stamped as k6's result is recorded, just before the gate patch) to the pod "
                "Ready as the bench's watch saw it, which adds the kubelet's Ready condition and the watch. "
                "Percentiles by nearest rank.", "",
                critical_path.section_markdown(waits, table, ms), ""]
    if strategies:
        doc["renamed_keys"] = RENAMED_KEYS
        out += ["## Keys of warmup.json that changed", "",
                "With the bench that pools its fully warm reference (commit a36c801), these keys of warmup.json "
                "were renamed or replaced; the figures under the old ones are not comparable with the new.", "",
                table(["before", "now", "why"],
                      [[f"`{a}`" if a else "-", f"`{b}`" if b else "-", why] for a, b, why in RENAMED_KEYS]),
                ""]
    print("\n".join(out))
    if json_path:
        doc["machine"] = {k: v for k, v in machine.items() if k != "run"}  # section_runs says which run
        doc["layout"] = {k: v for k, v in layout.items() if k != "run"}
        doc["section_runs"] = {s: rs[0].get("run") for s in notes if (rs := by(s))}
        merged_records.save(json_path, records)
        with open(json_path, "w") as f:
            json.dump(doc, f, indent=2, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
