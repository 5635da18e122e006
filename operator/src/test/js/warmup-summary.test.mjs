// Unit tests of the summary (format version 2) built in k6-scripts/lib/warmup-summary.js from k6's handleSummary
// data (run: make test-unit-operator-js). The operator's K6SummaryParserTest reads real recorded runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messageName } from '../../../../k6-scripts/lib/messages.js';
import { readSettings } from '../../../../k6-scripts/lib/settings.js';
import { buildSummary, STOP_REASONS, textTable } from '../../../../k6-scripts/lib/warmup-summary.js';

const settings = readSettings({ BASE_URL: 'http://198.18.0.12:8080', REQUESTS: '100', TIME_BUDGET_S: '60' });

/** handleSummary data as k6 hands it over: metrics by name (sub-metrics with their tag), checks, run time. */
function k6Data({ phases = {}, stop, durationMs = 20000, gauges = {}, checks = [] }) {
  const metrics = {};
  for (const [phase, p] of Object.entries(phases)) {
    metrics[`danki_requests{phase:${phase}}`] = { values: { count: p.requests } };
    metrics[`danki_failures{phase:${phase}}`] = { values: { count: p.failures || 0 } };
    const ok = p.requests - (p.failures || 0);
    metrics[`danki_latency{phase:${phase}}`] = { values: ok > 0
      ? { 'p(25)': p.p95 / 4, 'p(50)': p.p95 / 3, 'p(75)': p.p95 / 2, 'p(90)': p.p95 * 0.9, 'p(95)': p.p95, count: ok, max: p.p95 * 2 }
      : { count: 0 } };
  }
  if (stop !== undefined) metrics.danki_stop_reason = { values: { value: STOP_REASONS.indexOf(stop) } };
  for (const [name, value] of Object.entries(gauges)) metrics[name] = { values: { value } };
  return { metrics, state: { testRunDurationMs: durationMs }, root_group: { checks: checks.map((name) => ({ name })) } };
}

const converged = {
  phases: { cold: { requests: 100, p95: 300 }, warmup: { requests: 1800, p95: 20 }, warm: { requests: 100, p95: 8 } },
  stop: 'Converged',
  gauges: { danki_first_request_ms: 1795427173871, danki_evidence_requests: 1800, danki_evidence_blocks: 9,
    danki_evidence_seconds: 6, danki_evidence_last_block_p95: 7.5, danki_evidence_last_block_rate: 310,
    danki_evidence_recent_rate: 305, danki_evidence_earlier_rate: 290 },
};

test('a converged run: fields in warmup.js\'s order, percentiles per phase, evidence', () => {
  const s = buildSummary(k6Data(converged), settings);
  assert.deepEqual(Object.keys(s), ['version', 'stopReason', 'abortMessage', 'firstRequestAtMs', 'durationSeconds',
    'baseUrl', 'settings', 'evidence', 'phases']);
  assert.equal(s.version, 2);
  assert.equal(s.stopReason, 'Converged');
  assert.equal(s.abortMessage, undefined);
  assert.equal(s.phases.cold.p95, 300);
  assert.equal(s.phases.warm.failureExample, null);
  assert.deepEqual(Object.keys(s.phases.cold), ['requests', 'failures', 'failureExample', 'p25', 'p50', 'p75', 'p90', 'p95',
    'protocol']);
  // by default the cold figures are the warm-up's first answers, the warm pass a closed one of its own alike
  assert.deepEqual(s.phases.cold.protocol, { source: 'warmup', requests: 100, concurrency: 4 });
  assert.deepEqual(s.phases.warm.protocol, { source: 'closed', requests: 100, concurrency: 4 });
  assert.equal(s.phases.warmup.protocol, undefined);
  assert.equal(s.evidence.requests, 1800);
  assert.equal(s.evidence.achievedRate, 300);
  assert.equal(s.evidence.rule, 'throughput');
  assert.deepEqual([s.evidence.earlierRate, s.evidence.recentRate, s.evidence.lastBlockRate], [290, 305, 310]);
  assert.deepEqual([s.evidence.window, s.evidence.tolerance, s.evidence.drainSeconds], [3, 0.1, 1]);
  assert.equal(s.evidence.jit, null);
  assert.match(textTable(s, 'danki warm-up of x'),
    /^danki warm-up of x: stop reason Converged \(throughput rule, 1800 warm-up requests in 9 blocks of 200, throughput 290.0 -> 305.0\/s\)/);
});

