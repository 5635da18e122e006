// The warm-up's summary (format version 2, parsed by the operator's K6Summary.kt) built from k6's
// handleSummary data, and its text table for the log. No k6 imports, so node can test it.
//
// The run reaches handleSummary only through metrics and checks: numbers in the gauges named below
// (see lib/danki.js), texts in check names (lib/messages.js).
import { CPU_COUNTER_NAMES, JIT_COUNTER_NAMES } from './jit.js';
import { messagesOf } from './messages.js';
import { PHASES, reportedSettings } from './settings.js';

export { PHASES };
export const FORMAT_VERSION = 2;
/** `Measured`: a run of measurement passes alone (PHASES without warmup), which has no warm-up to stop. */
export const STOP_REASONS = ['Converged', 'TargetReached', 'MaxRequests', 'Timeout', 'Aborted', 'OutOfTime', 'JitSettled',
  'Measured'];
/** Stop reasons of a run that failed: no warm pass to compare with the cold one. */
export const FAILED_STOPS = ['Aborted', 'OutOfTime'];
/** How the JIT scrapes went, as a number a Gauge can carry to handleSummary. */
export const JIT_STATES = ['off', 'ok', 'failed'];

/** Metric names shared with lib/danki.js, which records them. */
export const METRICS = {
  latency: 'danki_latency',
  requests: 'danki_requests',
  failures: 'danki_failures',
  stopReason: 'danki_stop_reason',
  firstRequest: 'danki_first_request_ms',
  evidence: {
    requests: 'danki_evidence_requests',
    blocks: 'danki_evidence_blocks',
    lastBlockP95: 'danki_evidence_last_block_p95',
    lastBlockRate: 'danki_evidence_last_block_rate',
    recentRate: 'danki_evidence_recent_rate',
    earlierRate: 'danki_evidence_earlier_rate',
    recentCpuPerRequest: 'danki_evidence_recent_cpu_per_request',
    earlierCpuPerRequest: 'danki_evidence_earlier_cpu_per_request',
    cpuCounter: 'danki_evidence_cpu_counter',
    seconds: 'danki_evidence_seconds',
    jitState: 'danki_evidence_jit_state',
    jitCounter: 'danki_evidence_jit_counter',
    jitCompileMs: 'danki_evidence_jit_compile_ms',
    jitLastShare: 'danki_evidence_jit_last_share',
    jitError: 'danki_evidence_jit_error',
    jitErrorDetail: 'danki_evidence_jit_error_detail',
  },
};

/** Whether this run takes its cold figures from its warm-up's first answers: COLD_PASS=warmup, and both sent. */
export function coldFromWarmup(s) {
  return s.coldPass === 'warmup' && s.phases.includes('cold') && s.phases.includes('warmup');
}

/**
 * Whether the warm pass is a closed one, with the warm-up's concurrency in flight: with COLD_PASS=warmup, also
 * in a run of its own (the operator's after a CPU boost is restored), so it is taken as the cold figures were.
 * A caller that sent the cold pass apart, as an open one, says COLD_PASS=open for the warm pass too.
 */
export function warmPassClosed(s) {
  return s.coldPass === 'warmup';
}

/**
 * How a pass was measured: an open pass at a rate; or, when the cold figures are the warm-up's first answers
 * with some in flight, the warm ones a closed pass with as many in flight (lib/danki.js).
 */
function protocolOf(phase, s) {
  const closed = phase === 'cold' ? coldFromWarmup(s) : warmPassClosed(s);
  if (!closed) return { source: 'open', requests: s.requests, rate: s.rate };
  return { source: phase === 'cold' ? 'warmup' : 'closed', requests: s.requests, concurrency: s.warmupConcurrency };
}

/** What one "request" is, for messages: an HTTP request of warmup.js's plan, or one flow of runner.js. */
export const REQUEST_UNIT = { noun: 'requests', failed: 'an error status, a redirect, or no answer' };

/**
 * The version-2 summary of a run.
 *
 * @param {object} data      k6's handleSummary data
 * @param {object} settings  lib/settings.js readSettings()
 * @param {object} [unit]    what a request is, for the abort message (REQUEST_UNIT by default)
 */
