"""The first 100 user requests to each new pod, and its fully warm state afterwards.

A pod's first 100 leave the moment its Service's EndpointSlice lists it ready, which is when a Service
starts sending it users, to the address the slice lists (never to another). Each pass, the first 100 and
every steady pass after the full warm-up, is recorded with what the pod's CPU did meanwhile: its node's
and its own CFS throttling, its CPU seconds and its JIT compiler threads' (podcpu.py); every latency is
kept, so a run can pool the steady passes of all its pods into one fully warm reference (stats.py). The
JIT's CPU is also read at Ready and once fully warm: how much compiling was still to come when the pod
took its first users."""

import threading
import time

import podcpu
from k6run import full_warm, user_pass

STEADY_PASSES = 3
FIRST = 100


class FirstRequests:
    def __init__(self, out, target, pods, endpoints, exclude, label):
        """PODS: a PodWatch (node and UID of each pod); ENDPOINTS: an EndpointWatch of the Deployment's
        Service; EXCLUDE: pods that were there before the scale, which get no first 100."""
        self.out, self.target, self.pods, self.endpoints = out, target, pods, endpoints
        self.exclude, self.label = set(exclude), label
        self.started = {}
        self.results = {}
        self.cpu = {}
        self.errors = {}
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _serving(self, listed):
        return [n for n, (_, address) in listed.items() if address and n not in self.exclude and n not in self.started]

    def _run(self):
        while not self.stopping:
            if not self.endpoints.wait(lambda listed: self.stopping or self._serving(listed), 1):
                continue
            listed = self.endpoints.snapshot()
            for name in self._serving(listed):
                thread = threading.Thread(target=self._pass, args=(name, listed[name][1]), daemon=True)
                self.started[name] = thread
                thread.start()

    def _pass(self, name, address):
        try:
            pod = self.pods.snapshot()[name]
            self.cpu[name] = podcpu.PodCpu(pod["node"], pod["uid"], self.target.pod_jar)
            result = measured_pass(self.cpu[name], lambda: user_pass(
                self.out, self.target, f"http://{address}:8080", f"{self.label}-{name}-first"))
            # a cold pod may leave some unanswered past k6's 30 s grace: its percentiles are then a floor
            result["unanswered"] = max(0, FIRST - result["count"])
            self.results[name] = result
        except (RuntimeError, OSError, KeyError, ValueError) as e:
            self.errors[name] = str(e)

    def wait_started(self, names, timeout_s):
        """Until every pod of NAMES has its first 100 under way (its Service listed it), or TIMEOUT_S."""
        deadline = time.time() + timeout_s
        while time.time() < deadline and not all(n in self.started for n in names):
            time.sleep(0.2)

    def settle(self):
        """Waits for every first 100 under way."""
        for thread in list(self.started.values()):
            thread.join(timeout=300)

    def finish(self):
        """Stops watching for new pods and waits for every pass under way."""
        self.stopping = True
        self.thread.join(timeout=30)
        self.settle()

    def unwarmed(self):
        """Per pod that had its first 100, without a full warm-up of its own: its first 100 and the JIT's CPU
        at Ready (the sweep's pods, judged against the run's pooled reference)."""
        return {n: {"first100": first, "steady_p95": None, "steady_passes": [], "ratio": None,
                    "jit_cpu_s_at_ready": ((first["cpu"]["before"] or {}).get("jit") or {}).get("compiler_s"),
                    "jit_cpu_s_fully_warm": None} for n, first in sorted(self.results.items())}

    def fully_warm(self, names, at_once=2):
        """Per pod of NAMES (each has had its first 100): the full warm-up (AT_ONCE pods at a time: each
        takes its node's whole budget, and k6's closed loop some of the host's), then STEADY_PASSES user
        passes on every pod at once (20/s each, little for the host): the fully warm P95 is their median,
        and each pass joins the run's pooled reference."""
        names = sorted(names)
        addresses = {n: self.endpoints.snapshot()[n][1] for n in names}
        for i in range(0, len(names), at_once):
            _each(names[i:i + at_once], lambda n: full_warm(self.out, self.target, f"http://{addresses[n]}:8080",
                                                           f"{self.label}-{n}-full"))
        steady = {n: [] for n in names}
        for k in range(1, STEADY_PASSES + 1):
            _each(names, lambda n, k=k: steady[n].append(measured_pass(self.cpu[n], lambda: user_pass(
                self.out, self.target, f"http://{addresses[n]}:8080", f"{self.label}-{n}-steady-{k}"))))
        quality = {}
        for n in names:
            first, passes = self.results[n], steady[n]
            p95s = sorted(p["p95"] for p in passes)
            steady_p95 = p95s[len(p95s) // 2] if p95s else None
            at_ready = (first["cpu"]["before"] or {}).get("jit")
            fully = (passes[-1]["cpu"]["after"] or {}).get("jit") if passes else None
            quality[n] = {"first100": first, "steady_p95": steady_p95, "steady_passes": passes,
                          "ratio": first["p95"] / steady_p95 if steady_p95 else None,
                          "jit_cpu_s_at_ready": at_ready and at_ready["compiler_s"],
                          "jit_cpu_s_fully_warm": fully and fully["compiler_s"]}
        return quality


def measured_pass(pod_cpu, run):
    """RUN() (a user pass) with the pod's counters read before and after it."""
    before = pod_cpu.snapshot()
    result = run()
    after = pod_cpu.snapshot()
    result["cpu"] = {"before": before, "after": after, "spent": podcpu.spent(before, after)}
    return result


def _each(names, work):
    """WORK(name) for every name at once, each in a thread; the first error is raised once all are done."""
    errors = []

    def guarded(n):
        try:
            work(n)
        except (RuntimeError, OSError) as e:
            errors.append(f"{n}: {e}")

    threads = [threading.Thread(target=guarded, args=(n,), daemon=True) for n in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError("; ".join(errors))
