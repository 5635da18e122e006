"""The first 100 real requests to each new pod, sent the moment the pod watch sees it Ready, as a
Service would send them, and the fully warm P95 of each pod afterwards."""

import threading

from k6run import full_warm, steady_p95, user_pass


class FirstRequests:
    def __init__(self, out, target, watch, exclude, label):
        self.out, self.target, self.watch, self.exclude, self.label = out, target, watch, set(exclude), label
        self.started = {}
        self.results = {}
        self.errors = {}
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _new_ready(self, pods):
        return [n for n, p in pods.items() if p["ready"] and p["ip"] and n not in self.exclude and n not in self.started]

    def _run(self):
        while not self.stopping:
            if not self.watch.wait(lambda pods: self.stopping or self._new_ready(pods), 1):
                continue
            pods = self.watch.snapshot()
            for name in self._new_ready(pods):
                thread = threading.Thread(target=self._pass, args=(name, pods[name]["ip"]), daemon=True)
                self.started[name] = thread
                thread.start()

    def _pass(self, name, ip):
        try:
            self.results[name] = user_pass(self.out, self.target, f"http://{ip}:8080", f"{self.label}-{name}-first")
        except (RuntimeError, OSError) as e:
            self.errors[name] = str(e)

    def finish(self):
        """Stops watching for new pods and waits for every pass under way."""
        self.stopping = True
        self.thread.join(timeout=30)
        for thread in self.started.values():
            thread.join(timeout=300)

    def fully_warm(self, pods):
        """Per pod that had its first 100: full warm-up, then the median of 3 passes; the ratio to it."""
        ratios = {}
        for name, first in sorted(self.results.items()):
            base = f"http://{pods[name]['ip']}:8080"
            full_warm(self.out, self.target, base, f"{self.label}-{name}-full")
            steady, passes = steady_p95(self.out, self.target, base, f"{self.label}-{name}-steady")
            ratios[name] = {"first100": first, "steady_p95": steady, "steady_passes": [p["p95"] for p in passes],
                            "ratio": first["p95"] / steady if steady else None}
        return ratios
