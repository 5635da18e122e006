// warmup.js: how slow is a fresh JVM pod for its first users, and how fast once warmed?
//
// One k6 process runs three phases against BASE_URL, so k6's start-up cost is paid once:
//   1. cold:    REQUESTS requests at RATE/s, open model (sent on schedule, not after the previous
//               answer): what the pod's first users would have met.
//   2. warm-up: a closed loop at the pod's capacity: WARMUP_CONCURRENCY requests in flight, the next
//               sent as soon as one answers, never faster than WARMUP_RATE/s. The answers are cut
//               into blocks of BLOCK_SIZE; once MIN_WARMUP_REQUESTS were sent, after each block:
//               - with JIT_METRICS_URL (the pod's Prometheus page with jvm_compilation_time_ms_total
//                 or jvm_compilation_time_seconds_total): stop once the JIT compiled at most
//                 JIT_QUIET_MS per block for JIT_QUIET_BLOCKS blocks in a row (JitSettled);
//               - otherwise: stop once the last STABLE_BLOCKS blocks' P95 did not beat the best block
//                 before them by more than TOLERANCE (Converged);
//               and, either way, once a block's P95 <= TARGET_P95_MS (TargetReached), at
//               MAX_WARMUP_REQUESTS (MaxRequests), or when only the warm pass's time is left (Timeout).
//   3. warm:    REQUESTS requests at RATE/s, as in the cold pass.
// A phase stops early (stop reason Aborted) once more than MAX_ERROR_RATIO of its answers failed: status
// 400 or above (a wrong path must not "warm" on 404s) or no answer. A run cut off by its own time budget
// before the warm pass ended has stop reason OutOfTime. Every request carries X-Danki-Warmup: 1 and a
// `phase` tag. lib/convergence.js holds the stop rules, lib/senders.js the two ways of sending.
//
// Env vars (all optional; lib/config.js documents BASE_URL, RATE, SUMMARY_PATH, HEADERS):
//   REQUESTS             requests per cold and warm pass (default 100)
//   WARMUP_CONCURRENCY   warm-up requests in flight (default 4)
//   WARMUP_RATE          ceiling on warm-up requests/s (default 1000)
//   MIN_WARMUP_REQUESTS  no stop rule is asked before this many warm-up requests (default 1000)
//   MAX_WARMUP_REQUESTS  cap on warm-up requests (default 10000)
//   TARGET_P95_MS        stop warming once a block's P95 is at or under this (default off)
//   JIT_METRICS_URL      the pod's metrics page, e.g. http://198.18.0.12:8080/metrics (default off)
//   TIME_BUDGET_S        the whole run must end within this many seconds (default 300)
//   PATHS                requests to send round-robin: a JSON array of {method, path, body}, or
//                        'METHOD /path [JSON body]' entries separated by ';' or newlines (default 'GET /')
//   MAX_ERROR_RATIO      share of failed answers that aborts a phase (default 0.05)
//   BLOCK_SIZE (default 200), TOLERANCE (default 0.05), STABLE_BLOCKS (default 3), MIN_DELTA_MS
//   (improvements below it never count; default 1), JIT_QUIET_MS (default 20), JIT_QUIET_BLOCKS
//   (default 2): the stop rules' settings, see above;
//   MAX_IN_FLIGHT        requests outstanding at once in a pass (default 256),
//   REQUEST_TIMEOUT      per-request timeout (default 10s)
// SUMMARY_PATH receives JSON: per phase requests, failures, p25/p50/p75/p90/p95 in ms and the first failed
// request (failureExample, e.g. "404 from GET /exam/1"); stopReason and, when it is Aborted or OutOfTime,
// abortMessage; `evidence`: why the warm-up stopped (requests, blocks, last block P95, JIT time).
//
// Run: k6 run --no-usage-report -e BASE_URL=http://127.0.0.1:8080 -e SUMMARY_PATH=/tmp/s.json k6-scripts/warmup.js
import http from 'k6/http';
import { setTimeout } from 'k6/timers';
import { Counter, Gauge, Trend } from 'k6/metrics';
import { baseUrl, rate, summaryPath, extraHeaders, positiveNumber, reportedPercentiles } from './lib/config.js';
import { parsePaths } from './lib/paths.js';
import { closedLoop, openPass } from './lib/senders.js';
import { compileTimeMs, JIT_COUNTER_NAMES } from './lib/jit.js';

