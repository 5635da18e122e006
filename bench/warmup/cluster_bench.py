"""Warm-up strategies on the local cluster: how soon new pods are Ready, and how warm they are then.

  cluster_bench.py SECTION TARGET STRATEGY

Sections (trials.py has their steps): single (SINGLE_TRIALS new pods, one at a time), scaleup
(SCALEUP_TRIALS scale-ups of 1 -> SCALEUP_TO), sweep (danki's floor: SWEEP_PODS pods at the floor
BENCH_EXTRA_ANNOTATIONS sets), aot (as single, on a JDK 25 target, danki with and without its AOT cache),
boost (pods with a CPU limit below their node's, danki without and with danki.dev/warmup-cpu).

Each new pod gets the target's first 100 user requests at 20/s the moment its Service's EndpointSlice lists
it ready, at the address listed there, as its Service would send them (first_requests.py). After a section's
planned trials, each pod gets 6,000 more requests and 3 passes of 100: its fully warm passes, which the report
pools over every pod of the target (the sweep's pods are judged against that pool and skip this). CPU seconds
by who spent them are taken from each scale to its last Ready; each pass has its pod's and node's CPU and
throttling, and the JIT's CPU. One JSON record per cell is appended to RECORDS (run-bench.sh sets it).

Strategies: none (no gate), peer_node100 (the common peer design, simulated: a warmer per node sends each
pod 100 requests one after another at up to 100/s as soon as its containers are ready, 10 pods at once per
node; peer_warmer.py), danki (danki's defaults), danki_jit (danki with danki.dev/jit-metrics), danki_aot
(danki with danki.dev/aot-cache: its Deployment is applied at 0 replicas first and the scale waits, at most
AOT_TRAIN_TIMEOUT s, until danki has trained its AotCache; the training's figures are recorded, and a cache
not Ready is recorded instead of a scale without it), danki_aot_jit (danki_aot with danki.dev/jit-metrics),
danki_limited and danki_boost (the boost section: pods whose CPU limit, BOOST_OWN_CPU, is below their node's
budget, warmed by danki at that limit, or with danki.dev/warmup-cpu: BOOST_CPU, the node's budget, while
gated).
In the aot section a pod's start is its first_seen: the host time the pod watch, started before the scale,
first saw it (its creation), on the same clock as its ContainersReady and Ready.
Before each strategy its images (the target's; with the cache, the runner image of its check too) are
pulled onto every worker node (prepull.py), so no side of a comparison pays a pull the other is spared.
Env: RECORDS, OUT, NAMESPACE (danki-bench), SCALEUP_TO (run-bench.sh: the worker nodes), SCALE_TIMEOUT (900 s),
SINGLE_TRIALS (5), SCALEUP_TRIALS (2), SWEEP_PODS (5), SWEEP_AT_ONCE (2), AOT_TRAIN_TIMEOUT (900 s),
BENCH_EXTRA_ANNOTATIONS (see extra_annotations), AOT_PODS and BOOST_PODS (1), BOOST_OWN_CPU (150m),
BOOST_CPU (350m: run-bench.sh sets the node's budget).
"""

import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "targets"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import aot_training  # noqa: E402
import trials  # noqa: E402
from first_requests import FirstRequests  # noqa: E402
from kube import EndpointWatch, PodWatch, apply, delete_deployment, find_json, get_json, wait_settled  # noqa: E402
from manifests import danki_annotations, deployment, service  # noqa: E402
from peer_warmer import PeerWarmer  # noqa: E402
from prepull import prepull, worker_nodes  # noqa: E402
from targets import JDK25_TARGETS, TARGETS  # noqa: E402

PEER = "peer_node100"
SPEED_STRATEGIES = ("danki_all", "danki_own", "danki_no_boost", "danki_no_aot", "danki_no_apc", "danki_all_cpu")
"""The speed section's danki sides: every lever on (the boost from admission at danki's default, the AOT cache,
the JVM told its declared CPU, the stop rule's defaults), danki at the pod's own limit without a cache, every
lever but one (danki_no_apc needs the operator installed with cpuBoost.activeProcessorCount=false), and every
lever with the pod's metrics page (danki_all_cpu: danki.dev/jit-metrics, so the cpu rule judges the stop)."""
STRATEGIES = ("none", PEER, "danki", "danki_jit", "danki_aot", "danki_aot_jit", "danki_limited",
              "danki_boost") + SPEED_STRATEGIES
