#!/usr/bin/env python3
"""http-status: the catalog image danki/http-status:dev.

Answers every request (any method, any path) with the status code from env STATUS (default 200),
on the port from env PORT (default 8080), on all addresses of its pod's network namespace.
The body names the pod (env POD_NAME or HOSTNAME) so a test can tell replicas apart.
ON_SIGTERM=ignore (default: exit) makes it ignore SIGTERM, as a hung JVM does, so only SIGKILL
stops it: the local cluster's acceptance test uses it to check that a liveness kill still ends.
Used by the local cluster's acceptance test and the operator's failure-policy test.
"""
import http.server
import os
import signal
import sys


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
ON_SIGTERM = os.environ.get("ON_SIGTERM", "exit")
if ON_SIGTERM not in ("exit", "ignore"):
    sys.exit(f"http-status: ON_SIGTERM={ON_SIGTERM!r} is not exit or ignore")


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self):
        body = f"{STATUS} from {NAME}\n".encode()
        self.send_response(STATUS)
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
    print(f"http-status listening port={PORT} status={STATUS} on_sigterm={ON_SIGTERM}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