const REQUESTS = Math.round(positiveNumber('REQUESTS', 100));
const WARMUP_CONCURRENCY = Math.round(positiveNumber('WARMUP_CONCURRENCY', 4));
const WARMUP_RATE = positiveNumber('WARMUP_RATE', 1000);
const MAX_WARMUP_REQUESTS = Math.round(positiveNumber('MAX_WARMUP_REQUESTS', 10000));
const MIN_WARMUP_REQUESTS = Math.min(MAX_WARMUP_REQUESTS, Math.round(nonNegative('MIN_WARMUP_REQUESTS', 1000)));
const TARGET_P95_MS = __ENV.TARGET_P95_MS ? positiveNumber('TARGET_P95_MS', 0) : 0;
const JIT_METRICS_URL = __ENV.JIT_METRICS_URL || '';
const TIME_BUDGET_S = positiveNumber('TIME_BUDGET_S', 300);
const MAX_ERROR_RATIO = ratio('MAX_ERROR_RATIO', 0.05);
// 200 answers: the P95 is then the 10th slowest of 200, steady from block to block on a settled pod,
// where a 1 s window of 100 answers moved by more than 10 % on noise alone (bench/results/stop-rule.md)
const BLOCK_SIZE = Math.round(positiveNumber('BLOCK_SIZE', 200));
const TOLERANCE = positiveNumber('TOLERANCE', 0.05);
const STABLE_BLOCKS = Math.round(positiveNumber('STABLE_BLOCKS', 3));
const MIN_DELTA_MS = __ENV.MIN_DELTA_MS ? positiveNumber('MIN_DELTA_MS', 1) : 1;
const JIT_QUIET_MS = nonNegative('JIT_QUIET_MS', 20);
const JIT_QUIET_BLOCKS = Math.round(positiveNumber('JIT_QUIET_BLOCKS', 2));
const MAX_IN_FLIGHT = Math.round(positiveNumber('MAX_IN_FLIGHT', 256));
const REQUEST_TIMEOUT = __ENV.REQUEST_TIMEOUT || '10s';
const PATHS = parsePaths(__ENV.PATHS || 'GET /');
const PHASES = ['cold', 'warmup', 'warm'];
const STOP_REASONS = ['Converged', 'TargetReached', 'MaxRequests', 'Timeout', 'Aborted', 'OutOfTime', 'JitSettled'];
/** Stop reasons of a run that failed: no warm pass to compare with the cold one. */
const FAILED_STOPS = ['Aborted', 'OutOfTime'];
/** How the JIT scrapes went, as a number a Gauge can carry to handleSummary. */
const JIT_STATES = ['off', 'ok', 'failed'];

const latency = new Trend('danki_latency', true);
const sent = new Counter('danki_requests');
const failed = new Counter('danki_failures');
const stopCode = new Gauge('danki_stop_reason');
const firstRequestAt = new Gauge('danki_first_request_ms');
// The warm-up's evidence, as numbers: Gauges are how values reach handleSummary, which runs apart.
const evidence = {
  blocks: new Gauge('danki_evidence_blocks'),
  lastBlockP95: new Gauge('danki_evidence_last_block_p95'),
  earlierBestP95: new Gauge('danki_evidence_earlier_best_p95'),
  seconds: new Gauge('danki_evidence_seconds'),
  jitState: new Gauge('danki_evidence_jit_state'),
  jitCounter: new Gauge('danki_evidence_jit_counter'),
  jitCompileMs: new Gauge('danki_evidence_jit_compile_ms'),
  jitLastBlockMs: new Gauge('danki_evidence_jit_last_block_ms'),
  jitError: new Gauge('danki_evidence_jit_error'),
  jitErrorDetail: new Gauge('danki_evidence_jit_error_detail'),
};
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
  // the warm-up only times answers; reading thousands of bodies into JS would cost k6 CPU for nothing
  discardResponseBodies: true,
  summaryTrendStats: [...reportedPercentiles, 'count', 'max'],
  setupTimeout: '5s',
  teardownTimeout: '5s',
};

const headers = Object.assign({}, extraHeaders, { 'X-Danki-Warmup': '1' });
const jsonHeaders = Object.assign({ 'Content-Type': 'application/json' }, headers);
const clock = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
};

export default async function () {
  const started = Date.now();
  const warmPassMs = (REQUESTS / rate) * 1000 + 2000;
  const deadline = started + TIME_BUDGET_S * 1000;
  let reason = await pass('cold', deadline);
  if (!reason) reason = await warmup(deadline - warmPassMs);
  if (!FAILED_STOPS.includes(reason)) {
    reason = (await pass('warm', deadline)) || reason;
  }
  stopCode.add(STOP_REASONS.indexOf(reason));
}

