"""The harness's simulation of a simple serial warmer, the design of a common peer operator: one pod at
a time, as soon as its containers are ready, 100 requests at up to 100/s one after another, then its
readiness gate set True."""

import threading
import time

from k6run import k6
from kube import set_condition
from manifests import BENCH_GATE


class SerialWarmer:
    def __init__(self, out, namespace, watch, target, count=100, max_rate=100):
        self.out, self.namespace, self.watch, self.target = out, namespace, watch, target
        self.count, self.max_rate = count, max_rate
        self.done = set()
        self.log = []
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _next(self, pods):
        waiting = [(p["containers_ready"], name) for name, p in pods.items()
                   if p["containers_ready"] and p["ip"] and name not in self.done]
        return min(waiting)[1] if waiting else None

    def _run(self):
        while not self.stopping:
            if not self.watch.wait(lambda pods: self.stopping or self._next(pods) is not None, 1):
                continue
            if self.stopping:
                return
            name = self._next(self.watch.snapshot())
            ip = self.watch.snapshot()[name]["ip"]
            started = time.time()
            self.done.add(name)
            try:
                k6(self.out, "bench/warmup/fixed-warmup.js",
                   {"BASE_URL": f"http://{ip}:8080", "COUNT": str(self.count), "MAX_RATE": str(self.max_rate),
                    "PATHS": self.target.warmup_paths}, f"serial-{name}")
                set_condition(self.namespace, name, BENCH_GATE, f"{self.count} requests")
                self.log.append({"pod": name, "k6_start": started, "gate_set": time.time()})
            except (RuntimeError, OSError) as e:
                # a simple warmer leaves such a pod gated; the harness reports it as not Ready
                self.log.append({"pod": name, "k6_start": started, "error": str(e)})

    def stop(self):
        self.stopping = True
        self.thread.join(timeout=120)
