// The warm-up's settings, read from an env map: the same variables for warmup.js and runner.js, so the
// operator sets one list whichever script it runs. No k6 imports, so node can test it.
//
//   BASE_URL             the pod, e.g. http://198.18.0.12:8080 (default http://127.0.0.1:8080)
//   RATE                 requests/s of the warm pass, and of the cold pass when it is a pass of its own (default 20)
//   REQUESTS             requests per cold and warm pass (default 100)
//   COLD_PASS            where the cold figures come from: warmup, the warm-up's first REQUESTS answers (no
//                        time of its own), or open, a pass of REQUESTS at RATE/s before it (default warmup)
//   WARMUP_CONCURRENCY   warm-up requests in flight (default 4)
//   WARMUP_RATE          ceiling on warm-up requests/s (default 1000)
//   MIN_WARMUP_REQUESTS  no stop rule is asked before this many warm-up requests (default 300)
//   MAX_WARMUP_REQUESTS  cap on warm-up requests (default 10000)
//   TARGET_P95_MS        stop warming once a block's P95 is at or under this (default off)
//   JIT_METRICS_URL      the pod's metrics page, e.g. http://198.18.0.12:8080/metrics, with its JIT counter and,
//                        for the CPU rule, its process CPU counter (lib/jit.js; default off)
//   DRAIN_S, DRAIN_RATE  after the warm-up, DRAIN_S seconds at DRAIN_RATE/s before the warm pass, so the
//                        compiles the warm-up queued finish first (default 1 s at 10/s; DRAIN_S=0: none)
//   TIME_BUDGET_S        the whole run must end within this many seconds (default 300)
//   MAX_ERROR_RATIO      share of failed answers that aborts a phase (default 0.05)
//   BLOCK_SIZE (200), WINDOW (3), TOLERANCE (0.1), JIT_QUIET_SHARE (0.5), JIT_QUIET_BLOCKS (2): the stop
//   rules' settings (lib/convergence.js)
//   MAX_IN_FLIGHT        requests outstanding at once in a pass (default 256)
//   REQUEST_TIMEOUT      per-request timeout (default 10s)
//   HEADERS              extra headers on every request, a JSON object of strings
//   SUMMARY_PATH         where the summary JSON goes (default: none)
//   PHASES               the phases this run sends: a comma list of cold, warmup and warm, in that order
//                        (default all three). The operator splits a warm-up into runs of its own when it
//                        raises the pod's CPU for the warm-up phase only, so that the cold and warm passes
//                        measure the pod at its own CPU.
import { headerMap, nonNegative, positiveNumber, ratio } from './env.js';

/** The phases of a warm-up, in the order they run. */
export const PHASES = ['cold', 'warmup', 'warm'];

/** Where the cold figures come from (COLD_PASS). */
export const COLD_PASSES = ['warmup', 'open'];

/**
 * Every warm-up setting, checked; throws a message naming the first bad variable.
 *
 * @param {object} env  k6's __ENV or a plain object of strings
 */
export function readSettings(env) {
  const maxWarmupRequests = Math.round(positiveNumber(env, 'MAX_WARMUP_REQUESTS', 10000));
  return {
    baseUrl: (env.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, ''),
    rate: positiveNumber(env, 'RATE', 20),
    requests: Math.round(positiveNumber(env, 'REQUESTS', 100)),
    coldPass: oneOf(env, 'COLD_PASS', COLD_PASSES, 'warmup'),
    warmupConcurrency: Math.round(positiveNumber(env, 'WARMUP_CONCURRENCY', 4)),
    warmupRate: positiveNumber(env, 'WARMUP_RATE', 1000),
    maxWarmupRequests,
    minWarmupRequests: Math.min(maxWarmupRequests, Math.round(nonNegative(env, 'MIN_WARMUP_REQUESTS', 300))),
    targetP95Ms: env.TARGET_P95_MS ? positiveNumber(env, 'TARGET_P95_MS', 0) : 0,
    jitMetricsUrl: env.JIT_METRICS_URL || '',
    drainS: nonNegative(env, 'DRAIN_S', 1),
    drainRate: positiveNumber(env, 'DRAIN_RATE', 10),
    timeBudgetS: positiveNumber(env, 'TIME_BUDGET_S', 300),
    maxErrorRatio: ratio(env, 'MAX_ERROR_RATIO', 0.05),
    // the throughput rule's defaults, from the cluster's JIT traces (bench/results/stop-rule.md)
    blockSize: Math.round(positiveNumber(env, 'BLOCK_SIZE', 200)),
    window: Math.round(positiveNumber(env, 'WINDOW', 3)),
    tolerance: ratio(env, 'TOLERANCE', 0.1),
    jitQuietShare: nonNegative(env, 'JIT_QUIET_SHARE', 0.5),
    jitQuietBlocks: Math.round(positiveNumber(env, 'JIT_QUIET_BLOCKS', 2)),
    maxInFlight: Math.round(positiveNumber(env, 'MAX_IN_FLIGHT', 256)),
    requestTimeout: env.REQUEST_TIMEOUT || '10s',
    headers: headerMap(env, 'HEADERS'),
    summaryPath: env.SUMMARY_PATH || '',
    phases: phaseList(env, 'PHASES'),
  };
}

/** One of `allowed`, or `fallback` when unset. */
function oneOf(env, name, allowed, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!allowed.includes(raw)) throw new Error(`${name}=${raw}: expected one of ${allowed.join(', ')}`);
  return raw;
}

/** A comma list of phases, each once and in their order (PHASES); all of them when unset. */
function phaseList(env, name) {
  const raw = env[name];
  if (!raw) return PHASES.slice();
  const wanted = raw.split(',').map((phase) => phase.trim());
  const inOrder = PHASES.filter((phase) => wanted.includes(phase));
  if (wanted.length !== inOrder.length || wanted.some((phase, i) => phase !== inOrder[i])) {
    throw new Error(`${name}=${raw}: expected a comma list of ${PHASES.join(', ')}, in that order, each once`);
  }
  return inOrder;
}

/** The settings block of warmup.js's summary: what a reader needs to judge the run. */
export function reportedSettings(s) {
  return {
    rate: s.rate, requests: s.requests, coldPass: s.coldPass, warmupConcurrency: s.warmupConcurrency,
    warmupRate: s.warmupRate, minWarmupRequests: s.minWarmupRequests, maxWarmupRequests: s.maxWarmupRequests,
    targetP95Ms: s.targetP95Ms, blockSize: s.blockSize, window: s.window, tolerance: s.tolerance,
    drainS: s.drainS, drainRate: s.drainRate,
    jitMetricsUrl: s.jitMetricsUrl || null, jitQuietShare: s.jitQuietShare, jitQuietBlocks: s.jitQuietBlocks,
  };
}