/** One measured pass; returns 'Aborted' (too many failed), 'OutOfTime' (cut short) or null. */
async function pass(phase, deadline) {
  const result = await openPass({ ...clock, send: sender(phase) }, {
    count: REQUESTS, perSecond: rate, deadline, maxInFlight: MAX_IN_FLIGHT, maxErrorRatio: MAX_ERROR_RATIO,
  });
  if (result.aborted) return 'Aborted';
  return result.sent < REQUESTS ? 'OutOfTime' : null;
}

/** The warm-up phase: the closed loop until a stop rule fires; records its evidence. */
async function warmup(deadline) {
  const result = await closedLoop({ ...clock, send: sender('warmup'), scrapeJit: JIT_METRICS_URL ? scrapeJit : null }, {
    concurrency: WARMUP_CONCURRENCY, ceilingRate: WARMUP_RATE, minRequests: MIN_WARMUP_REQUESTS,
    maxRequests: MAX_WARMUP_REQUESTS, blockSize: BLOCK_SIZE, tolerance: TOLERANCE, stableBlocks: STABLE_BLOCKS,
    minDeltaMs: MIN_DELTA_MS, targetP95: TARGET_P95_MS, jitQuietMs: JIT_QUIET_MS, jitQuietBlocks: JIT_QUIET_BLOCKS,
    maxErrorRatio: MAX_ERROR_RATIO, deadline,
  });
  evidence.blocks.add(result.blocks.length);
  evidence.seconds.add(result.seconds);
  if (result.lastBlockP95 !== null) evidence.lastBlockP95.add(result.lastBlockP95);
  if (result.earlierBestP95 !== null) evidence.earlierBestP95.add(result.earlierBestP95);
  if (result.jit) recordJit(result.jit);
  return result.stopReason;
}

function recordJit(jit) {
  evidence.jitState.add(JIT_STATES.indexOf(jit.error ? 'failed' : 'ok'));
  if (jit.metric) evidence.jitCounter.add(JIT_COUNTER_NAMES.indexOf(jit.metric));
  if (jit.compileMs !== null) evidence.jitCompileMs.add(jit.compileMs);
  if (jit.lastBlockMs !== null) evidence.jitLastBlockMs.add(jit.lastBlockMs);
  if (jit.error) {
    evidence.jitError.add(jit.error.code);
    evidence.jitErrorDetail.add(jit.error.detail);
  }
}

/** Sends request i of `phase` (round-robin over PATHS) and resolves to {ok, ms}. */
function sender(phase) {
  return (i) => {
    const index = i % PATHS.length;
    const spec = PATHS[index];
    if (phase === 'cold' && i === 0) firstRequestAt.add(Date.now());
    sent.add(1, { phase });
    return http.asyncRequest(spec.method, baseUrl + spec.path, spec.body, {
      headers: spec.body ? jsonHeaders : headers,
      tags: { phase, name: `${spec.method} ${spec.path}` },
      timeout: REQUEST_TIMEOUT,
      responseCallback: http.expectedStatuses({ min: 200, max: 399 }),
    }).then((res) => {
      if (res.status === 0 || res.status >= 400) {
        failed.add(1, { phase });
        noteFirstFailure(phase, res, index);
        return { ok: false, ms: res.timings.duration };
      }
      latency.add(res.timings.duration, { phase });
      return { ok: true, ms: res.timings.duration };
    });
  };
}

/**
 * Reads the pod's JIT counter; resolves to {ms, metric} or {error: {code, detail}}: code 0 no answer
 * (detail: k6's error code), 1 a status other than 200 (detail: the status), 2 no JIT counter on the page.
 */