export function buildSummary(data, settings, unit = REQUEST_UNIT) {
  const metric = (name) => data.metrics[name];
  const gauge = (name) => (metric(name) ? metric(name).values.value : null);
  const messages = messagesOf(data);
  const phases = {};
  for (const phase of PHASES) {
    const failures = countOf(metric(`${METRICS.failures}{phase:${phase}}`));
    const requests = countOf(metric(`${METRICS.requests}{phase:${phase}}`));
    phases[phase] = {
      requests,
      failures,
      failureExample: failures > 0 ? messages.failures[phase] || null : null,
      ...percentilesOfTrend(metric(`${METRICS.latency}{phase:${phase}}`)),
    };
    if (phase !== 'warmup' && requests > 0) phases[phase].protocol = protocolOf(phase, settings);
  }
  const code = gauge(METRICS.stopReason);
  const durationMs = data.state.testRunDurationMs;
  // no stop code: k6 ended the iteration, at maxDuration (the time budget) or, sooner, on an uncaught error
  const interrupted = code === null && durationMs < settings.timeBudgetS * 1000;
  const stopReason = code === null ? (interrupted ? 'Aborted' : 'OutOfTime') : STOP_REASONS[code];
  let abortMessage;
  if (interrupted) {
    abortMessage = 'the run stopped before its end: an uncaught error ended the k6 iteration (see the k6 log)';
  } else if (FAILED_STOPS.includes(stopReason)) {
    abortMessage = messages.abort || defaultAbortMessage(stopReason, phases, settings, unit);
  }
  return {
    version: FORMAT_VERSION,
    stopReason,
    abortMessage,
    firstRequestAtMs: gauge(METRICS.firstRequest) || 0,
    durationSeconds: durationMs / 1000,
    baseUrl: settings.baseUrl,
    settings: reportedSettings(settings),
    evidence: evidenceOf(gauge, settings),
    phases,
  };
}

/** The notes a flow reported (runner.js), as carried in check names. */
export function notesOf(data) {
  return messagesOf(data).notes;
}

/** Why the warm-up stopped where it did, from the evidence gauges. */
function evidenceOf(gauge, s) {
  const g = METRICS.evidence;
  const requests = gauge(g.requests) || 0;
  const seconds = gauge(g.seconds);
  const jitState = gauge(g.jitState);
  let jit = null;
  const jitOk = s.jitMetricsUrl && JIT_STATES[jitState] === 'ok';
  const cpuMetric = jitOk ? CPU_COUNTER_NAMES[gauge(g.cpuCounter)] ?? null : null;
  if (s.jitMetricsUrl) {
    jit = {
      url: s.jitMetricsUrl,
      metric: JIT_COUNTER_NAMES[gauge(g.jitCounter)] ?? null,
      cpuMetric,
      compileMs: gauge(g.jitCompileMs),
      lastShare: gauge(g.jitLastShare),
      error: JIT_STATES[jitState] === 'failed' ? jitErrorMessage(gauge(g.jitError), gauge(g.jitErrorDetail), s) : null,
    };
  }
  return {
    // cpu: CPU per request flat and the compiler quiet; jit: throughput flat and the compiler quiet
    rule: jitOk ? (cpuMetric ? 'cpu' : 'jit') : 'throughput',
    concurrency: s.warmupConcurrency,
    requests,
    blocks: gauge(g.blocks) || 0,
    blockSize: s.blockSize,
    window: s.window,
    tolerance: s.tolerance,
    lastBlockP95: gauge(g.lastBlockP95),
    lastBlockRate: gauge(g.lastBlockRate),
    recentRate: gauge(g.recentRate),
    earlierRate: gauge(g.earlierRate),
    recentCpuPerRequestMs: cpuMetric ? gauge(g.recentCpuPerRequest) : null,
    earlierCpuPerRequestMs: cpuMetric ? gauge(g.earlierCpuPerRequest) : null,
    seconds,
    achievedRate: seconds ? requests / seconds : null,
    drainSeconds: s.drainS,
    jit,
  };
}

function jitErrorMessage(code, detail, s) {
  if (code === 0) return `no answer (k6 error ${detail}) from ${s.jitMetricsUrl}`;
  if (code === 1) return `HTTP status ${detail} from ${s.jitMetricsUrl}`;
  return `no JIT counter (${JIT_COUNTER_NAMES.join(' or ')}) at ${s.jitMetricsUrl}`;
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

function defaultAbortMessage(stopReason, phases, s, unit) {
  if (stopReason === 'OutOfTime') {
    return `the ${s.timeBudgetS}s time budget ran out before the warm pass ended ` +
      `(warm pass: ${phases.warm.requests} of ${s.requests} ${unit.noun})`;
  }
  const phase = PHASES.find((p) => phases[p].failures > 0) || 'cold';
  const { requests, failures, failureExample } = phases[phase];
  const example = failureExample ? `, e.g. ${failureExample}` : '';
  return `${phase} phase: ${failures} of ${requests} ${unit.noun} failed (${unit.failed}${example}), ` +
    `more than ${s.maxErrorRatio * 100}%`;
}

/** The summary as a table for the k6 log: stop reason, evidence, and P25..P95 per phase. */
export function textTable(s, title) {
  const fmt = (v, digits = 1) => (v === null || v === undefined ? '-' : v.toFixed(digits));
  const e = s.evidence;
  const cost = e.rule === 'cpu' ? `, CPU per request ${fmt(e.earlierCpuPerRequestMs, 2)} -> ${fmt(e.recentCpuPerRequestMs, 2)} ms` : '';
  const lines = [
    `${title}: stop reason ${s.stopReason} (${e.rule} rule, ${e.requests} warm-up requests ` +
      `in ${e.blocks} blocks of ${e.blockSize}, throughput ${fmt(e.earlierRate)} -> ${fmt(e.recentRate)}/s${cost}` +
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
