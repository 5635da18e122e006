// The warm-up stop rules of warmup.js, kept free of k6 imports so node can test them
// (operator/src/test/js/convergence.test.mjs).
//
// Both rules judge blocks of answers, not wall-clock windows: a block is a fixed number of answers
// (BLOCK_SIZE), so its P95 rests on the same number of samples however fast or slow the pod is, and a
// fast pod is judged as soon as it has answered enough rather than after a fixed second.

/**
 * The latency rule, after each block: has the block P95 stopped improving?
 *
 * It stops once the last `stableBlocks` blocks did not beat the best block before them by more than
 * `tolerance` (and by at least `minDeltaMs`). A slow block never resets it: on a shared machine a block
 * is slower for many reasons, but only warming makes it faster. A slow steady improvement (a few % per
 * block) adds up over the stable blocks and keeps the warm-up going.
 *
 * @param {number[]} p95s    P95 (ms) of every block so far, oldest first
 * @param {object}   opts
 * @param {number}   opts.tolerance     improvement (fraction of the earlier best) that counts as still warming
 * @param {number}   opts.stableBlocks  blocks in a row without such an improvement
 * @param {number}   [opts.minDeltaMs]  improvements smaller than this many ms never count (default 0): on a
 *                                      2 ms P95, 0.3 ms is noise, not warming
 * @param {number}   [opts.targetP95]   stop as soon as a block's P95 is at or under this (ms); 0 or absent = off
 * @returns {'TargetReached'|'Converged'|null} why to stop now, or null to go on
 */
export function latencyStopReason(p95s, opts) {
  const { tolerance, stableBlocks, targetP95 } = opts;
  const minDeltaMs = opts.minDeltaMs || 0;
  if (!(tolerance > 0 && tolerance < 1) || !(stableBlocks >= 1)) {
    throw new Error(`latencyStopReason: tolerance must be in (0, 1) and stableBlocks >= 1, got ${tolerance}, ${stableBlocks}`);
  }
  if (targetReached(p95s, targetP95)) return 'TargetReached';
  if (p95s.length < stableBlocks + 1) return null;
  const earlierBest = Math.min(...p95s.slice(0, p95s.length - stableBlocks));
  const recentBest = Math.min(...p95s.slice(p95s.length - stableBlocks));
  const improvement = earlierBest - recentBest;
  const stillWarming = improvement >= minDeltaMs && improvement > tolerance * earlierBest;
  return stillWarming ? null : 'Converged';
}

/** The user's target: the last block's P95 at or under `targetP95` ms (0 or absent: no target). */
export function targetReached(p95s, targetP95) {
  return targetP95 > 0 && p95s.length > 0 && p95s[p95s.length - 1] <= targetP95;
}

/**
 * The JIT rule, after each scrape of the pod's JIT counter: has the compiler run out of work?
 *
 * A JVM is warm for a traffic mix once the JIT has compiled what that mix runs; then its cumulative
 * compile time stops growing. Latency can sit on a plateau while the C2 compiler is still busy (the
 * C1 code is fast enough to look settled), so this rule waits for the compiler itself.
 *
 * @param {number[]} compileMsPerBlock  JIT compile time (ms) per block of answers, one entry per scrape, oldest first
 * @param {object}   opts
 * @param {number}   opts.quietMs       at most this much compile time per block counts as quiet
 * @param {number}   opts.quietBlocks   scrapes in a row that must be quiet
 * @returns {'JitSettled'|null}
 */
export function jitStopReason(compileMsPerBlock, opts) {
  const { quietMs, quietBlocks } = opts;
  if (!(quietMs >= 0) || !(quietBlocks >= 1)) {
    throw new Error(`jitStopReason: quietMs must be >= 0 and quietBlocks >= 1, got ${quietMs}, ${quietBlocks}`);
  }
  if (compileMsPerBlock.length < quietBlocks) return null;
  return compileMsPerBlock.slice(-quietBlocks).every((ms) => ms <= quietMs) ? 'JitSettled' : null;
}

/** Percentile with linear interpolation between closest ranks (as k6 computes trend percentiles). */
export function percentile(sortedValues, p) {
  const n = sortedValues.length;
  if (n === 0) return null;
  if (n === 1) return sortedValues[0];
  const rank = (p / 100) * (n - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  return sortedValues[lower] + (sortedValues[upper] - sortedValues[lower]) * (rank - lower);
}
