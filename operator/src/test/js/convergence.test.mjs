// Unit tests of the warm-up stop rule in k6-scripts/lib/convergence.js (run: make test-unit-operator-js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { warmupStopReason, percentile } from '../../../../k6-scripts/lib/convergence.js';

const opts = { tolerance: 0.1, stableWindows: 3, minDeltaMs: 1 };

test('a falling P95 has not converged', () => {
  assert.equal(warmupStopReason([200, 150, 100, 60, 30], opts), null);
});

test('three windows within 10 % of the one before converge', () => {
  assert.equal(warmupStopReason([200, 50, 48, 50, 47], opts), 'Converged');
});

test('fewer windows than stableWindows + 1 never converge', () => {
  assert.equal(warmupStopReason([50, 50, 50], opts), null);
});

test('one jump inside the last stable windows resets convergence', () => {
  assert.equal(warmupStopReason([50, 50, 80, 50, 50], opts), null);
});

test('sub-millisecond jitter on a fast service counts as stable', () => {
  assert.equal(warmupStopReason([9, 2.0, 2.6, 2.1, 2.8], opts), 'Converged');
  assert.equal(warmupStopReason([9, 2.0, 2.6, 2.1, 2.8], { ...opts, minDeltaMs: 0 }), null);
});

test('a target P95 stops at once, before convergence', () => {
  assert.equal(warmupStopReason([300, 40], { ...opts, targetP95: 50 }), 'TargetReached');
  assert.equal(warmupStopReason([300, 60], { ...opts, targetP95: 50 }), null);
});

test('bad options are rejected with a message', () => {
  assert.throws(() => warmupStopReason([1], { tolerance: 0, stableWindows: 3 }), /tolerance must be > 0/);
});

test('percentile interpolates linearly like k6', () => {
  const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  assert.equal(percentile(values, 50), 5.5);
  assert.ok(Math.abs(percentile(values, 95) - 9.55) < 1e-9);
  assert.equal(percentile([], 95), null);
  assert.equal(percentile([7], 25), 7);
});
