#!/usr/bin/env python3
"""http-status: the test image danki/http-status:dev (local-cluster/images/Dockerfile).

Answers every request (any method, any path) with the status code from env STATUS (default 200),
on the port from env PORT (default 8080), on all addresses of its pod's network namespace.
The body names the pod (env POD_NAME or HOSTNAME) so a test can tell replicas apart.
ON_SIGTERM=ignore (default: exit) makes it ignore SIGTERM, as a hung JVM does, so only SIGKILL
stops it.
SCHEDULE (optional) replaces STATUS by phases timed from the process start: comma-separated
`behaviour:seconds`, the last phase without seconds (it lasts forever), e.g. `hang:20,500:20,200`.
A behaviour is a status code (100..599) to answer, or `hang`: read the request and never answer
until the phase ends, then close the connection. The fault suite uses it for a target that
hangs, then fails, then recovers.
Used by the local cluster's smoke check and the operator's failure-policy and fault tests.
"""
import http.server
import os
import signal
import sys
import time


def env_int(name, default, low, high):
    raw = os.environ.get(name, str(default))
    try:
        value = int(raw)
    except ValueError:
        sys.exit(f"http-status: {name}={raw!r} is not a number")
    if not low <= value <= high:
        sys.exit(f"http-status: {name}={value} is not in {low}..{high}")
    return value


STATUS = env_int("STATUS", 200, 100, 599)
PORT = env_int("PORT", 8080, 1, 65535)
NAME = os.environ.get("POD_NAME") or os.environ.get("HOSTNAME", "unknown")
START = time.monotonic()


def schedule(raw):
    """[(behaviour, end)], end in seconds from START (None for the last phase); exits on a bad value."""
    phases, at = [], 0
    parts = raw.split(",")
    for i, part in enumerate(parts):
        what, _, secs = part.strip().partition(":")
        last = i == len(parts) - 1
        if what != "hang" and not (what.isdigit() and 100 <= int(what) <= 599):
            sys.exit(f"http-status: SCHEDULE={raw!r}: {what!r} is not hang or a status 100..599")
        if last and secs:
            sys.exit(f"http-status: SCHEDULE={raw!r}: the last phase lasts forever, drop its ':{secs}'")
        if not last and not (secs.isdigit() and 1 <= int(secs) <= 86400):
            sys.exit(f"http-status: SCHEDULE={raw!r}: {part.strip()!r} needs seconds 1..86400, as hang:20")
        at += int(secs) if not last else 0
        phases.append((what if what == "hang" else int(what), None if last else at))
    return phases


PHASES = schedule(os.environ["SCHEDULE"]) if os.environ.get("SCHEDULE") else [(STATUS, None)]


def phase_now():
    """(behaviour, seconds until the phase ends or None) at this moment."""
    elapsed = time.monotonic() - START
    for what, end in PHASES:
        if end is None or elapsed < end:
            return what, (None if end is None else end - elapsed)
    return PHASES[-1][0], None


ON_SIGTERM = os.environ.get("ON_SIGTERM", "exit")
if ON_SIGTERM not in ("exit", "ignore"):
    sys.exit(f"http-status: ON_SIGTERM={ON_SIGTERM!r} is not exit or ignore")


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self):
        status, left = phase_now()
        if status == "hang":
            time.sleep(left)  # never answer during the phase, then drop the connection
            self.close_connection = True
            return
        body = f"{status} from {NAME}\n".encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = answer

    def log_message(self, fmt, *args):
        pass  # probes every second would flood the log


def main():
    server = http.server.ThreadingHTTPServer(("0.0.0.0", PORT), Handler)
    if ON_SIGTERM == "ignore":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        # SIGTERM ends the process at once, with status 0, as a well-behaved container does.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    plan = os.environ.get("SCHEDULE") or STATUS
    print(f"http-status listening port={PORT} status={plan} on_sigterm={ON_SIGTERM}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
