// warmup.js: how slow is a fresh JVM pod for its first users, and how fast once warmed?
//
// One k6 process runs three phases against BASE_URL, so k6's start-up cost is paid once:
//   1. cold:   REQUESTS requests at RATE/s (open model: sent on schedule, not after the previous answer)
//   2. warm-up: windows of requests at WARMUP_RATE/s; after each window the rolling P95 (over the last
//              ROLLING_WINDOWS windows) is compared with the previous one. Stops when it moved less than
//              TOLERANCE for STABLE_WINDOWS windows in a row (Converged), or the rolling P95 <= TARGET_P95_MS
//              (TargetReached), or MAX_WARMUP_REQUESTS were sent (MaxRequests), or the time budget leaves
//              just enough for the warm pass (Timeout).
//   3. warm:   REQUESTS requests at RATE/s, as in the cold pass.
// A phase stops early (stop reason Aborted) once more than MAX_ERROR_RATIO of its requests failed: an answer
// with status 400 or above (a wrong path must not "warm" on 404s) or no answer at all. A run cut off by its own
// time budget before the warm pass ended has stop reason OutOfTime. Every request carries X-Danki-Warmup: 1 and
// a `phase` tag.
//
// Env vars (all optional; lib/config.js documents BASE_URL, RATE, SUMMARY_PATH, HEADERS):
//   REQUESTS             requests per cold and warm pass (default 100)
//   WARMUP_RATE          requests/s during warm-up (default 100)
//   MAX_WARMUP_REQUESTS  cap on warm-up requests (default 5000)
//   TARGET_P95_MS        stop warming once a window's P95 is at or under this (default off)
//   TIME_BUDGET_S        the whole run must end within this many seconds (default 300)
//   PATHS                requests to send round-robin: a JSON array of {method, path, body}, or
//                        'METHOD /path [JSON body]' entries separated by ';' or newlines (default 'GET /')
//   MAX_ERROR_RATIO      share of failed answers that aborts a phase (default 0.05)
//   WINDOW_S             warm-up window length in seconds (default 1), TOLERANCE (default 0.05),
//   STABLE_WINDOWS       (default 3), MIN_DELTA_MS (P95 changes below it never count as moving; default 1),
//   ROLLING_WINDOWS      the P95 compared after each window is over the answers of this many latest windows (default 3),
//   MAX_IN_FLIGHT        requests outstanding at once (default 256),
//   REQUEST_TIMEOUT      per-request timeout (default 10s)
// SUMMARY_PATH receives JSON: per phase requests, failures, p25/p50/p75/p90/p95 in ms and the first failed
// request (failureExample, e.g. "404 from GET /exam/1"); stopReason and, when it is Aborted or OutOfTime,
// abortMessage.
//
// Run: k6 run --no-usage-report -e BASE_URL=http://127.0.0.1:8080 -e SUMMARY_PATH=/tmp/s.json k6-scripts/warmup.js
import http from 'k6/http';
import { setTimeout } from 'k6/timers';
import { Counter, Gauge, Trend } from 'k6/metrics';
import { baseUrl, rate, summaryPath, extraHeaders, positiveNumber, reportedPercentiles } from './lib/config.js';
import { warmupStopReason, percentile } from './lib/convergence.js';

