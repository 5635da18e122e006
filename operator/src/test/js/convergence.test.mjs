// Unit tests of the warm-up stop rules in k6-scripts/lib/convergence.js (run: make test-unit-operator-js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jitStopReason, latencyStopReason, percentile, targetReached } from '../../../../k6-scripts/lib/convergence.js';

const opts = { tolerance: 0.1, stableBlocks: 3, minDeltaMs: 1 };

test('a falling P95 has not converged', () => {
  assert.equal(latencyStopReason([200, 150, 100, 60, 30], opts), null);
});

test('three blocks that do not beat the earlier best by 10 % converge', () => {
  assert.equal(latencyStopReason([200, 50, 48, 50, 47], opts), 'Converged');
});

test('fewer blocks than stableBlocks + 1 never converge', () => {
  assert.equal(latencyStopReason([50, 50, 50], opts), null);
});

test('a slow block does not reset convergence: only getting faster is warming', () => {
  assert.equal(latencyStopReason([50, 50, 80, 50, 50], opts), 'Converged');
});

test('a new low more than the tolerance below the earlier best keeps warming', () => {
  assert.equal(latencyStopReason([50, 50, 50, 50, 40], opts), null);
});

test('a slow steady improvement adds up over the stable blocks and keeps warming', () => {
  // 4 % a block: under the 10 % tolerance block by block, 12 % over three blocks
  assert.equal(latencyStopReason([100, 96, 92.2, 88.5], opts), null);
});

test('sub-millisecond jitter on a fast service counts as stable', () => {
  assert.equal(latencyStopReason([9, 2.8, 2.6, 2.1, 2.5], opts), 'Converged');
  assert.equal(latencyStopReason([9, 2.8, 2.6, 2.1, 2.5], { ...opts, minDeltaMs: 0 }), null);
});

test('a target P95 stops at once, before convergence', () => {
  assert.equal(latencyStopReason([300, 40], { ...opts, targetP95: 50 }), 'TargetReached');
  assert.equal(latencyStopReason([300, 60], { ...opts, targetP95: 50 }), null);
  assert.equal(targetReached([], 50), false);
  assert.equal(targetReached([10], 0), false);
});

test('bad options are rejected with a message', () => {
  assert.throws(() => latencyStopReason([1], { tolerance: 0, stableBlocks: 3 }), /tolerance must be in \(0, 1\)/);
  assert.throws(() => jitStopReason([1], { quietMs: -1, quietBlocks: 2 }), /quietMs must be >= 0/);
});

test('the JIT rule waits for enough quiet blocks in a row', () => {
  const rule = { quietMs: 20, quietBlocks: 2 };
  assert.equal(jitStopReason([], rule), null);
  assert.equal(jitStopReason([900, 300, 15], rule), null);
  assert.equal(jitStopReason([900, 300, 15, 20], rule), 'JitSettled');
  assert.equal(jitStopReason([900, 10, 400, 5], rule), null);
});

test('percentile interpolates linearly like k6', () => {
  const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  assert.equal(percentile(values, 50), 5.5);
  assert.ok(Math.abs(percentile(values, 95) - 9.55) < 1e-9);
  assert.equal(percentile([], 95), null);
  assert.equal(percentile([7], 25), 7);
});
