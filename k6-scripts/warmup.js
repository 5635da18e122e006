// warmup.js: how slow is a fresh JVM pod for its first users, and how fast once warmed?
//
// One k6 process runs three phases against BASE_URL, so k6's start-up cost is paid once:
//   1. cold:    the warm-up's first REQUESTS answers (COLD_PASS=warmup, the default: no time of its own),
//               or, with COLD_PASS=open, REQUESTS requests at RATE/s, open model (sent on schedule, not after
//               the previous answer): what the pod's first users would have met.
//   2. warm-up: a closed loop at the pod's capacity: WARMUP_CONCURRENCY requests in flight, the next
//               sent as soon as one answers, never faster than WARMUP_RATE/s. The answers are cut
//               into blocks of BLOCK_SIZE; once MIN_WARMUP_REQUESTS were sent, after each block:
//               - stop once the median throughput (answers/s) of the last WINDOW blocks beat the median
//                 of the WINDOW blocks before them by at most TOLERANCE: the pod, kept saturated, has
//                 stopped getting faster, so its work per request has stopped falling (Converged);
//               - with JIT_METRICS_URL (the pod's Prometheus page with jvm_compilation_time_ms_total
//                 or jvm_compilation_time_seconds_total): only once its compiler is quiet as well, at most
//                 JIT_QUIET_SHARE of the wall time for JIT_QUIET_BLOCKS scrapes in a row (JitSettled);
//                 when the page also has the process CPU counter (process_cpu_time_ns_total or
//                 process_cpu_seconds_total), the CPU per request between scrapes is judged in the
//                 throughput's place, by the same WINDOW and TOLERANCE: a change in the pod's share of the
//                 CPU moves its throughput, not its cost (the cpu rule, lib/convergence.js);
//               and, either way, once a block's P95 <= TARGET_P95_MS (TargetReached), at
//               MAX_WARMUP_REQUESTS (MaxRequests), or when only the warm pass's time is left (Timeout).
//               Then DRAIN_S seconds at DRAIN_RATE/s: the compiles the loop queued finish before the warm
//               pass (HotSpot drops queued compiles of methods that stop running, so not idle time).
//   3. warm:    REQUESTS requests taken as the cold ones were: with COLD_PASS=open at RATE/s, open model;
//               by default a closed pass, WARMUP_CONCURRENCY in flight, so a busy node slows both alike.
// A phase stops early (stop reason Aborted) once more than MAX_ERROR_RATIO of its answers failed: status
// 400 or above (a wrong path must not "warm" on 404s), no answer, or a redirect (3xx): redirects are never
// followed, and the pod's own endpoints are expected to answer the request themselves, so a 3xx counts
// as a failure unless ACCEPT_REDIRECTS=1 (danki.dev/accept-redirects). Only BASE_URL's address can be
// reached at all (lib/egress.js), whatever a path or a pod's answer says. A run cut off by its own time budget
// before the warm pass ended has stop reason OutOfTime. Every request carries X-Danki-Warmup: 1 and a
// `phase` tag. The phases and the summary are lib/danki.js's, shared with runner.js (custom flows);
// lib/convergence.js holds the stop rules, lib/senders.js the two ways of sending.
//
// Env vars (all optional; lib/settings.js reads them, with BASE_URL, RATE, SUMMARY_PATH and HEADERS):
//   REQUESTS             requests per cold and warm pass (default 100)
//   COLD_PASS            warmup or open, see above (default warmup)
//   WARMUP_CONCURRENCY   warm-up requests in flight (default 4)
//   WARMUP_RATE          ceiling on warm-up requests/s (default 1000)
//   MIN_WARMUP_REQUESTS  no stop rule is asked before this many warm-up requests (default 300)
//   MAX_WARMUP_REQUESTS  cap on warm-up requests (default 10000)
//   TARGET_P95_MS        stop warming once a block's P95 is at or under this (default off)
//   JIT_METRICS_URL      the pod's metrics page, e.g. http://198.18.0.12:8080/metrics (default off)
//   DRAIN_S, DRAIN_RATE  the drain after the warm-up (default 1 s at 10/s; DRAIN_S=0: none)
//   TIME_BUDGET_S        the whole run must end within this many seconds (default 300)
//   PATHS                requests to send round-robin: a JSON array of {method, path, body}, or
//                        'METHOD /path [JSON body]' entries separated by ';' or newlines (default 'GET /')
//   PATHS_FILE           a file holding PATHS instead (what the operator passes)
//   MAX_ERROR_RATIO      share of failed answers that aborts a phase (default 0.05)
//   BLOCK_SIZE (default 200), WINDOW (3), TOLERANCE (0.1), JIT_QUIET_SHARE (0.5), JIT_QUIET_BLOCKS (2): the
//   stop rules' settings, see above;
//   MAX_IN_FLIGHT        requests outstanding at once in a pass (default 256),
//   REQUEST_TIMEOUT      per-request timeout (default 10s)
//   ACCEPT_REDIRECTS     1: a 3xx answer counts as a success, still without following it (default 0)
//   PHASES               the phases to send, a comma list of cold, warmup, warm in that order (default all;
//                        the operator runs them apart around a CPU boost; a run without the warm-up has stop
//                        reason Measured, and a cold pass without the warm-up is an open one)
// SUMMARY_PATH receives JSON: per phase requests, failures, p25/p50/p75/p90/p95 in ms, the first failed
// request (failureExample, e.g. "404 from GET /exam/1") and, for the cold and warm passes, the protocol
// (source open or warmup, requests, rate or concurrency); stopReason and, when it is Aborted or OutOfTime,
// abortMessage; `evidence`: why the warm-up stopped (requests, blocks, throughput of the windows, JIT time).
//
// Run: k6 run --no-usage-report -e BASE_URL=http://127.0.0.1:8080 -e SUMMARY_PATH=/tmp/s.json k6-scripts/warmup.js
import http from 'k6/http';
import { createWarmup } from './lib/danki.js';
import { egressOptions } from './lib/egress.js';
import { parsePaths } from './lib/paths.js';
import { readSettings } from './lib/settings.js';
import { textTable } from './lib/warmup-summary.js';