const REQUESTS = Math.round(positiveNumber('REQUESTS', 100));
const WARMUP_RATE = positiveNumber('WARMUP_RATE', 100);
const MAX_WARMUP_REQUESTS = Math.round(positiveNumber('MAX_WARMUP_REQUESTS', 5000));
const TARGET_P95_MS = __ENV.TARGET_P95_MS ? positiveNumber('TARGET_P95_MS', 0) : 0;
const TIME_BUDGET_S = positiveNumber('TIME_BUDGET_S', 300);
const MAX_ERROR_RATIO = ratio('MAX_ERROR_RATIO', 0.05);
const WINDOW_S = positiveNumber('WINDOW_S', 1);
const TOLERANCE = positiveNumber('TOLERANCE', 0.05);
const STABLE_WINDOWS = Math.round(positiveNumber('STABLE_WINDOWS', 3));
// 3, not 1: a lone 1 s window's P95 of 100 answers jumps by more than 10 % on noise alone, so the
// warm-up often ran on to its cap. Over 3 windows the P95 is steady enough to ask for 5 % (TOLERANCE),
// which stopped fewer runs before the pod was warm. bench/results/stop-rule.md measured the choice.
const ROLLING_WINDOWS = Math.round(positiveNumber('ROLLING_WINDOWS', 3));
const MIN_DELTA_MS = __ENV.MIN_DELTA_MS ? positiveNumber('MIN_DELTA_MS', 1) : 1;
const MAX_IN_FLIGHT = Math.round(positiveNumber('MAX_IN_FLIGHT', 256));
const REQUEST_TIMEOUT = __ENV.REQUEST_TIMEOUT || '10s';
const PATHS = parsePaths(__ENV.PATHS || 'GET /');
/** Answers needed before the error ratio may abort a phase: one unlucky first request must not. */
const MIN_ANSWERS_TO_ABORT = 20;
const PHASES = ['cold', 'warmup', 'warm'];
const STOP_REASONS = ['Converged', 'TargetReached', 'MaxRequests', 'Timeout', 'Aborted', 'OutOfTime'];
/** Stop reasons of a run that failed: no warm pass to compare with the cold one. */
const FAILED_STOPS = ['Aborted', 'OutOfTime'];

const latency = new Trend('danki_latency', true);
const sent = new Counter('danki_requests');
const failed = new Counter('danki_failures');
const stopCode = new Gauge('danki_stop_reason');
const firstRequestAt = new Gauge('danki_first_request_ms');
const windows = new Gauge('danki_warmup_windows');
// The first failed request of each phase, as numbers a Gauge can carry to handleSummary: its HTTP status (or
// k6's error code when there was no answer) and its index in PATHS.
const failureStatus = new Gauge('danki_failure_status');
const failureRequest = new Gauge('danki_failure_request');
const firstFailureSeen = {};

// A sub-metric reaches handleSummary only when a threshold names it; these thresholds always pass.
const thresholds = {};
for (const phase of PHASES) {
  thresholds[`danki_latency{phase:${phase}}`] = ['max>=0'];
  thresholds[`danki_requests{phase:${phase}}`] = ['count>=0'];
  thresholds[`danki_failures{phase:${phase}}`] = ['count>=0'];
  thresholds[`danki_failure_status{phase:${phase}}`] = ['value>=0'];
  thresholds[`danki_failure_request{phase:${phase}}`] = ['value>=0'];
}

export const options = {
  scenarios: {
    warmup: {
      executor: 'shared-iterations',
      vus: 1,
      iterations: 1,
      maxDuration: `${Math.ceil(TIME_BUDGET_S)}s`,
      gracefulStop: '1s',
    },
  },
  thresholds,
  summaryTrendStats: [...reportedPercentiles, 'count', 'max'],
  setupTimeout: '5s',
  teardownTimeout: '5s',
};

const headers = Object.assign({}, extraHeaders, { 'X-Danki-Warmup': '1' });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export default async function () {
  const started = Date.now();
  const warmPassMs = (REQUESTS / rate) * 1000 + 2000;
  const deadline = started + TIME_BUDGET_S * 1000;
  let reason = await pass('cold', REQUESTS, rate, deadline);
  if (!reason) reason = await warmup(deadline - warmPassMs);
  if (!FAILED_STOPS.includes(reason)) {
    reason = (await pass('warm', REQUESTS, rate, deadline)) || reason;
  }
  stopCode.add(STOP_REASONS.indexOf(reason));
}

/** Sends `count` requests at `perSecond`; returns 'Aborted' (too many failed), 'OutOfTime' (cut short) or null. */
async function pass(phase, count, perSecond, deadline) {
  const result = await fire(phase, count, perSecond, deadline);
  if (result.aborted) return 'Aborted';
  return result.sent < count ? 'OutOfTime' : null;
}

