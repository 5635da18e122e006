// The warm-up stop rules of warmup.js, kept free of k6 imports so node can test them
// (operator/src/test/js/convergence.test.mjs).
//
// The rules judge blocks of answers, not wall-clock windows: a block is a fixed number of answers
// (BLOCK_SIZE), so each figure rests on the same number of samples however fast or slow the pod is, and
// a fast pod is judged as soon as it has answered enough rather than after a fixed second.
//
// The default rule reads the pod's work per request from its throughput. The warm-up's closed loop keeps
// the pod saturated, so a block's throughput is the CPU the pod has over the CPU one request costs, less
// what its JIT compiler threads take: it rises as code gets compiled and as the compiler gives the CPU
// back, and stops rising when both are done. A block's P95, which the rule before this one judged, is a
// poor witness on a CPU quota: at saturation it is set by the quota's stalls, not by the code.

/**
 * The throughput rule, after each block: has the pod's work per request stopped falling?
 *
 * It stops once the median throughput of the last `window` blocks beat the median of the `window` blocks
 * before them by at most `tolerance`. Medians, so that one block that ran into a GC pause or a burst of
 * compiling (or escaped one) neither stops the warm-up nor prolongs it.
 *
 * @param {number[]} rates   answers per second of every block so far, oldest first
 * @param {object}   opts
 * @param {number}   opts.tolerance  gain (a fraction of the earlier window's median) that counts as still warming
 * @param {number}   opts.window     blocks per window: the rule is asked once there are two windows
 * @returns {'Converged'|null}
 */
export function throughputStopReason(rates, opts) {
  const { recent, earlier } = lastWindows(rates, checked('throughputStopReason', opts));
  if (earlier === null) return null;
  return recent - earlier <= opts.tolerance * earlier ? 'Converged' : null;
}

/**
 * The CPU rule, with the pod's process CPU counter beside its JIT counter: has its CPU per request stopped
 * falling?
 *
 * Throughput is the CPU the pod has over the CPU one request costs, so the throughput rule reads a change in
 * the pod's share of the CPU (a neighbour's JVM done starting, another pod's burst on the node) as the code
 * getting faster or as its end. CPU per request is the cost alone. At a fixed share the two rules stop at
 * the same block: the cost fell by at most `tolerance` of the recent window's median exactly when the
 * throughput (share / cost) rose by at most `tolerance` of the earlier one's, so the window and tolerance
 * chosen on the throughput traces carry over.
 *
 * @param {number[]} costs   CPU ms per answer between two scrapes, oldest first
 * @param {object}   opts    {tolerance, window}, as throughputStopReason's
 * @returns {'Converged'|null}
 */
export function cpuStopReason(costs, opts) {
  const { recent, earlier } = lastWindows(costs, checked('cpuStopReason', opts));
  if (earlier === null) return null;
  return earlier - recent <= opts.tolerance * recent ? 'Converged' : null;
}

/**
 * The medians of the last `window` values (`recent`, null while there are fewer) and of the `window` before
 * them (`earlier`, null while there are not two windows): what the plateau rules compare, and their evidence.
 */
export function lastWindows(values, window) {
  const n = values.length;
  return {
    recent: n >= window ? median(values.slice(-window)) : null,
    earlier: n >= 2 * window ? median(values.slice(-2 * window, -window)) : null,
  };
}

/** The plateau rules' window, once `opts` were checked: tolerance in (0, 1), window >= 1. */
function checked(rule, opts) {
  const { tolerance, window } = opts;
  if (!(tolerance > 0 && tolerance < 1) || !(window >= 1)) {
    throw new Error(`${rule}: tolerance must be in (0, 1) and window >= 1, got ${tolerance}, ${window}`);
  }
  return window;
}

/**
 * The JIT rule, with the pod's JIT counter (danki.dev/jit-metrics): has its compiler gone quiet?
 *
 * The counter is the CompilationMXBean's, elapsed time summed over the compiler threads: on a CPU quota it
 * includes the time they waited for CPU, so its absolute value says little. It is judged as a share of each
 * block's wall time instead: quiet once at most `quietShare` for `quietBlocks` blocks in a row.
 *
 * @param {number[]} shares  compile time per block over the block's wall time, oldest first
 * @param {object}   opts    {quietShare, quietBlocks}
 * @returns {boolean}
 */
export function jitQuiet(shares, opts) {
  const { quietShare, quietBlocks } = opts;
  if (!(quietShare >= 0) || !(quietBlocks >= 1)) {
    throw new Error(`jitQuiet: quietShare must be >= 0 and quietBlocks >= 1, got ${quietShare}, ${quietBlocks}`);
  }
  return shares.length >= quietBlocks && shares.slice(-quietBlocks).every((share) => share <= quietShare);
}

/** The median of a non-empty list. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The user's target: the last block's P95 at or under `targetP95` ms (0 or absent: no target). */
export function targetReached(p95s, targetP95) {
  return targetP95 > 0 && p95s.length > 0 && p95s[p95s.length - 1] <= targetP95;
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
