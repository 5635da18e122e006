"""Request latencies from k6's CSV output, and percentiles computed the way k6 computes them.

k6 is run with `--out csv=FILE` and K6_CSV_TIME_FORMAT=unix_milli, so every request is one
`http_req_duration` row (and every exam flow one `exam_flow_duration` row) with the time it ended
(ms) and its duration (ms).
"""

import csv
import math

PERCENTILES = (25, 50, 75, 90, 95)
"""The percentiles danki reports everywhere (P25-P95), as in the published exam-server table."""


FLOW_METRIC = "exam_flow_duration"
"""exam-start.js's Trend of one candidate's GET /exams/{id} plus POST answers: its unit of "a request"."""


def load_requests(path, metric=None):
    """Returns [{end_ms, start_ms, ms, status, ok, name, method, url}] for each sample of `metric` in a k6 CSV file;
    by default the exam flows when the file has them (exam-start.js), else every HTTP request."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if metric is None:
        metric = FLOW_METRIC if any(r.get("metric_name") == FLOW_METRIC for r in rows) else "http_req_duration"
    requests = []
    for row in rows:
        if row.get("metric_name") != metric:
            continue
        ms = float(row["metric_value"])
        end_ms = _timestamp_ms(row["timestamp"])
        status = row.get("status") or ""
        ok = row.get("expected_response") != "false" and not status.startswith(("4", "5", "0"))
        requests.append({"end_ms": end_ms, "start_ms": end_ms - ms, "ms": ms, "status": status,
                         "ok": ok, "name": row.get("name") or row.get("url") or "", "method": row.get("method") or "",
                         "url": row.get("url") or ""})
    requests.sort(key=lambda r: r["start_ms"])
    return requests


def failed_http_requests(path):
    """HTTP requests in a k6 CSV file that k6 counted as failed (status not expected, or no answer)."""
    return sum(1 for r in load_requests(path, "http_req_duration") if not r["ok"])


def _timestamp_ms(raw):
    """k6 writes unix_milli when asked; plain unix seconds are accepted too (older runs)."""
    value = float(raw)
    return value if value > 1e11 else value * 1000.0


def percentile(values, pct):
    """k6's TrendSink.P: linear interpolation between the closest ranks, over n - 1."""
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    i = pct / 100.0 * (len(ordered) - 1)
    lo, hi = ordered[int(math.floor(i))], ordered[int(math.ceil(i))]
    return lo + (hi - lo) * (i - math.floor(i))


def summarize(requests):
    """{p25..p95, count, errors, max} over a list of requests (all of them, failed ones included)."""
    values = [r["ms"] for r in requests]
    summary = {f"p{p}": percentile(values, p) for p in PERCENTILES}
    summary.update(count=len(values), errors=sum(1 for r in requests if not r["ok"]),
                   max=max(values) if values else None)
    return summary


def first_n(requests, n):
    """The first n requests by start time: "the first 100 real requests" of a benchmark."""
    return sorted(requests, key=lambda r: r["start_ms"])[:n]
