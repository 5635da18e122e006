#!/usr/bin/env python3
"""check-summary.py NAME SUMMARY EXPECT: checks one runner.js summary for smoke.sh and prints one line.

EXPECT "ok": a warmed run (stop reason not Aborted/OutOfTime, cold and warm P25..P95, no failed flow);
"abort:<text>": stop reason Aborted with <text> in abortMessage. Either way the file is at most 4096
bytes of JSON in the version-2 format, with notes.
"""
import json
import os
import sys

PERCENTILES = ("p25", "p50", "p75", "p90", "p95")


def check(summary_path, expect):
    if not os.path.exists(summary_path):
        return ["no summary written"], None
    raw = open(summary_path, "rb").read()
    problems = []
    if len(raw) > 4096:
        problems.append(f"{len(raw)} bytes, more than a termination message holds")
    s = json.loads(raw)
    if s.get("version") != 2 or "settings" in s or not isinstance(s.get("notes"), list):
        problems.append("not runner.js's compact version-2 summary")
    if expect == "ok":
        if s["stopReason"] in ("Aborted", "OutOfTime"):
            problems.append(f"stop reason {s['stopReason']}: {s.get('abortMessage')}")
        for phase in ("cold", "warm"):
            missing = [k for k in PERCENTILES if s["phases"][phase].get(k) is None]
            if missing:
                problems.append(f"{phase} pass lacks {', '.join(missing)}")
        failures = sum(p["failures"] for p in s["phases"].values())
        if failures:
            problems.append(f"{failures} failed flows, e.g. {s['phases']['cold']['failureExample']}")
    else:
        wanted = expect.split(":", 1)[1]
        if s["stopReason"] != "Aborted" or wanted not in (s.get("abortMessage") or ""):
            problems.append(f"expected Aborted naming '{wanted}', got {s['stopReason']}: {s.get('abortMessage')}")
    return problems, (s, len(raw))


def describe(s, size):
    p = s["phases"]
    fmt = lambda v: "-" if v is None else f"{v:.1f}"
    line = (f"{s['stopReason']}, cold p95 {fmt(p['cold']['p95'])} ms -> warm p95 {fmt(p['warm']['p95'])} ms, "
            f"{p['warmup']['requests']} warm-up flows, {size} bytes")
    if s.get("abortMessage"):
        line += f"; {s['abortMessage']}"
    for note in s.get("notes", []):
        line += f"; note: {note}"
    return line


def main():
    name, path, expect = sys.argv[1:4]
    problems, parsed = check(path, expect)
    if parsed:
        print(f"smoke: {name}: {describe(*parsed)}")
    for problem in problems:
        print(f"smoke: {name}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