/** The warm-up phase: windows until the stop rule fires. */
async function warmup(deadline) {
  const perWindow = Math.max(1, Math.round(WARMUP_RATE * WINDOW_S));
  const p95s = [];
  const recent = [];
  let total = 0;
  while (true) {
    if (total >= MAX_WARMUP_REQUESTS) return 'MaxRequests';
    const count = Math.min(perWindow, MAX_WARMUP_REQUESTS - total);
    if (Date.now() + (count / WARMUP_RATE) * 1000 > deadline) return 'Timeout';
    const result = await fire('warmup', count, WARMUP_RATE, deadline);
    total += result.sent;
    if (result.aborted) return 'Aborted';
    // the rolling P95: over the answers of the last ROLLING_WINDOWS windows, so one noisy window moves it less
    recent.push(result.durations);
    if (recent.length > ROLLING_WINDOWS) recent.shift();
    p95s.push(percentile(recent.flat().sort((a, b) => a - b), 95) ?? 0);
    windows.add(p95s.length);
    const stop = warmupStopReason(p95s, {
      tolerance: TOLERANCE, stableWindows: STABLE_WINDOWS, minDeltaMs: MIN_DELTA_MS, targetP95: TARGET_P95_MS,
    });
    if (stop) return stop;
  }
}

/** Open-model sender: request i leaves at start + i/perSecond whether or not earlier ones answered. */
async function fire(phase, count, perSecond, deadline) {
  const start = Date.now();
  const interval = 1000 / perSecond;
  const inFlight = new Set();
  const durations = [];
  let answered = 0;
  let failures = 0;
  let sentCount = 0;
  for (let i = 0; i < count; i++) {
    if (answered >= MIN_ANSWERS_TO_ABORT && failures / answered > MAX_ERROR_RATIO) break;
    const wait = start + i * interval - Date.now();
    if (wait > 0) await sleep(wait);
    if (Date.now() >= deadline) break;
    while (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
    const spec = PATHS[i % PATHS.length];
    if (firstRequestAt !== null && phase === 'cold' && i === 0) firstRequestAt.add(Date.now());
    sentCount++;
    sent.add(1, { phase });
    const request = http.asyncRequest(spec.method, baseUrl + spec.path, spec.body, {
      headers: spec.body ? Object.assign({ 'Content-Type': 'application/json' }, headers) : headers,
      tags: { phase, name: `${spec.method} ${spec.path}` },
      timeout: REQUEST_TIMEOUT,
      responseCallback: http.expectedStatuses({ min: 200, max: 399 }),
    }).then((res) => {
      answered++;
      if (res.status === 0 || res.status >= 400) {
        failures++;
        failed.add(1, { phase });
        noteFirstFailure(phase, res, i % PATHS.length);
      } else {
        durations.push(res.timings.duration);
        latency.add(res.timings.duration, { phase });
      }
    }).finally(() => inFlight.delete(request));
    inFlight.add(request);
  }
  await Promise.all([...inFlight]);
  const aborted = answered >= Math.min(MIN_ANSWERS_TO_ABORT, sentCount) && answered > 0 && failures / answered > MAX_ERROR_RATIO;
  return { sent: sentCount, durations, aborted };
}

/** Keeps the first failed request of a phase for the summary: its status (or k6 error code) and request. */
function noteFirstFailure(phase, res, requestIndex) {
  if (firstFailureSeen[phase]) return;
  firstFailureSeen[phase] = true;
  failureStatus.add(res.status === 0 ? res.error_code || 0 : res.status, { phase });
  failureRequest.add(requestIndex, { phase });
}

export function handleSummary(data) {
  const metric = (name) => data.metrics[name];
  const phases = {};
  for (const phase of PHASES) {
    const p = percentilesOfTrend(metric(`danki_latency{phase:${phase}}`));
    phases[phase] = {
      requests: countOf(metric(`danki_requests{phase:${phase}}`)),
      failures: countOf(metric(`danki_failures{phase:${phase}}`)),
      failureExample: failureExample(metric, phase),
      ...p,
    };
  }
  const code = metric('danki_stop_reason');
  // no stop code: k6 ended the iteration at maxDuration, the run's own time budget
  const stopReason = code ? STOP_REASONS[code.values.value] : 'OutOfTime';
  const summary = {
    version: 1,
    stopReason,
    abortMessage: FAILED_STOPS.includes(stopReason) ? abortMessage(stopReason, phases) : undefined,
    firstRequestAtMs: metric('danki_first_request_ms') ? metric('danki_first_request_ms').values.value : 0,
    durationSeconds: data.state.testRunDurationMs / 1000,
    warmupWindows: metric('danki_warmup_windows') ? metric('danki_warmup_windows').values.value : 0,
    baseUrl,
    settings: { rate, requests: REQUESTS, warmupRate: WARMUP_RATE, maxWarmupRequests: MAX_WARMUP_REQUESTS,
      targetP95Ms: TARGET_P95_MS, tolerance: TOLERANCE, stableWindows: STABLE_WINDOWS, minDeltaMs: MIN_DELTA_MS,
      windowSeconds: WINDOW_S, rollingWindows: ROLLING_WINDOWS },
    phases,
  };
  const out = { stdout: textTable(summary) };
  if (summaryPath) out[summaryPath] = JSON.stringify(summary, null, 2);
  return out;
}

function percentilesOfTrend(trend) {
  const values = (trend && trend.values) || {};
  if (!values.count) return { p25: null, p50: null, p75: null, p90: null, p95: null };
  return { p25: values['p(25)'] ?? null, p50: values['p(50)'] ?? null, p75: values['p(75)'] ?? null,
    p90: values['p(90)'] ?? null, p95: values['p(95)'] ?? null };
}

function countOf(counter) {
  return counter && counter.values ? counter.values.count : 0;
}

function abortMessage(stopReason, phases) {
  if (stopReason === 'OutOfTime') {
    return `the ${TIME_BUDGET_S}s time budget ran out before the warm pass ended ` +
      `(warm pass: ${phases.warm.requests} of ${REQUESTS} requests)`;
  }
  const phase = PHASES.find((p) => phases[p].failures > 0) || 'cold';
  const { requests, failures, failureExample } = phases[phase];
  const example = failureExample ? `, e.g. ${failureExample}` : '';
  return `${phase} phase: ${failures} of ${requests} requests failed (status 400 or above, or no answer${example}), ` +
    `more than ${MAX_ERROR_RATIO * 100}%`;
}

/** "404 from GET /exam/1", or "no answer (k6 error 1212) from GET /": the phase's first failed request. */
function failureExample(metric, phase) {
  const status = metric(`danki_failure_status{phase:${phase}}`);
  const request = metric(`danki_failure_request{phase:${phase}}`);
  if (!countOf(metric(`danki_failures{phase:${phase}}`)) || !status || !request) return null;
  const spec = PATHS[request.values.value] || PATHS[0];
  const code = status.values.value;
  const what = code >= 100 && code < 600 ? `${code}` : `no answer (k6 error ${code})`;
  return `${what} from ${spec.method} ${spec.path}`;
}

function textTable(s) {
  const fmt = (v) => (v === null || v === undefined ? '-' : v.toFixed(1));
  const lines = [`danki warm-up of ${baseUrl}: stop reason ${s.stopReason}`, 'phase   requests failures   p25    p50    p75    p90    p95 (ms)'];
  for (const phase of PHASES) {
    const p = s.phases[phase];
    lines.push(`${phase.padEnd(8)}${String(p.requests).padStart(8)}${String(p.failures).padStart(9)} ` +
      [p.p25, p.p50, p.p75, p.p90, p.p95].map((v) => fmt(v).padStart(6)).join(' '));
  }
  return lines.join('\n') + '\n';
}

function ratio(name, fallback) {
  const raw = __ENV[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new Error(`${name}=${raw}: expected a number from 0 to 1`);
  return value;
}

function parsePaths(raw) {
  const text = raw.trim();
  let entries;
  if (text.startsWith('[')) {
    try {
      entries = JSON.parse(text);
    } catch (e) {
      throw new Error(`PATHS=${raw}: not valid JSON (${e})`);
    }
    if (!Array.isArray(entries) || entries.length === 0) throw new Error(`PATHS=${raw}: expected a non-empty array`);
  } else {
    entries = text.split(text.includes('\n') ? '\n' : ';').map((e) => e.trim()).filter((e) => e).map((e) => {
      const m = e.match(/^(\S+)\s+(\S+)(?:\s+(.+))?$/);
      if (!m) throw new Error(`PATHS entry '${e}': expected 'METHOD /path [JSON body]'`);
      return { method: m[1], path: m[2], body: m[3] };
    });
  }
  return entries.map((e) => {
    if (!e || typeof e.method !== 'string' || typeof e.path !== 'string' || !e.path.startsWith('/')) {
      throw new Error(`PATHS entry ${JSON.stringify(e)}: expected {method, path starting with /, body?}`);
    }
    return { method: e.method.toUpperCase(), path: e.path, body: e.body === null || e.body === undefined ? null : String(e.body) };
  });
}
