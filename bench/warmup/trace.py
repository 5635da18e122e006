"""What the JVM does while it warms, on the cluster: the evidence a stop rule is chosen from.

  trace.py TARGET

TRACE_PODS (5) new pods of TARGET, TRACE_AT_ONCE (2) at a time, each on a worker node of its own and with
no gate: at ContainersReady each gets danki's warm-up loop (k6-scripts/warmup.js, the warm-up phase alone,
4 in flight) for exactly TRACE_REQUESTS (8,000) requests of the target's plan, then TRACE_TAIL_S (5) s of
nothing. Every TRACE_SAMPLE_S (0.2) s the host reads the pod's CPU, its node's CFS throttling and the CPU of
its JVM's JIT compiler threads (podcpu.py); k6's CSV has every answer. One record per pod is appended to
OUT/traces.jsonl (some 200 KB each, so not to RECORDS) with the samples and each answer's end time and
latency; stop_rules.py replays candidate stop rules over them (what each would have seen, and how much of
the JIT's work was done where it stopped).
Env: OUT, NAMESPACE (danki-bench), TRACE_PODS, TRACE_AT_ONCE, TRACE_REQUESTS, TRACE_TAIL_S, TRACE_SAMPLE_S.
"""

import json
import os
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "targets"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "demo"))
from k6run import k6  # noqa: E402
from kube import PodWatch, apply, delete_deployment, scale  # noqa: E402
from latency import load_requests  # noqa: E402
from manifests import deployment  # noqa: E402
from podcpu import PodCpu  # noqa: E402
from prepull import prepull  # noqa: E402
from targets import TARGETS  # noqa: E402

RESOURCES = {"requests": {"cpu": "200m", "memory": "256Mi"}, "limits": {"memory": "768Mi"}}
"""As the bench's strategies run them (cluster_bench.py): no CPU limit, the node's budget bounds the JVM."""


def env_int(name, default):
    return int(os.environ.get(name, default))


class Sampler:
    """Reads a pod's counters every `every` seconds in a thread, each sample stamped with the host time, and
    the JVM's own JIT counter from its metrics page (METRICS_URL), as danki.dev/jit-metrics reads it: the
    CompilationMXBean's compile time, which is elapsed time, throttling included."""

    def __init__(self, pod_cpu, every, metrics_url):
        self.pod_cpu, self.every, self.metrics_url = pod_cpu, every, metrics_url
        self.samples = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        n = 0
        while not self.stopping.is_set():
            # the page once a second, as often as danki reads it at block ends: a scrape costs the pod CPU
            # (the sample service takes a thread snapshot for it)
            scrape = n % max(1, round(1 / self.every)) == 0
            self.samples.append({"t": time.time(), **self.pod_cpu.snapshot(),
                                 "mxbean_ms": self._compile_ms() if scrape else None})
            n += 1
            self.stopping.wait(self.every)

    def _compile_ms(self):
        try:
            with urllib.request.urlopen(self.metrics_url, timeout=2) as page:
                text = page.read().decode(errors="replace")
        except OSError:
            return None
        for name, to_ms in (("jvm_compilation_time_ms_total", 1), ("jvm_compilation_time_seconds_total", 1000)):
            values = [float(line.split()[-1]) for line in text.splitlines()
                      if line.startswith(name) and line[len(name):][:1] in ("{", " ")]
            if values:
                return sum(values) * to_ms
        return None

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=10)
        return self.samples


def trace_pod(out, target, name, pod, requests, tail_s, every):
    """One pod's trace: the warm-up loop against it, sampled; its record."""
    pod_cpu = PodCpu(pod["node"], pod["uid"], target.pod_jar)
    sampler = Sampler(pod_cpu, every, f"http://{pod['ip']}:8080{target.metrics_path}")
    t_start = time.time()
    label = f"trace-{name}"
    k6(out, "k6-scripts/warmup.js", {
        "BASE_URL": f"http://{pod['ip']}:8080", "PHASES": "warmup", "PATHS": target.warmup_paths,
        "MIN_WARMUP_REQUESTS": str(requests), "MAX_WARMUP_REQUESTS": str(requests), "TIME_BUDGET_S": "600",
        "SUMMARY_PATH": os.path.join(out, "k6", label + ".json")}, label, csv=True)
    t_end = time.time()
    time.sleep(tail_s)
    samples = sampler.stop()
    answers = load_requests(os.path.join(out, "k6", label + ".csv"), "danki_latency")
    os.remove(os.path.join(out, "k6", label + ".csv"))  # some 100 MB a pod; the record keeps what counts
    return {"section": "trace", "target": target.name, "pod": name, "node": pod["node"],
            "containers_ready": pod["containers_ready"], "t_start": t_start, "t_end": t_end, "requests": requests,
            "jit_seen": pod_cpu.compiler is not None,
            "answers": [[round(a["end_ms"] / 1000, 3), round(a["ms"], 2)] for a in answers],
            "samples": samples}


def main(argv):
    target = TARGETS[argv[1]]
    out, namespace = os.environ["OUT"], os.environ.get("NAMESPACE", "danki-bench")
    total, at_once = env_int("TRACE_PODS", 5), env_int("TRACE_AT_ONCE", 2)
    requests, tail_s = env_int("TRACE_REQUESTS", 8000), float(os.environ.get("TRACE_TAIL_S", "5"))
    every = float(os.environ.get("TRACE_SAMPLE_S", "0.2"))
    name = f"trace-{target.name}"
    prepull(namespace, [target.image])
    done = 0
    while done < total:
        batch = min(at_once, total - done)
        watch = PodWatch(namespace, f"app={name}")
        try:
            apply(namespace, deployment(target, name, 0, one_per_node=True, resources=RESOURCES))
            scale(namespace, name, batch)
            if not watch.wait(lambda pods: sum(1 for p in pods.values() if p["containers_ready"] and p["ip"]) >= batch,
                              300):
                raise RuntimeError(f"{name}: {batch} pods not ContainersReady in 300 s")
            pods = {n: p for n, p in watch.snapshot().items() if p["containers_ready"]}
            threads, records, errors = [], [], []

            def traced(n, p):
                try:
                    records.append(trace_pod(out, target, n, p, requests, tail_s, every))
                except (RuntimeError, OSError) as e:
                    errors.append(f"{n}: {e}")

            for n, p in pods.items():
                thread = threading.Thread(target=traced, args=(n, p))
                threads.append(thread)
                thread.start()
            for thread in threads:
                thread.join()
            if errors:
                raise RuntimeError(f"trace {target.name}: {'; '.join(errors)}")
            with open(os.path.join(out, "traces.jsonl"), "a") as f:
                for record in records:
                    f.write(json.dumps(record) + "\n")
            done += len(records)
            print(f"trace {target.name}: {done}/{total} pods", flush=True)
        finally:
            watch.stop()
            delete_deployment(namespace, name)


if __name__ == "__main__":
    main(sys.argv)
