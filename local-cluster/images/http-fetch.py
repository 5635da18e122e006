#!/usr/bin/env python3
"""http-fetch: the test image danki/http-fetch:dev, a client inside a pod for tests.

Answers GET /?url=<url> on the port from env PORT (default 8080) by fetching <url> from inside its
own pod, with a timeout of env TIMEOUT seconds (default 1), and answers 200 with one line: the HTTP
status code it got ("200", "400", ...), or "timeout", "refused" or "error <reason>". A test on the
host asks it whether the pod reaches an address: the node always reaches its pods, whatever
NetworkPolicies say, so the question gets through even when the answer is no.
The real-kubelet acceptance test runs it (app-images part: a fetch from node 2 to node 3).
"""
import http.server
import os
import signal
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request

PORT = int(os.environ.get("PORT", "8080"))
TIMEOUT = float(os.environ.get("TIMEOUT", "1"))


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
            return str(answer.status)
    except urllib.error.HTTPError as e:
        return str(e.code)
    except urllib.error.URLError as e:
        reason = e.reason
        if isinstance(reason, (socket.timeout, TimeoutError)):
            return "timeout"
        if isinstance(reason, ConnectionRefusedError):
            return "refused"
        return f"error {reason}"
    except (socket.timeout, TimeoutError):
        return "timeout"
    except OSError as e:
        return f"error {e}"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        urls = query.get("url")
        body = (fetch(urls[0]) if urls else "error no url= given") + "\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, fmt, *args):
        pass  # probes every second would flood the log


def main():
    server = http.server.ThreadingHTTPServer(("0.0.0.0", PORT), Handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"http-fetch listening port={PORT} timeout={TIMEOUT}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
