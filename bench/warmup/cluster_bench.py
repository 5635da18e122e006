"""Warm-up strategies on the local cluster: how soon new pods are Ready, and how warm they are then.

  cluster_bench.py single  TARGET STRATEGY   a Deployment scaled 0 -> 1
  cluster_bench.py scaleup TARGET STRATEGY   a Deployment scaled 1 -> SCALEUP_TO
  cluster_bench.py aot     TARGET STRATEGY   as single, on a JDK 25 target, danki with and without its AOT cache
  cluster_bench.py boost   TARGET STRATEGY   as aot, pods with a CPU limit below their node's, danki without and
                                             with danki.dev/warmup-cpu

Each new pod gets the target's first 100 user requests at 20/s the moment the cluster says it is Ready
(as its Service would send them); after every pod is Ready, each gets 6,000 more and 3 more passes of
100: its fully warm P95, the median of the 3. CPU seconds by who spent them are taken from the scale to
the last Ready. One JSON record is appended to RECORDS (run-bench.sh sets it).

Strategies: none (no gate), serial_fixed100 (the harness's simple serial warmer: one pod at a time,
100 requests at up to 100/s), danki (danki's defaults), danki_jit (danki with danki.dev/jit-metrics),
danki_aot (danki with danki.dev/aot-cache: its Deployment is applied at 0 replicas first and the scale
waits, at most AOT_TRAIN_TIMEOUT s, until danki has trained its AotCache; the training's figures are
recorded, and a cache not Ready is recorded instead of a scale without it), danki_aot_jit (danki_aot
with danki.dev/jit-metrics: does a pod that starts from the cache still have JIT work left when the
default rule lets it in?), danki_limited and danki_boost (the boost section: pods whose CPU limit,
BOOST_OWN_CPU, is below their node's budget, warmed by danki at that limit, or with danki.dev/warmup-cpu:
BOOST_CPU, the node's budget, while gated).
In the aot section a pod's start is its first_seen: the host time the pod watch, started before the scale,
first saw it (its creation, as the watch delivers it), on the same clock as its ContainersReady and Ready.
Every pod of a strategy gets a worker node of its own (manifests.deployment one_per_node), so
SCALEUP_TO is at most the cluster's worker nodes.
Before each strategy its images (the target's; with the cache, the runner image of its check too) are
pulled onto every worker node (prepull.py), so no side of a comparison pays a pull the other is spared.
Env: RECORDS, OUT, NAMESPACE (danki-bench), SCALEUP_TO (run-bench.sh: the worker nodes), SCALE_TIMEOUT (900 s),
AOT_TRAIN_TIMEOUT (900 s: the chart's training timeout, 15 min), BENCH_EXTRA_ANNOTATIONS (see extra_annotations),
BOOST_PODS (1), BOOST_OWN_CPU (150m), BOOST_CPU (350m: run-bench.sh sets the node's budget).
"""

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "targets"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import aot_training  # noqa: E402
import cpu  # noqa: E402
from first_requests import FirstRequests  # noqa: E402
from kube import PodWatch, apply, delete_deployment, find_json, get_json, scale, wait_settled  # noqa: E402
from manifests import danki_annotations, deployment  # noqa: E402
from prepull import prepull  # noqa: E402
from serial_warmer import SerialWarmer  # noqa: E402
from targets import JDK25_TARGETS, TARGETS  # noqa: E402

STRATEGIES = ("none", "serial_fixed100", "danki", "danki_jit", "danki_aot", "danki_aot_jit", "danki_limited",
              "danki_boost")
BOOST_STRATEGIES = ("danki_limited", "danki_boost")
AOT_STRATEGIES = ("danki_aot", "danki_aot_jit")
JIT_STRATEGIES = ("danki_jit", "danki_aot_jit")
AOT_ANNOTATION = "danki.dev/aot-cache"
"""Opts a Deployment into danki's AOT cache; on a pod, the SHA-256 of the cache it was given (operator Keys)."""
BOOST_ANNOTATION = "danki.dev/warmup-cpu"
"""The warmed container's CPU limit while its pod is gated (operator Keys)."""
DANKI_GATE = "danki.dev/warmed"
"""danki's readiness gate, which it adds to an opted-in Deployment's template (operator Keys)."""
RUNNER_IMAGE = "danki/k6-runner:dev"
"""The runner image as run-bench.sh's AOT_CHART_SET installs it: the AOT cache's check runs on it, before the JVM."""


