"""bench/results/bad-plan.md from bad-plan.json: per run, how long after ContainersReady each group of
pods was decided (invalid plans) or Ready (valid plans), as min / median / p90 / max."""

import statistics


def spread(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return "—"
    p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
    return f"{values[0]:.1f} / {statistics.median(values):.1f} / {p90:.1f} / {values[-1]:.1f}"


def after_ready(pods, group, field):
    return [p[field] - p["containers_ready_s"] for p in pods
            if p["group"] == group and p[field] is not None and p["containers_ready_s"] is not None]


def render(records):
    lines = [
        "# A known-bad plan is decided at once",
        "",
        "<!-- Written by `make bench-bad-plan` (bench/bad-plan) from bench/results/bad-plan.json. -->",
        "",
        "40 Deployments of one `danki/http-status:dev` pod each, scaled 0 -> 1 in one `kubectl scale` on the",
        "local cluster, against one operator process: 28 with an invalid warm-up plan (policy `open`), 8 with",
        "a valid plan, 4 whose target answers 500 (they take warm-up slots and retry). Seconds after the",
        "pod's ContainersReady, as seen by a `kubectl get -w` on the host clock: min / median / p90 / max.",
        "A negative value: danki decided before the containers were ready.",
        "",
        "| run | when | load before | invalid plan: decided | invalid plan: Ready | valid plan: Ready "
        "| failing target: decided | all decided |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        pods = r["pods"]
        lines.append(
            f"| {r['label']} | {r['when']} | {r['load_before']:.1f} "
            f"| {spread(after_ready(pods, 'invalid', 'decided_s'))} "
            f"| {spread(after_ready(pods, 'invalid', 'ready_s'))} "
            f"| {spread(after_ready(pods, 'valid', 'ready_s'))} "
            f"| {spread(after_ready(pods, 'failing', 'decided_s'))} | {'yes' if r['settled'] else 'no'} |")
    lines.append("")
    return "\n".join(lines)
