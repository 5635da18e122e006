// The warm-up stop rule of warmup.js, kept free of k6 imports so node can test it
// (operator/src/test/js/convergence.test.mjs).

/**
 * Decides after each warm-up window whether latency has settled.
 *
 * @param {number[]} p95s    P95 (ms) of every window so far, oldest first
 * @param {object}   opts
 * @param {number}   opts.tolerance     a window "moved" if |p95 - previous p95| / previous p95 >= tolerance
 * @param {number}   opts.stableWindows consecutive windows that must not move to call it converged
 * @param {number}   [opts.minDeltaMs]  changes smaller than this many ms never count as moving (default 0):
 *                                      on a 2 ms P95, 0.3 ms of jitter is noise, not warming
 * @param {number}   [opts.targetP95]   stop as soon as a window's P95 is at or under this (ms); 0 or absent = off
 * @returns {'TargetReached'|'Converged'|null} why to stop now, or null to go on
 */
export function warmupStopReason(p95s, opts) {
  const { tolerance, stableWindows, targetP95 } = opts;
  const minDeltaMs = opts.minDeltaMs || 0;
  if (!(tolerance > 0) || !(stableWindows >= 1)) {
    throw new Error(`warmupStopReason: tolerance must be > 0 and stableWindows >= 1, got ${tolerance}, ${stableWindows}`);
  }
  if (p95s.length === 0) return null;
  const last = p95s[p95s.length - 1];
  if (targetP95 > 0 && last <= targetP95) return 'TargetReached';
  if (p95s.length < stableWindows + 1) return null;
  for (let i = p95s.length - stableWindows; i < p95s.length; i++) {
    const previous = p95s[i - 1];
    const current = p95s[i];
    const delta = Math.abs(current - previous);
    if (delta >= minDeltaMs && delta >= tolerance * previous) return null;
  }
  return 'Converged';
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