const settings = readSettings(__ENV);
// PATHS_FILE: the operator writes the plan to a file, since one environment variable holds at most
// 128 KiB and a plan's bodies may not fit; PATHS is for people typing a plan by hand
const PATHS = parsePaths(__ENV.PATHS_FILE ? open(__ENV.PATHS_FILE) : __ENV.PATHS || 'GET /');
const warmup = createWarmup(settings);
const jsonHeaders = Object.assign({ 'Content-Type': 'application/json' }, warmup.headers);
const ACCEPT_REDIRECTS = __ENV.ACCEPT_REDIRECTS === '1';
const REDIRECT_HINT = 'redirects are not followed; set danki.dev/accept-redirects: "true" if that answer is right';

export const options = {
  ...warmup.options,
  ...egressOptions(settings.baseUrl),
  // a redirect would send the pod's warm-up traffic to wherever the pod says, with its headers and body
  maxRedirects: 0,
  // the warm-up only times answers; reading thousands of bodies into JS would cost k6 CPU for nothing
  discardResponseBodies: true,
};

export default async function () {
  await warmup.run(send);
}

/** Sends request i of `phase` (round-robin over PATHS) and resolves to {ok, ms, failure}. */
function send(i, phase) {
  const spec = PATHS[i % PATHS.length];
  return http.asyncRequest(spec.method, settings.baseUrl + spec.path, spec.body, {
    headers: spec.body ? jsonHeaders : warmup.headers,
    tags: { phase, name: `${spec.method} ${spec.path}` },
    timeout: settings.requestTimeout,
    responseCallback: http.expectedStatuses({ min: 200, max: ACCEPT_REDIRECTS ? 399 : 299 }),
  }).then((res) => {
    const ms = res.timings.duration;
    const request = `${spec.method} ${spec.path}`;
    if (res.status === 0) return { ok: false, ms, failure: `no answer (k6 error ${res.error_code || 0}) from ${request}` };
    if (res.status >= 400) return { ok: false, ms, failure: `${res.status} from ${request}` };
    if (res.status >= 300 && !ACCEPT_REDIRECTS) return { ok: false, ms, failure: `${res.status} from ${request} (${REDIRECT_HINT})` };
    return { ok: true, ms };
  });
}

export function handleSummary(data) {
  const summary = warmup.summary(data);
  const out = { stdout: textTable(summary, `danki warm-up of ${settings.baseUrl}`) };
  if (settings.summaryPath) out[settings.summaryPath] = JSON.stringify(summary, null, 2);
  return out;
}