SECTIONS = ("single", "scaleup", "sweep", "aot", "boost", "speed")
FLOOR_ANNOTATION = "danki.dev/min-warmup-requests"
"""The warm-up requests danki sends before any stop rule is asked (operator Keys): what the sweep varies."""
BOOST_STRATEGIES = ("danki_limited", "danki_boost")
AOT_STRATEGIES = ("danki_aot", "danki_aot_jit", "danki_all", "danki_no_boost", "danki_no_apc", "danki_all_cpu")
NO_BOOST_STRATEGIES = ("danki_own", "danki_no_boost", "danki_limited")
"""Opt out of the chart's default boost (danki.dev/warmup-cpu: off)."""
SPEED_FULLY_WARMED = ("none", "danki_all")
"""The speed section's sides whose pods are fully warmed for the pooled reference; the others are judged by it."""
JIT_STRATEGIES = ("danki_jit", "danki_aot_jit", "danki_all_cpu")
"""With danki.dev/jit-metrics: the targets' pages have the JIT and the process CPU counters, so the cpu rule judges."""
AOT_ANNOTATION = "danki.dev/aot-cache"
"""Opts a Deployment into danki's AOT cache; on a pod, the SHA-256 of the cache it was given (operator Keys)."""
BOOST_ANNOTATION = "danki.dev/warmup-cpu"
"""The warmed container's CPU limit while its pod is gated (operator Keys)."""
DANKI_GATE = "danki.dev/warmed"
"""danki's readiness gate, which it adds to an opted-in Deployment's template (operator Keys)."""
DECLARED_CPU_ANNOTATION = "danki.dev/declared-cpu"
"""The CPU a pod's container was declared with, which the webhook writes when it boosts the pod (operator Keys)."""
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


def manifest(target, name, replicas, strategy, section=None):
    placement = {"one_per_node": True, "resources": resources_of(strategy, section)}
    if strategy == PEER:
        return deployment(target, name, replicas, gate=True, **placement)
    if strategy.startswith("danki"):
        extra = extra_annotations()
        if strategy in AOT_STRATEGIES:
            extra[AOT_ANNOTATION] = "enabled"
        if strategy == "danki_boost":
            extra[BOOST_ANNOTATION] = os.environ.get("BOOST_CPU", "350m")
        if strategy in NO_BOOST_STRATEGIES:
            extra[BOOST_ANNOTATION] = "off"
        return deployment(target, name, replicas, annotations=danki_annotations(
            target, jit=strategy in JIT_STRATEGIES, extra=extra), **placement)
    return deployment(target, name, replicas, **placement)


def images_of(target, strategy):
    """What a strategy's pods pull: the target's image, and with the AOT cache the runner image of its check."""
    return [target.image] + ([RUNNER_IMAGE] if strategy in AOT_STRATEGIES else [])


def resources_of(strategy, section=None):
    """The speed section's pods all have a CPU limit below their node's, as the boost section's do."""
    return limited_resources() if strategy in BOOST_STRATEGIES or section == "speed" else RESOURCES


def ready_count(pods, exclude):
    return sum(1 for n, p in pods.items() if n not in exclude and p["ready"])


FINAL_PHASES = ("Succeeded", "Failed", "Cancelled")


def warmup_runs(namespace, pods, timeout_s=60):
    """The WarmupRun status of each of PODS, once every one has ended (danki writes the gate before the
    run's final status), or as it is after TIMEOUT_S."""
    deadline = time.time() + timeout_s
    while True:
        runs = {r["spec"]["podName"]: r.get("status", {}) for r in get_json("-n", namespace, "warmupruns")["items"]
                if r["spec"].get("podName") in pods}
        if all(s.get("phase") in FINAL_PHASES for s in runs.values()) or time.time() > deadline:
            return runs
        time.sleep(0.5)


def jvm_options(namespace, pods):
    """Per pod, the JVM options danki's webhook left in its first container's env (JDK_JAVA_OPTIONS)."""
    found = {n: find_json("-n", namespace, "pod", n) for n in pods}
    return {n: next((e.get("value") for e in (((p or {}).get("spec") or {}).get("containers") or [{}])[0].get("env", [])
                     if e.get("name") == "JDK_JAVA_OPTIONS"), None) for n, p in found.items()}


def pod_annotations(namespace, pods, key):
    """Per pod, its annotation KEY (None when absent or the pod is gone)."""
    found = {n: find_json("-n", namespace, "pod", n) for n in pods}
    return {n: ((p or {}).get("metadata", {}).get("annotations") or {}).get(key) for n, p in found.items()}