RESOURCES = {"requests": {"cpu": "200m", "memory": "256Mi"}, "limits": {"memory": "768Mi"}}
"""As users set them: a CPU request the scheduler counts, a memory ceiling, no CPU limit (a pod has its
worker node to itself, so the node's budget is what bounds its JVM)."""


def limited_resources():
    """The boost section's pods: RESOURCES with a CPU limit of BOOST_OWN_CPU (request the same), below the
    node's budget, as a user sets one; the boost can then raise it, up to the node's budget."""
    own = os.environ.get("BOOST_OWN_CPU", "150m")
    return {"requests": {**RESOURCES["requests"], "cpu": own}, "limits": {**RESOURCES["limits"], "cpu": own}}


def extra_annotations():
    """BENCH_EXTRA_ANNOTATIONS ("key=value ..."): more of danki's annotations on every danki strategy's
    Deployment, for one-off questions (a lower danki.dev/min-warmup-requests with the cache)."""
    pairs = os.environ.get("BENCH_EXTRA_ANNOTATIONS", "").split()
    bad = [p for p in pairs if "=" not in p or not p.startswith("danki.dev/")]
    if bad:
        sys.exit(f"cluster_bench.py: BENCH_EXTRA_ANNOTATIONS: expected danki.dev/<key>=<value> pairs, got {bad}")
    return dict(p.split("=", 1) for p in pairs)


def manifest(target, name, replicas, strategy):
    placement = {"one_per_node": True, "resources": resources_of(strategy)}
    if strategy == "serial_fixed100":
        return deployment(target, name, replicas, gate=True, **placement)
    if strategy.startswith("danki"):
        extra = extra_annotations()
        if strategy in AOT_STRATEGIES:
            extra[AOT_ANNOTATION] = "enabled"
        if strategy == "danki_boost":
            extra[BOOST_ANNOTATION] = os.environ.get("BOOST_CPU", "350m")
        return deployment(target, name, replicas, annotations=danki_annotations(
            target, jit=strategy in JIT_STRATEGIES, extra=extra), **placement)
    return deployment(target, name, replicas, **placement)


def images_of(target, strategy):
    """What a strategy's pods pull: the target's image, and with the AOT cache the runner image of its check."""
    return [target.image] + ([RUNNER_IMAGE] if strategy in AOT_STRATEGIES else [])


def resources_of(strategy):
    return limited_resources() if strategy in BOOST_STRATEGIES else RESOURCES


def ready_count(pods, exclude):
    return sum(1 for n, p in pods.items() if n not in exclude and p["ready"])


def warmup_runs(namespace, pods):
    runs = get_json("-n", namespace, "warmupruns")["items"]
    return {r["spec"]["podName"]: r.get("status", {}) for r in runs if r["spec"].get("podName") in pods}


def pod_annotations(namespace, pods, key):
    """Per pod, its annotation KEY (None when absent or the pod is gone)."""
    found = {n: find_json("-n", namespace, "pod", n) for n in pods}
    return {n: ((p or {}).get("metadata", {}).get("annotations") or {}).get(key) for n, p in found.items()}


