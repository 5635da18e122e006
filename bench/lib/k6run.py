"""k6 runs shared by the benchmark harnesses: one run with its log, the first 100 user requests of a
target, and the full warm-up that brings a pod to its steady state."""

import os
import subprocess
import sys
from urllib.parse import urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "demo"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "targets"))
from latency import first_n, load_requests, summarize  # noqa: E402
from targets import REPO  # noqa: E402

K6 = os.environ.get("K6", os.path.join(REPO, "bin", "k6"))
FULL_WARM = 6000
"""Requests after which a pod counts as fully warm: well past any stop rule's choice."""


def k6(out, script, env, name, csv=False, timeout=900):
    """One k6 run of SCRIPT (relative to the repo); its log (and CSV) under OUT/k6/NAME."""
    os.makedirs(os.path.join(out, "k6"), exist_ok=True)
    # --address "": no REST API on localhost:6565, which two k6 runs at once would both ask for
    args = [K6, "run", "--no-usage-report", "--quiet", "--address", ""]
    if csv:
        args += ["--out", f"csv={os.path.join(out, 'k6', name + '.csv')}"]
    with open(os.path.join(out, "k6", name + ".log"), "w") as log:
        rc = subprocess.run(args + [os.path.join(REPO, script)], cwd=REPO, timeout=timeout, stdout=log,
                            stderr=subprocess.STDOUT,
                            env=dict(os.environ, K6_CSV_TIME_FORMAT="unix_milli", **env)).returncode
    # 99: a threshold failed, which these scripts use for reporting, not for judging the run
    if rc not in (0, 99):
        raise RuntimeError(f"k6 {name} exited {rc}; see {out}/k6/{name}.log")


def user_pass(out, target, base_url, name):
    """The first 100 of the target's user requests at 20/s, open model: P25-P95 (ms), errors, start time,
    every latency (ms, in the order sent) and the requests sent ("METHOD /path", each once)."""
    k6(out, target.first100["script"], dict(target.first100["env"], BASE_URL=base_url), name, csv=True)
    csv_path = os.path.join(out, "k6", name + ".csv")
    requests = first_n(load_requests(csv_path), 100)
    summary = summarize(requests)
    summary["first_start_s"] = requests[0]["start_ms"] / 1000.0 if requests else None
    summary["latencies"] = [round(r["ms"], 3) for r in requests]
    summary["sent"] = sorted({request_of(r) for r in load_requests(csv_path, "http_req_duration")})
    return summary


def request_of(answer):
    """'METHOD /path' of one k6 answer. A script that names its requests (tags.name) gets that name in k6's url
    column, which holds 'METHOD /path' already (exam-start.js, fixed-warmup.js)."""
    url = answer["url"]
    if url.startswith(("http://", "https://")):
        return f"{answer['method']} {urlsplit(url).path}"
    return url if " " in url else f"{answer['method']} {url}"


def full_warm(out, target, base_url, name):
    """FULL_WARM more user requests, 4 at a time back to back: the pod's fully warm steady state."""
    k6(out, "bench/warmup/fixed-warmup.js", {"BASE_URL": base_url, "COUNT": str(FULL_WARM), "VUS": "4",
                                             "WARMUP_HEADER": "0", "PATHS": target.full_warm_paths}, name)


def steady_p95(out, target, base_url, name, passes=3):
    """The fully warm P95: median of PASSES user passes (one pass alone swings with the machine)."""
    results = [user_pass(out, target, base_url, f"{name}-{i}") for i in range(1, passes + 1)]
    p95s = sorted(r["p95"] for r in results)
    return p95s[len(p95s) // 2], results
