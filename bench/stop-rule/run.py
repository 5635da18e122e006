"""`make bench-stop-rule`: how many warm-up requests, at what concurrency, and which stop rule.

For each target (bench/targets/targets.py) and each variant below, on fresh JVMs on loopback:
  1. k6-scripts/warmup.js with the variant's settings: cold pass, warm-up, warm pass, as danki runs it;
  2. the first 100 real requests at 20/s (the target's user flow), timed from the client;
  3. at least 6,000 more requests of that flow, then 3 more passes of 100: the pod's fully warm P95
     is their median;
and the JVM's JIT compile time after the warm-up and after the full warm-up, from its metrics page.
A good setting stops early and leaves the first 100 within 1.25x of fully warm.

Sections (BENCH_SECTIONS, default all): `needed` (a fixed number of warm-up requests, N), `concurrency`
(requests in flight at a fixed N), `rules` (the adaptive stop rules). Records go to
.work/bench-stop-rule/records.jsonl; report.py writes bench/results/stop-rule-loopback.md and .json from them.

Env: BENCH_SECTIONS, BENCH_TARGETS (sample spring-shop), BENCH_REPEATS (2), K6 (bin/k6), BENCH_APPEND=1
adds to the last run's records instead of starting afresh.
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "targets"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from k6run import full_warm, k6, steady_p95, user_pass  # noqa: E402
from targets import REPO, TARGETS  # noqa: E402

OUT = os.path.join(REPO, ".work", "bench-stop-rule")
RECORDS = os.path.join(OUT, "records.jsonl")
TICKS = os.sysconf("SC_CLK_TCK")

# Each variant names every setting it is about; the rest are warmup.js's defaults at the commit.
SECTIONS = {
    "needed": [{"WARMUP_CONCURRENCY": "4", "MIN_WARMUP_REQUESTS": str(n), "MAX_WARMUP_REQUESTS": str(n)}
               for n in (1, 500, 1000, 2000, 4000, 8000)],
    "concurrency": [{"WARMUP_CONCURRENCY": str(c), "MIN_WARMUP_REQUESTS": "2000", "MAX_WARMUP_REQUESTS": "2000"}
                    for c in (1, 2, 4, 8, 16)],
    "rules": [
        {"RULE": "latency"},
        {"RULE": "latency", "MIN_WARMUP_REQUESTS": "500"},
        {"RULE": "latency", "BLOCK_SIZE": "100"},
        {"RULE": "latency", "TOLERANCE": "0.1"},
        {"RULE": "jit"},
        {"RULE": "jit", "JIT_QUIET_MS": "50"},
        {"RULE": "jit", "MIN_WARMUP_REQUESTS": "0"},
    ],
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Jvm:
    """The target's jar as a fresh process on a free loopback port; stopped on exit, whatever happened."""

    def __init__(self, target, log):
        self.target, self.log = target, log
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.tmp = tempfile.mkdtemp(prefix="danki-bench-")

    def __enter__(self):
        env = dict(os.environ, PORT=str(self.port), **self.target.env)
        started = time.time()
        self.process = subprocess.Popen(["java", f"-Djava.io.tmpdir={self.tmp}", "-jar", self.target.jar_path()],
                                        cwd=REPO, env=env, stdout=open(self.log, "w"), stderr=subprocess.STDOUT)
        while time.time() - started < 120:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.target.name} exited during start-up; see {self.log}")
            if self.get(self.target.ready_path, timeout=1) is not None:
                self.ready_s = time.time() - started
                return self
            time.sleep(0.1)
        raise RuntimeError(f"{self.target.name} not ready within 120 s; see {self.log}")

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait(timeout=30)
        subprocess.run(["rm", "-rf", self.tmp], check=False)

    def get(self, path, timeout=5):
        try:
            with urllib.request.urlopen(self.base + path, timeout=timeout) as answer:
                return answer.read().decode()
        except OSError:
            return None

    def compile_ms(self):
        """The JIT counter on the metrics page (k6-scripts/lib/jit.js reads the same)."""
        page = self.get(self.target.metrics_path) or ""
        for name, to_ms in (("jvm_compilation_time_ms_total", 1), ("jvm_compilation_time_seconds_total", 1000)):
            values = [float(line.split()[-1]) for line in page.splitlines()
                      if line.startswith(name + "{") or line.startswith(name + " ")]
            if values:
                return sum(values) * to_ms
        return None

    def cpu_s(self):
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS


def run_once(target, variant, name):
    env = {k: v for k, v in variant.items() if k != "RULE"}
    with Jvm(target, os.path.join(OUT, name + ".jvm.log")) as jvm:
        if variant.get("RULE") == "jit":
            env["JIT_METRICS_URL"] = jvm.base + target.metrics_path
        summary_path = os.path.join(OUT, name + ".summary.json")
        cpu0 = jvm.cpu_s()
        k6(OUT, "k6-scripts/warmup.js", dict(env, BASE_URL=jvm.base, PATHS=target.warmup_paths, SUMMARY_PATH=summary_path),
           name + "-warmup")
        cpu_warmup = jvm.cpu_s() - cpu0
        jit_warmed = jvm.compile_ms()
        first = user_pass(OUT, target, jvm.base, name + "-first")
        full_warm(OUT, target, jvm.base, name + "-full")
        steady_median, steady = steady_p95(OUT, target, jvm.base, name + "-steady")
        jit_full = jvm.compile_ms()
        summary = json.load(open(summary_path))
        return {"target": target.name, "variant": variant, "ready_s": jvm.ready_s, "stop": summary["stopReason"],
                "evidence": summary["evidence"], "duration_s": summary["durationSeconds"],
                "cold_p95": summary["phases"]["cold"]["p95"], "warm_p95": summary["phases"]["warm"]["p95"],
                "warmup_requests": summary["phases"]["warmup"]["requests"], "jvm_cpu_warmup_s": cpu_warmup,
                "jit_ms_after_warmup": jit_warmed, "jit_ms_fully_warm": jit_full,
                "first100": first, "steady": steady,
                "steady_p95": steady_median}


def main():
    sections = os.environ.get("BENCH_SECTIONS", " ".join(SECTIONS)).split()
    targets = [TARGETS[t] for t in os.environ.get("BENCH_TARGETS", " ".join(TARGETS)).split()]
    repeats = int(os.environ.get("BENCH_REPEATS", "2"))
    os.makedirs(OUT, exist_ok=True)
    if os.environ.get("BENCH_APPEND") != "1" and os.path.exists(RECORDS):
        os.remove(RECORDS)
    for t in targets:
        if not os.path.isfile(t.jar_path()):
            sys.exit(f"bench-stop-rule: {t.jar} missing; build it first")
    started = time.time()
    for section in sections:
        for target in targets:
            for i, variant in enumerate(SECTIONS[section]):
                for r in range(1, repeats + 1):
                    name = f"{section}-{target.name}-v{i + 1}-r{r}"
                    record = dict(run_once(target, variant, name), section=section, repeat=r)
                    with open(RECORDS, "a") as f:
                        f.write(json.dumps(record) + "\n")
                    print(f"stop-rule: {name} {variant}: stop {record['stop']} after {record['warmup_requests']} "
                          f"in {record['duration_s']:.1f} s; first-100 P95 {record['first100']['p95']:.1f} ms, "
                          f"fully warm {record['steady_p95']:.1f} ms "
                          f"({record['first100']['p95'] / record['steady_p95']:.2f}x)", flush=True)
    print(f"stop-rule: {len(sections)} sections in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