def experiment(section, target, strategy, n_from, n_to):
    out, namespace = os.environ["OUT"], os.environ.get("NAMESPACE", "danki-bench")
    timeout_s = int(os.environ.get("SCALE_TIMEOUT", "900"))
    name = f"{section}-{target.name}-{strategy}".replace("_", "-")
    # every side of a comparison starts with the images on its node (prepull.py says why)
    prepulled = sorted(images_of(target, strategy))
    prepull(namespace, prepulled)
    training = trained_cache(namespace, target, name, strategy) if strategy in AOT_STRATEGIES else None
    if training and not training["ready"]:
        remove(namespace, name, strategy)
        # measured without a cache it would be the other strategy: say why instead
        return {"section": section, "target": target.name, "strategy": strategy, "training": training,
                "pods": {}, "quality": {}, "runs": {}, "all_ready": False, "all_ready_s": None}
    # after the training: a watch open through its minutes could outlive the API server's watch timeout
    watch = PodWatch(namespace, f"app={name}")
    warmer = SerialWarmer(out, namespace, watch, target) if strategy == "serial_fixed100" else None
    first = None
    try:
        apply(namespace, manifest(target, name, n_from, strategy))
        wait_settled(namespace, name, n_from, gate=DANKI_GATE if strategy.startswith("danki") else None)
        if n_from and not watch.wait(lambda pods: ready_count(pods, ()) >= n_from, 300):
            raise RuntimeError(f"{name}: {n_from} pods not Ready in 300 s")
        existing = set(watch.snapshot())
        first = FirstRequests(out, target, watch, existing, name)
        before = cpu.snapshot(target.pod_jar)
        t_scale = time.time()
        scale(namespace, name, n_to)
        all_ready = watch.wait(lambda pods: ready_count(pods, existing) >= n_to - n_from, timeout_s)
        t_end = time.time()
        spent = cpu.spent(before, cpu.snapshot(target.pod_jar))
        first.finish()
        pods = {n: p for n, p in watch.snapshot().items() if n not in existing}
        record = {
            "section": section, "target": target.name, "strategy": strategy, "n_from": n_from, "n_to": n_to,
            "t_scale": t_scale, "all_ready": all_ready,
            "all_ready_s": (max(p["ready"] for p in pods.values()) - t_scale) if all_ready else None,
            "timeout_s": timeout_s, "wall_s": t_end - t_scale, "cpu": spent, "prepulled": prepulled,
            "pods": {n: {k: p[k] for k in ("ip", "first_seen", "containers_ready", "ready")} for n, p in pods.items()},
            "first_errors": first.errors,
            "runs": warmup_runs(namespace, pods) if strategy.startswith("danki") else None,
            "serial": warmer.log if warmer else None,
        }
        record["quality"] = first.fully_warm(pods)
        if section == "boost":
            record["boost"] = {"own_cpu": resources_of(strategy)["limits"]["cpu"],
                               "boost_cpu": os.environ.get("BOOST_CPU", "350m") if strategy == "danki_boost" else None}
        if section == "aot" or training:
            record["training"] = training
            record["pod_aot_cache"] = pod_annotations(namespace, pods, AOT_ANNOTATION)
        return record
    finally:
        if first:
            first.finish()
        if warmer:
            warmer.stop()
        watch.stop()
        remove(namespace, name, strategy)


def trained_cache(namespace, target, name, strategy):
    """danki_aot, danki_aot_jit: the Deployment applied at 0 replicas, and its AotCache's training, waited for."""
    aot_training.forget(namespace, name)
    t_apply = time.time()
    try:
        apply(namespace, manifest(target, name, 0, strategy))
        return aot_training.wait_trained(namespace, name, t_apply, int(os.environ.get("AOT_TRAIN_TIMEOUT", "900")))
    except BaseException:
        remove(namespace, name, strategy)
        raise


def remove(namespace, name, strategy):
    delete_deployment(namespace, name)
    if strategy in AOT_STRATEGIES:
        aot_training.forget(namespace, name)  # owned by the Deployment, but its claim should not outlive the run


def main(argv):
    section, target, strategy = argv[1], {**TARGETS, **JDK25_TARGETS}[argv[2]], argv[3]
    if section not in ("single", "scaleup", "aot", "boost"):
        sys.exit(f"cluster_bench.py: section {section}: expected single, scaleup, aot or boost")
    if strategy not in STRATEGIES:
        sys.exit(f"cluster_bench.py: strategy {strategy}: expected one of {', '.join(STRATEGIES)}")
    n_from, n_to = {"scaleup": (1, int(os.environ["SCALEUP_TO"])),
                    "aot": (0, int(os.environ.get("AOT_PODS", "1"))),
                    "boost": (0, int(os.environ.get("BOOST_PODS", "1")))}.get(section, (0, 1))
    record = experiment(section, target, strategy, n_from, n_to)
    with open(os.environ["RECORDS"], "a") as f:
        f.write(json.dumps(record) + "\n")
    if record.get("training") and not record["training"]["ready"]:
        print(f"{section} {target.name} {strategy}: AotCache not Ready: {record['training']['phase']}, "
              f"{record['training']['reason']}", flush=True)
        return
    ratios = sorted(q["ratio"] for q in record["quality"].values() if q["ratio"])
    print(f"{section} {target.name} {strategy}: all Ready {record['all_ready_s'] and round(record['all_ready_s'], 1)} s; "
          f"first-100 / fully warm median {ratios[len(ratios) // 2] if ratios else None}", flush=True)


if __name__ == "__main__":
    main(sys.argv)