def experiment(section, target, strategy):
    out, namespace = os.environ["OUT"], os.environ.get("NAMESPACE", "danki-bench")
    timeout_s = int(os.environ.get("SCALE_TIMEOUT", "900"))
    name = f"{section}-{target.name}-{strategy}".replace("_", "-")
    steps, warm_after = trials.plan(section, len(worker_nodes()))
    # every side of a comparison starts with the images on its node (prepull.py says why)
    prepulled = sorted(images_of(target, strategy))
    prepull(namespace, prepulled)
    training = trained_cache(namespace, target, name, strategy, section) if strategy in AOT_STRATEGIES else None
    record = {"section": section, "target": target.name, "strategy": strategy, "training": training,
              "floor": extra_annotations().get(FLOOR_ANNOTATION), "timeout_s": timeout_s, "prepulled": prepulled,
              "trials": [], "pods": {}, "quality": {}, "runs": {}, "first_errors": {}}
    if training and not training["ready"]:
        remove(namespace, name, strategy)
        # measured without a cache it would be the other strategy: say why instead
        return dict(record, all_ready=False, all_ready_s=None)
    # after the training: a watch open through its minutes could outlive the API server's watch timeout
    watch = PodWatch(namespace, f"app={name}")
    endpoints = EndpointWatch(namespace, name)
    warmer = PeerWarmer(out, namespace, watch, target) if strategy == PEER else None
    first = None
    try:
        start = trials.start_replicas(section)
        apply(namespace, manifest(target, name, start, strategy, section), service(name))
        wait_settled(namespace, name, start, gate=DANKI_GATE if strategy.startswith("danki") else None)
        if start and not watch.wait(lambda pods: ready_count(pods, ()) >= start, 300):
            raise RuntimeError(f"{name}: {start} pods not Ready in 300 s")
        first = FirstRequests(out, target, watch, endpoints, set(watch.snapshot()), name)
        for i, (n_from, n_to) in enumerate(steps):
            trial = trials.run_trial(namespace, name, watch, n_from, n_to, timeout_s, target.pod_jar)
            if trial is None:
                continue
            record["trials"].append(trial)
            first.wait_started(trial["pods"], 60)
            # their first 100 end before the next step, which may scale them away
            first.settle()
            if strategy.startswith("danki"):
                record["runs"].update(warmup_runs(namespace, trial["pods"]))
            if section == "aot" or training:
                record.setdefault("pod_aot_cache", {}).update(pod_annotations(namespace, trial["pods"], AOT_ANNOTATION))
            if section == "speed":
                record.setdefault("pod_declared_cpu", {}).update(
                    pod_annotations(namespace, trial["pods"], DECLARED_CPU_ANNOTATION))
                record.setdefault("pod_jvm_options", {}).update(jvm_options(namespace, trial["pods"]))
            if i in warm_after and (section != "speed" or strategy in SPEED_FULLY_WARMED):
                record["quality"].update(first.fully_warm([n for n in first.results if n not in record["quality"]]))
        first.settle()
        if section == "sweep" or (section == "speed" and strategy not in SPEED_FULLY_WARMED):
            record["quality"] = first.unwarmed()
        snapshot = watch.snapshot()
        record["pods"] = {n: {k: snapshot[n][k] for k in ("ip", "node", "first_seen", "containers_ready", "ready")}
                          for t in record["trials"] for n in t["pods"]}
        for n, (listed, _) in endpoints.snapshot().items():
            if n in record["pods"]:
                record["pods"][n]["serving"] = listed
        record["first_errors"] = first.errors
        record["peer"] = warmer.log if warmer else None
        record["all_ready"] = all(t["all_ready"] for t in record["trials"])
        times = [t["all_ready_s"] for t in record["trials"]]
        record["all_ready_s"] = statistics.median(times) if record["all_ready"] else None
        # what the earlier reports read of a one-trial record (aot, boost)
        first_trial = record["trials"][0]
        record.update(n_from=first_trial["n_from"], n_to=first_trial["n_to"], t_scale=first_trial["t_scale"],
                      wall_s=first_trial["wall_s"], cpu=first_trial["cpu"])
        if section == "speed":
            record["own_cpu"] = resources_of(strategy, section)["limits"]["cpu"]
        if section == "boost":
            record["boost"] = {"own_cpu": resources_of(strategy)["limits"]["cpu"],
                               "boost_cpu": os.environ.get("BOOST_CPU", "350m") if strategy == "danki_boost" else None}
        return record
    finally:
        if first:
            first.finish()
        if warmer:
            warmer.stop()
        watch.stop()
        endpoints.stop()
        remove(namespace, name, strategy)


def trained_cache(namespace, target, name, strategy, section):
    """The strategies with the cache: the Deployment applied at 0 replicas, and its AotCache's training, waited for."""
    aot_training.forget(namespace, name)
    t_apply = time.time()
    try:
        apply(namespace, manifest(target, name, 0, strategy, section))
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
    if section not in SECTIONS:
        sys.exit(f"cluster_bench.py: section {section}: expected one of {', '.join(SECTIONS)}")
    if strategy not in STRATEGIES:
        sys.exit(f"cluster_bench.py: strategy {strategy}: expected one of {', '.join(STRATEGIES)}")
    record = experiment(section, target, strategy)
    with open(os.environ["RECORDS"], "a") as f:
        f.write(json.dumps(record) + "\n")
    if record.get("training") and not record["training"]["ready"]:
        print(f"{section} {target.name} {strategy}: AotCache not Ready: {record['training']['phase']}, "
              f"{record['training']['reason']}", flush=True)
        return
    p95s = sorted(q["first100"]["p95"] for q in record["quality"].values() if q.get("first100"))
    print(f"{section} {target.name} {strategy}: all Ready {record['all_ready_s'] and round(record['all_ready_s'], 1)} s "
          f"(median of {len(record['trials'])} trials); first-100 P95 median "
          f"{p95s[len(p95s) // 2] if p95s else None} ms over {len(p95s)} pods", flush=True)


if __name__ == "__main__":
    main(sys.argv)
