#!/usr/bin/env python3
"""cold-warm.py - how much slower are spring-shop's first requests than its warm ones?

Starts a fresh JVM from target/spring-shop.jar on a free 127.0.0.1 port, waits for readiness, then
sends the lines of warmup-paths.txt round-robin, one at a time on one keep-alive connection, in three
phases: COLD requests right after readiness, WARMING more, then WARM again. Prints P50, P95 and max
latency of each phase (nearest-rank percentiles) and the cold/warm P95 ratio, then stops the JVM.
Loopback only; every phase is bounded in count, every request and the whole run in time.

Run:  python3 bench/targets/spring-shop/cold-warm.py [--cold 100] [--warming 3000] [--warm 100]
Env:  JAVA (default java)
"""

import argparse
import http.client
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
JAR = HERE / "target" / "spring-shop.jar"
PATHS = HERE / "warmup-paths.txt"
READY_TIMEOUT_S = 90
REQUEST_TIMEOUT_S = 10
# the whole run, start-up included: 3,200 requests take well under a minute on a warm JVM
RUN_TIMEOUT_S = 600


def requests_from(path):
    """(method, path, body or None) per non-blank line, in the danki.dev/paths format."""
    specs = []
    for line in path.read_text().splitlines():
        parts = line.strip().split(None, 2)
        if parts:
            specs.append((parts[0].upper(), parts[1], parts[2] if len(parts) > 2 else None))
    if not specs:
        sys.exit(f"cold-warm: {path} holds no request")
    return specs


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port, jvm, started):
    """Milliseconds from `java` start to the first readiness 200."""
    while time.monotonic() - started < READY_TIMEOUT_S:
        if jvm.poll() is not None:
            sys.exit("cold-warm: the JVM exited before it was ready")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            conn.request("GET", "/actuator/health/readiness")
            if conn.getresponse().status == 200:
                return (time.monotonic() - started) * 1000
        except OSError:
            pass
        finally:
            conn.close()
        time.sleep(0.1)
    sys.exit(f"cold-warm: not ready within {READY_TIMEOUT_S}s")


def run_phase(conn, specs, count, offset, deadline):
    """Latencies in ms of `count` requests, round-robin from position `offset`."""
    latencies = []
    for i in range(count):
        if time.monotonic() > deadline:
            sys.exit(f"cold-warm: the run took longer than {RUN_TIMEOUT_S}s")
        method, path, body = specs[(offset + i) % len(specs)]
        headers = {"Content-Type": "application/json"} if body else {}
        t0 = time.perf_counter()
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        latencies.append((time.perf_counter() - t0) * 1000)
        if not 200 <= response.status < 300:
            sys.exit(f"cold-warm: {response.status} for {method} {path}")
    return latencies


def percentile(values, p):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def report(name, latencies):
    print(f"{name:8} n={len(latencies):5}  p50={percentile(latencies, 50):8.2f} ms  "
          f"p95={percentile(latencies, 95):8.2f} ms  max={max(latencies):8.2f} ms")
    return percentile(latencies, 95)


def main():
    parser = argparse.ArgumentParser(description="cold vs warm latency of spring-shop")
    parser.add_argument("--cold", type=int, default=100)
    parser.add_argument("--warming", type=int, default=3000)
    parser.add_argument("--warm", type=int, default=100)
    args = parser.parse_args()
    if not JAR.is_file():
        sys.exit(f"cold-warm: no {JAR}; build it with mvn -f {HERE / 'pom.xml'} package -DskipTests")
    specs = requests_from(PATHS)
    port = free_port()
    env = dict(os.environ, PORT=str(port), SERVER_ADDRESS="127.0.0.1")
    # the JVM's log and Tomcat's work folder both go in a folder removed at the end
    with tempfile.TemporaryDirectory() as work, open(Path(work) / "app.log", "wb") as log:
        started = time.monotonic()
        command = [os.environ.get("JAVA", "java"), f"-Djava.io.tmpdir={work}", "-jar", str(JAR)]
        jvm = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            print(f"ready after {wait_ready(port, jvm, started):.0f} ms on 127.0.0.1:{port}")
            deadline = started + RUN_TIMEOUT_S
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
            cold = report("cold", run_phase(conn, specs, args.cold, 0, deadline))
            report("warming", run_phase(conn, specs, args.warming, args.cold, deadline))
            warm = report("warm", run_phase(conn, specs, args.warm, args.cold + args.warming, deadline))
            conn.close()
            print(f"cold p95 / warm p95 = {cold / warm:.1f}")
        finally:
            jvm.send_signal(signal.SIGTERM)
            try:
                jvm.wait(timeout=10)
            except subprocess.TimeoutExpired:
                jvm.kill()
                jvm.wait()


if __name__ == "__main__":
    main()
