// Unit tests of runner.js's summary as a termination message, k6-scripts/lib/termination-message.js:
// compact JSON of at most 4096 bytes whatever the notes and messages (run: make test-unit-operator-js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TERMINATION_MESSAGE_BYTES, terminationMessage, utf8Bytes } from '../../../../k6-scripts/lib/termination-message.js';

/** A summary as lib/warmup-summary.js builds it, with long numbers as k6 gives them. */
function summary(overrides = {}) {
  const phase = (requests, p95) => ({ requests, failures: 0, failureExample: null,
    p25: p95 / 4.1234567891, p50: p95 / 3.1234567891, p75: p95 / 2.1234567891, p90: p95 / 1.1234567891, p95 });
  return {
    version: 2, stopReason: 'Converged', abortMessage: undefined, firstRequestAtMs: 1795427173871,
    durationSeconds: 16.254170302000002, baseUrl: 'http://198.18.0.12:8080',
    settings: { rate: 20, requests: 100, jitMetricsUrl: 'http://198.18.0.12:8080/metrics' },
    evidence: { rule: 'jit', concurrency: 4, requests: 1803, blocks: 9, blockSize: 200, lastBlockP95: 23.068398249999998,
      earlierBestP95: 19.096625599999992, seconds: 6.333, achievedRate: 284.6991946944576,
      jit: { url: 'http://198.18.0.12:8080/metrics', metric: 'jvm_compilation_time_ms_total', compileMs: 6384.123456789,
        lastBlockMs: 2.987654321, error: null } },
    phases: { cold: phase(100, 57.95128369999982), warmup: phase(1803, 28.14193969999998), warm: phase(100, 10.818681399999997) },
    ...overrides,
  };
}

const bytes = (text) => Buffer.byteLength(text, 'utf8');

test('a usual summary: one line, no settings, its notes, well under the limit', () => {
  const text = terminationMessage(summary(), ['every submission was rolled back', 'exam 1: 50 questions']);
  const parsed = JSON.parse(text);
  assert.ok(!text.includes('\n'));
  assert.equal(parsed.settings, undefined);
  assert.deepEqual(parsed.notes, ['every submission was rolled back', 'exam 1: 50 questions']);
  assert.equal(parsed.phases.cold.p95, 57.95128369999982);
  assert.equal(parsed.evidence.jit.compileMs, 6384.123456789);
  assert.ok(bytes(text) < 1500, `${bytes(text)} bytes`);
});

test('ten notes of 200 ASCII characters all fit beside a full summary, cut to 200 each', () => {
  const notes = Array.from({ length: 12 }, (_, i) => `${i} `.padEnd(400, 'x'));
  const text = terminationMessage(summary(), notes);
  assert.ok(bytes(text) <= TERMINATION_MESSAGE_BYTES, `${bytes(text)} bytes`);
  const parsed = JSON.parse(text);
  assert.equal(parsed.notes.length, 10);
  for (const note of parsed.notes) assert.equal([...note].length, 200);
});

test('multi-byte notes are measured in UTF-8 bytes: the last ones give way, the rest stays whole', () => {
  const notes = Array.from({ length: 10 }, (_, i) => `${i} ${'暖機😀'.repeat(100)}`);
  const text = terminationMessage(summary(), notes);
  assert.equal(utf8Bytes(text), bytes(text));
  assert.ok(bytes(text) <= TERMINATION_MESSAGE_BYTES, `${bytes(text)} bytes`);
  const parsed = JSON.parse(text);
  assert.ok(parsed.notes.length >= 2 && parsed.notes.length < 10, `${parsed.notes.length} notes`);
  assert.match(parsed.notes[0], /^0 暖機/);
  assert.match(parsed.notes[parsed.notes.length - 1], /^\(\d+ more note\(s\) cut to fit 4096 bytes\)$/);
  assert.deepEqual(parsed.phases, summary().phases);
  assert.deepEqual(parsed.evidence, summary().evidence);
});

test('huge messages everywhere still fit, as valid JSON with the counts and percentiles', () => {
  const huge = 'e'.repeat(5000);
  const s = summary({ stopReason: 'Aborted', abortMessage: `cold phase: 20 of 20 flows failed (${huge})`, baseUrl: `http://x/${huge}` });
  for (const phase of Object.values(s.phases)) phase.failureExample = huge;
  s.evidence.jit.url = huge;
  s.evidence.jit.error = huge;
  for (const limit of [TERMINATION_MESSAGE_BYTES, 1200]) {
    const text = terminationMessage(s, [huge, huge], limit);
    assert.ok(bytes(text) <= limit, `${bytes(text)} > ${limit}`);
    const parsed = JSON.parse(text);
    assert.equal(parsed.version, 2);
    assert.equal(parsed.stopReason, 'Aborted');
    assert.equal(parsed.phases.warmup.requests, 1803);
    assert.equal(parsed.phases.cold.p95, 57.95128369999982);
    assert.equal(typeof parsed.evidence, 'object');
    assert.match(parsed.abortMessage, /^cold phase: 20 of 20 flows failed/);
  }
});

test('utf8Bytes counts as UTF-8 does', () => {
  for (const text of ['', 'abc', 'é', '暖機', '😀', 'a\u0000b', '"\\']) assert.equal(utf8Bytes(text), bytes(text), text);
});