function scrapeJit() {
  return http.asyncRequest('GET', JIT_METRICS_URL, null, {
    headers: Object.assign({ Accept: 'text/plain;version=0.0.4;q=1,*/*;q=0.1' }, headers),
    tags: { phase: 'jit', name: 'jit metrics' },
    responseType: 'text',
    timeout: '5s',
    redirects: 0,
    responseCallback: http.expectedStatuses(200),
  }).then((res) => {
    if (res.status === 0) return { error: { code: 0, detail: res.error_code } };
    if (res.status !== 200) return { error: { code: 1, detail: res.status } };
    return compileTimeMs(res.body) || { error: { code: 2, detail: 0 } };
  });
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
  const gauge = (name) => (metric(name) ? metric(name).values.value : null);
  const phases = {};
  for (const phase of PHASES) {
    phases[phase] = {
      requests: countOf(metric(`danki_requests{phase:${phase}}`)),
      failures: countOf(metric(`danki_failures{phase:${phase}}`)),
      failureExample: failureExample(metric, phase),
      ...percentilesOfTrend(metric(`danki_latency{phase:${phase}}`)),
    };
  }
  const code = gauge('danki_stop_reason');
  // no stop code: k6 ended the iteration at maxDuration, the run's own time budget
  const stopReason = code === null ? 'OutOfTime' : STOP_REASONS[code];
  const summary = {
    version: 2,
    stopReason,
    abortMessage: FAILED_STOPS.includes(stopReason) ? abortMessage(stopReason, phases) : undefined,
    firstRequestAtMs: gauge('danki_first_request_ms') || 0,
    durationSeconds: data.state.testRunDurationMs / 1000,
    baseUrl,
    settings: {
      rate, requests: REQUESTS, warmupConcurrency: WARMUP_CONCURRENCY, warmupRate: WARMUP_RATE,
      minWarmupRequests: MIN_WARMUP_REQUESTS, maxWarmupRequests: MAX_WARMUP_REQUESTS, targetP95Ms: TARGET_P95_MS,
      blockSize: BLOCK_SIZE, tolerance: TOLERANCE, stableBlocks: STABLE_BLOCKS, minDeltaMs: MIN_DELTA_MS,
      jitMetricsUrl: JIT_METRICS_URL || null, jitQuietMs: JIT_QUIET_MS, jitQuietBlocks: JIT_QUIET_BLOCKS,
    },
    evidence: evidenceOf(gauge, phases.warmup.requests),
    phases,
  };
  const out = { stdout: textTable(summary) };
  if (summaryPath) out[summaryPath] = JSON.stringify(summary, null, 2);
  return out;
}

/** Why the warm-up stopped where it did, from the evidence gauges. */
function evidenceOf(gauge, requests) {
  const seconds = gauge('danki_evidence_seconds');
  const jitState = gauge('danki_evidence_jit_state');
  let jit = null;
  if (JIT_METRICS_URL) {
    const errorCode = gauge('danki_evidence_jit_error');
    const errorDetail = gauge('danki_evidence_jit_error_detail');
    jit = {
      url: JIT_METRICS_URL,
      metric: JIT_COUNTER_NAMES[gauge('danki_evidence_jit_counter')] ?? null,
      compileMs: gauge('danki_evidence_jit_compile_ms'),
      lastBlockMs: gauge('danki_evidence_jit_last_block_ms'),
      error: JIT_STATES[jitState] === 'failed' ? jitErrorMessage(errorCode, errorDetail) : null,
    };
  }
  return {
    rule: JIT_METRICS_URL && JIT_STATES[jitState] === 'ok' ? 'jit' : 'latency',
    concurrency: WARMUP_CONCURRENCY,
    requests,
    blocks: gauge('danki_evidence_blocks') || 0,
    blockSize: BLOCK_SIZE,
    lastBlockP95: gauge('danki_evidence_last_block_p95'),
    earlierBestP95: gauge('danki_evidence_earlier_best_p95'),
    seconds,
    achievedRate: seconds ? requests / seconds : null,
    jit,
  };
}

function jitErrorMessage(code, detail) {
  if (code === 0) return `no answer (k6 error ${detail}) from ${JIT_METRICS_URL}`;
  if (code === 1) return `HTTP status ${detail} from ${JIT_METRICS_URL}`;
  return `no JIT counter (${JIT_COUNTER_NAMES.join(' or ')}) at ${JIT_METRICS_URL}`;
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
  const e = s.evidence;
  const lines = [
    `danki warm-up of ${baseUrl}: stop reason ${s.stopReason} (${e.rule} rule, ${e.requests} warm-up requests ` +
      `in ${e.blocks} blocks of ${e.blockSize}, last block p95 ${fmt(e.lastBlockP95)} ms` +
      (e.jit ? `, JIT ${fmt(e.jit.compileMs)} ms${e.jit.error ? `; ${e.jit.error}` : ''}` : '') + ')',
    'phase   requests failures   p25    p50    p75    p90    p95 (ms)',
  ];
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

function nonNegative(name, fallback) {
  const raw = __ENV[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}=${raw}: expected a number of 0 or more`);
  return value;
}
