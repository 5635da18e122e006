"""The harness's simulation of the common peer design: a warmer on every node (a DaemonSet) that, as soon as
a pod on its node has its containers ready, sends it 100 requests one after another at up to 100/s, then
sets its readiness gate. Each node's warmer takes up to 10 pods at once, so pods on different nodes, and
up to 10 on one node, warm side by side; nothing waits for another node's pod."""

import threading
import time

from k6run import k6
from kube import set_condition
from manifests import BENCH_GATE

PER_NODE = 10
"""Pods one node's warmer warms at once."""


class PeerWarmer:
    def __init__(self, out, namespace, watch, target, count=100, max_rate=100):
        self.out, self.namespace, self.watch, self.target = out, namespace, watch, target
        self.count, self.max_rate = count, max_rate
        self.started = set()
        self.slots = {}
        self.threads = []
        self.log = []
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _waiting(self, pods):
        return [name for name, p in pods.items() if p["containers_ready"] and p["ip"] and name not in self.started]

    def _run(self):
        while not self.stopping:
            if not self.watch.wait(lambda pods: self.stopping or self._waiting(pods), 1) or self.stopping:
                continue
            pods = self.watch.snapshot()
            for name in self._waiting(pods):
                self.started.add(name)
                node = pods[name].get("node") or "?"
                slot = self.slots.setdefault(node, threading.Semaphore(PER_NODE))
                thread = threading.Thread(target=self._warm, args=(name, pods[name]["ip"], slot), daemon=True)
                self.threads.append(thread)
                thread.start()

    def _warm(self, name, ip, slot):
        with slot:
            started = time.time()
            try:
                k6(self.out, "bench/warmup/fixed-warmup.js",
                   {"BASE_URL": f"http://{ip}:8080", "COUNT": str(self.count), "MAX_RATE": str(self.max_rate),
                    "PATHS": self.target.warmup_paths}, f"peer-{name}")
                set_condition(self.namespace, name, BENCH_GATE, f"{self.count} requests")
                self.log.append({"pod": name, "k6_start": started, "gate_set": time.time()})
            except (RuntimeError, OSError) as e:
                # such a warmer leaves the pod gated; the harness reports it as not Ready
                self.log.append({"pod": name, "k6_start": started, "error": str(e)})

    def stop(self):
        self.stopping = True
        self.thread.join(timeout=30)
        for thread in self.threads:
            thread.join(timeout=120)