test('an open cold pass, one of a run without the warm-up, and a warm pass of its own say so', () => {
  const open = buildSummary(k6Data(converged), readSettings({ COLD_PASS: 'open' }));
  assert.deepEqual(open.phases.cold.protocol, { source: 'open', requests: 100, rate: 20 });
  assert.deepEqual(open.phases.warm.protocol, { source: 'open', requests: 100, rate: 20 });
  // a warm pass of its own is taken as the cold figures were: the operator says COLD_PASS=open where it sent
  // the cold pass apart (a boost raised after it), and leaves the plan's warmup where the cold figures came
  // from the warm-up (a boost from admission, restored before the warm pass)
  const warmData = k6Data({ phases: { warm: { requests: 100, p95: 30 } }, stop: 'Measured' });
  const warmAfterOpen = buildSummary(warmData, readSettings({ PHASES: 'warm', COLD_PASS: 'open' }));
  assert.deepEqual(warmAfterOpen.phases.warm.protocol, { source: 'open', requests: 100, rate: 20 });
  const warmAfterWarmup = buildSummary(warmData, readSettings({ PHASES: 'warm' }));
  assert.deepEqual(warmAfterWarmup.phases.warm.protocol, { source: 'closed', requests: 100, concurrency: 4 });
  const coldWithWarmup = buildSummary(k6Data(converged), readSettings({ PHASES: 'cold,warmup' }));
  assert.deepEqual(coldWithWarmup.phases.cold.protocol, { source: 'warmup', requests: 100, concurrency: 4 });
  const alone = buildSummary(k6Data({ phases: { cold: { requests: 100, p95: 300 } }, stop: 'Measured' }),
    readSettings({ PHASES: 'cold' }));
  assert.deepEqual(alone.phases.cold.protocol, { source: 'open', requests: 100, rate: 20 });
});

test('an aborted pass names the first failed request, as warmup.js always did', () => {
  const s = buildSummary(k6Data({
    phases: { cold: { requests: 20, failures: 20 } }, stop: 'Aborted',
    checks: [messageName('failure:cold', '404 from GET /exam/1')],
  }), settings);
  assert.equal(s.phases.cold.failureExample, '404 from GET /exam/1');
  assert.equal(s.abortMessage,
    'cold phase: 20 of 20 requests failed (an error status, a redirect, or no answer, e.g. 404 from GET /exam/1), more than 5%');
  assert.equal(s.phases.cold.p95, null);
  assert.equal(s.phases.warmup.requests, 0);
});

test('an abort recorded by the script (flow not loaded, setup failed) is the message', () => {
  const s = buildSummary(k6Data({ stop: 'Aborted', durationMs: 5, checks: [messageName('abort', 'setup() failed: Error: 401')] }), settings);
  assert.equal(s.stopReason, 'Aborted');
  assert.equal(s.abortMessage, 'setup() failed: Error: 401');
  assert.equal(s.evidence.requests, 0);
});

test('no stop code: the time budget when the run lasted it, an uncaught error when it ended sooner', () => {
  const outOfTime = buildSummary(k6Data({ phases: { cold: { requests: 100, p95: 5 } }, durationMs: 61000 }), settings);
  assert.equal(outOfTime.stopReason, 'OutOfTime');
  assert.equal(outOfTime.abortMessage, 'the 60s time budget ran out before the warm pass ended (warm pass: 0 of 100 requests)');
  const interrupted = buildSummary(k6Data({ phases: { cold: { requests: 40, p95: 5 } }, durationMs: 3000 }), settings);
  assert.equal(interrupted.stopReason, 'Aborted');
  assert.match(interrupted.abortMessage, /uncaught error/);
});

test('a JIT run reports its counter, and a failed scrape says why', () => {
  const jitSettings = readSettings({ JIT_METRICS_URL: 'http://198.18.0.12:8080/metrics' });
  const ok = buildSummary(k6Data({ ...converged, stop: 'JitSettled', gauges: { ...converged.gauges,
    danki_evidence_jit_state: 1, danki_evidence_jit_counter: 0, danki_evidence_jit_compile_ms: 6384, danki_evidence_jit_last_share: 0.3 } }), jitSettings);
  assert.equal(ok.evidence.rule, 'jit');
  assert.deepEqual(ok.evidence.jit, { url: 'http://198.18.0.12:8080/metrics', metric: 'jvm_compilation_time_ms_total',
    cpuMetric: null, compileMs: 6384, lastShare: 0.3, error: null });
  assert.equal(ok.evidence.recentCpuPerRequestMs, null);
  const failed = buildSummary(k6Data({ ...converged, gauges: { ...converged.gauges,
    danki_evidence_jit_state: 2, danki_evidence_jit_error: 1, danki_evidence_jit_error_detail: 404 } }), jitSettings);
  assert.equal(failed.evidence.rule, 'throughput');
  assert.equal(failed.evidence.jit.error, 'HTTP status 404 from http://198.18.0.12:8080/metrics');
});

test('a CPU-rule run reports the CPU counter and the two windows\' CPU per request', () => {
  const jitSettings = readSettings({ JIT_METRICS_URL: 'http://198.18.0.12:8080/metrics' });
  const summary = buildSummary(k6Data({ ...converged, stop: 'JitSettled', gauges: { ...converged.gauges,
    danki_evidence_jit_state: 1, danki_evidence_jit_counter: 0, danki_evidence_jit_compile_ms: 6384,
    danki_evidence_jit_last_share: 0.3, danki_evidence_cpu_counter: 1,
    danki_evidence_recent_cpu_per_request: 3.41, danki_evidence_earlier_cpu_per_request: 3.6 } }), jitSettings);
  assert.equal(summary.evidence.rule, 'cpu');
  assert.equal(summary.evidence.jit.cpuMetric, 'process_cpu_seconds_total');
  assert.equal(summary.evidence.recentCpuPerRequestMs, 3.41);
  assert.equal(summary.evidence.earlierCpuPerRequestMs, 3.6);
  assert.match(textTable(summary, 'run'), /cpu rule, .*CPU per request 3\.60 -> 3\.41 ms/);
});
