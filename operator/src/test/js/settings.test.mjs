// Unit tests of the warm-up's settings in k6-scripts/lib/settings.js and lib/env.js (run: make test-unit-operator-js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { durationMs, headerMap } from '../../../../k6-scripts/lib/env.js';
import { readSettings, reportedSettings } from '../../../../k6-scripts/lib/settings.js';

test('defaults are warmup.js\'s documented ones', () => {
  const s = readSettings({});
  assert.equal(s.baseUrl, 'http://127.0.0.1:8080');
  assert.deepEqual(
    [s.rate, s.requests, s.warmupConcurrency, s.warmupRate, s.minWarmupRequests, s.maxWarmupRequests, s.timeBudgetS],
    [20, 100, 4, 1000, 300, 10000, 300]);
  assert.deepEqual([s.blockSize, s.window, s.tolerance, s.jitQuietShare, s.jitQuietBlocks], [200, 3, 0.1, 0.5, 2]);
  assert.deepEqual([s.coldPass, s.drainS, s.drainRate], ['warmup', 1, 10]);
  assert.deepEqual([s.maxErrorRatio, s.maxInFlight, s.requestTimeout, s.targetP95Ms, s.jitMetricsUrl], [0.05, 256, '10s', 0, '']);
  assert.deepEqual(s.headers, {});
});

test('the operator\'s env is read as given; a low cap lowers the minimum too', () => {
  const s = readSettings({ BASE_URL: 'http://198.18.0.12:8080/', RATE: '50', REQUESTS: '20', MAX_WARMUP_REQUESTS: '300',
    MIN_WARMUP_REQUESTS: '1000', TARGET_P95_MS: '', HEADERS: '{"Authorization":"Bearer x"}' });
  assert.equal(s.baseUrl, 'http://198.18.0.12:8080');
  assert.equal(s.minWarmupRequests, 300);
  assert.equal(s.targetP95Ms, 0);
  assert.deepEqual(s.headers, { Authorization: 'Bearer x' });
  assert.deepEqual(Object.keys(reportedSettings(s)), ['rate', 'requests', 'coldPass', 'warmupConcurrency',
    'warmupRate', 'minWarmupRequests', 'maxWarmupRequests', 'targetP95Ms', 'blockSize', 'window', 'tolerance', 'drainS',
    'drainRate', 'jitMetricsUrl', 'jitQuietShare', 'jitQuietBlocks']);
});

test('a bad value names its variable', () => {
  assert.throws(() => readSettings({ RATE: '0' }), /RATE=0: expected a positive number/);
  assert.throws(() => readSettings({ MAX_ERROR_RATIO: '2' }), /MAX_ERROR_RATIO=2: expected a number from 0 to 1/);
  assert.throws(() => readSettings({ JIT_QUIET_SHARE: '-1' }), /JIT_QUIET_SHARE=-1: expected a number of 0 or more/);
  assert.throws(() => readSettings({ COLD_PASS: 'closed' }), /COLD_PASS=closed: expected one of warmup, open/);
  assert.throws(() => readSettings({ DRAIN_S: '-1' }), /DRAIN_S=-1: expected a number of 0 or more/);
  assert.throws(() => headerMap({ HEADERS: '{"a":1}' }, 'HEADERS'), /value of a must be a string/);
  assert.throws(() => headerMap({ HEADERS: '[1]' }, 'HEADERS'), /expected a JSON object/);
});

test('durations read as k6 reads request timeouts', () => {
  assert.equal(durationMs('T', '10s'), 10000);
  assert.equal(durationMs('T', '500ms'), 500);
  assert.equal(durationMs('T', '1m30s'), 90000);
  assert.equal(durationMs('T', '1.5s'), 1500);
  assert.equal(durationMs('T', '2500'), 2500);
  assert.throws(() => durationMs('REQUEST_TIMEOUT', '10 seconds'), /REQUEST_TIMEOUT=10 seconds: expected a duration/);
  assert.throws(() => durationMs('T', 's'), /expected a duration/);
});

test('PHASES names the phases a run sends, in their order; all three by default', () => {
  assert.deepEqual(readSettings({}).phases, ['cold', 'warmup', 'warm']);
  assert.deepEqual(readSettings({ PHASES: 'cold' }).phases, ['cold']);
  assert.deepEqual(readSettings({ PHASES: 'warmup, warm' }).phases, ['warmup', 'warm']);
  for (const bad of ['warm,cold', 'cold,cold', 'hot', 'cold,,warm']) {
    assert.throws(() => readSettings({ PHASES: bad }), /PHASES=.*: expected a comma list of cold, warmup, warm, in that order, each once/);
  }
});
