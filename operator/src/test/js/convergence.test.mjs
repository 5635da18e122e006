// Unit tests of the warm-up stop rules in k6-scripts/lib/convergence.js (run: make test-unit-operator-js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuStopReason, jitQuiet, median, percentile, targetReached, throughputStopReason } from '../../../../k6-scripts/lib/convergence.js';

const opts = { tolerance: 0.1, window: 3 };

test('a rising throughput has not converged', () => {
  assert.equal(throughputStopReason([20, 30, 40, 60, 80, 100], opts), null);
});

test('a window whose median gained at most the tolerance over the one before converges', () => {
  assert.equal(throughputStopReason([20, 98, 100, 102, 105, 99, 108], opts), 'Converged');
});

test('fewer blocks than two windows never converge', () => {
  assert.equal(throughputStopReason([100, 100, 100, 100, 100], opts), null);
});

test('medians: one fast block in the earlier window does not stop a pod that still gets faster', () => {
  // a best-block rule would compare with the 150 and stop; the medians see 60 -> 80
  assert.equal(throughputStopReason([50, 150, 60, 75, 80, 85], opts), null);
});

test('medians: one slow block in the recent window does not hold the stop up', () => {
  assert.equal(throughputStopReason([100, 101, 99, 40, 102, 100], opts), 'Converged');
});

test('a slow steady rise adds up over a window and keeps warming', () => {
  // 4 % a block: 12 % from one window's median to the next's
  assert.equal(throughputStopReason([100, 104, 108.2, 112.5, 117, 121.7], opts), null);
});

test('a target P95 is met by the last block', () => {
  assert.equal(targetReached([300, 40], 50), true);
  assert.equal(targetReached([300, 60], 50), false);
  assert.equal(targetReached([], 50), false);
  assert.equal(targetReached([10], 0), false);
});

test('bad options are rejected with a message', () => {
  assert.throws(() => throughputStopReason([1], { tolerance: 0, window: 3 }), /tolerance must be in \(0, 1\)/);
  assert.throws(() => throughputStopReason([1], { tolerance: 0.1, window: 0 }), /window >= 1/);
  assert.throws(() => jitQuiet([1], { quietShare: -1, quietBlocks: 2 }), /quietShare must be >= 0/);
});

test('the JIT rule waits for enough quiet shares in a row', () => {
  const rule = { quietShare: 0.5, quietBlocks: 2 };
  assert.equal(jitQuiet([], rule), false);
  assert.equal(jitQuiet([1.9, 1.2, 0.4], rule), false);
  assert.equal(jitQuiet([1.9, 1.2, 0.4, 0.5], rule), true);
  assert.equal(jitQuiet([1.9, 0.1, 1.4, 0.05], rule), false);
});

test('median of odd and even lists', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('percentile interpolates linearly like k6', () => {
  const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  assert.equal(percentile(values, 50), 5.5);
  assert.ok(Math.abs(percentile(values, 95) - 9.55) < 1e-9);
  assert.equal(percentile([], 95), null);
  assert.equal(percentile([7], 25), 7);
});

test('the CPU rule: a cost still falling keeps warming, a flat one converges', () => {
  assert.equal(cpuStopReason([9, 8, 7, 6, 5, 4], opts), null);
  assert.equal(cpuStopReason([9, 4.2, 4.1, 4.0, 3.9, 4.05], opts), 'Converged');
  assert.equal(cpuStopReason([4, 4, 4, 4, 4], opts), null);
  assert.throws(() => cpuStopReason([1, 1], { tolerance: 0, window: 1 }), /tolerance must be in \(0, 1\)/);
});

test('at a fixed CPU share the CPU rule stops where the throughput rule does', () => {
  // throughput = share / cost, so the window and tolerance chosen on throughput traces carry over
  let seed = 7;
  const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  for (let trial = 0; trial < 500; trial++) {
    const costs = Array.from({ length: 6 + Math.floor(random() * 6) }, () => 1 + random() * 9);
    const share = 0.35 + random();
    const rates = costs.map((c) => share / c);
    assert.equal(cpuStopReason(costs, opts), throughputStopReason(rates, opts), `costs ${costs}`);
  }
});

test('the CPU rule does not read a change of CPU share: the throughput rule does', () => {
  // the cost falls 10 % a block; the share halves at block 4 (a neighbour's burst), then comes back
  const costs = [10, 9, 8.1, 7.3, 6.6, 5.9, 5.3];
  const shares = [1, 1, 1, 0.5, 0.5, 0.5, 1];
  const rates = costs.map((c, i) => shares[i] / c);
  assert.equal(throughputStopReason(rates.slice(0, 6), opts), 'Converged');
  assert.equal(cpuStopReason(costs.slice(0, 6), opts), null);
});
