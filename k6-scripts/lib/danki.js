// danki.js: the warm-up every danki script runs against a pod, whatever one "request" is (an HTTP request
// of the annotation plan in warmup.js, one call of a tenant's flow in runner.js):
//   1. cold:    with COLD_PASS=open, REQUESTS requests at RATE/s, open model (lib/senders.js openPass); by
//               default (COLD_PASS=warmup) the warm-up's first REQUESTS answers instead, which costs no time;
//   2. warm-up: the closed loop with its stop rules (lib/senders.js closedLoop, lib/convergence.js, and
//               the pod's JIT and process CPU counters through lib/jit.js when JIT_METRICS_URL is set), then DRAIN_S
//               seconds at DRAIN_RATE/s, in which the compiles it queued finish;
//   3. warm:    REQUESTS requests taken as the cold ones were: at RATE/s with COLD_PASS=open; by default,
//               when the cold figures came from the warm-up, a closed pass of REQUESTS with WARMUP_CONCURRENCY
//               in flight (lib/senders.js closedPass), so a busy node slows both figures alike;
// then the version-2 summary (lib/warmup-summary.js). Settings come from lib/settings.js.
//
// A script calls createWarmup(settings) in its init code (k6 creates metrics only there), exports its
// `options`, and runs `run(send)` in its default function. `send(i, phase)` sends request i of the
// phase and resolves to {ok, ms, failure}: `failure` says what went wrong (e.g. "404 from GET /x"); it
// never rejects.
import http from 'k6/http';
import { check } from 'k6';
import { setTimeout } from 'k6/timers';
import { Counter, Gauge, Trend } from 'k6/metrics';
import { reportedPercentiles } from './config.js';
import { closedLoop, closedPass, openPass } from './senders.js';
import { CPU_COUNTER_NAMES, JIT_COUNTER_NAMES, readPage } from './jit.js';
import { messageName, noteKey } from './messages.js';
import {
  buildSummary, coldFromWarmup, JIT_STATES, METRICS, PHASES, REQUEST_UNIT, STOP_REASONS, warmPassClosed,
} from './warmup-summary.js';

/** Stop reasons after which the pod counts as warmed, so the drain runs before the warm pass. */
const STOPPED_WARM = ['Converged', 'JitSettled', 'TargetReached', 'MaxRequests'];

const clock = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
};

/**
 * The warm-up's metrics, options and phases for `settings` (lib/settings.js readSettings()).
 * Call it in init code.
 */
export function createWarmup(settings) {
  const s = settings;
  const latency = new Trend(METRICS.latency, true);
  const sent = new Counter(METRICS.requests);
  const failed = new Counter(METRICS.failures);
  const stopCode = new Gauge(METRICS.stopReason);
  const firstRequestAt = new Gauge(METRICS.firstRequest);
  // the warm-up's evidence, as numbers: Gauges are how values reach handleSummary, which runs apart
  const evidence = {};
  for (const [key, name] of Object.entries(METRICS.evidence)) evidence[key] = new Gauge(name);
  const firstFailureSeen = {};
  const headers = Object.assign({}, s.headers, { 'X-Danki-Warmup': '1' });

  // A sub-metric reaches handleSummary only when a threshold names it; these thresholds always pass.
  const thresholds = {};
  for (const phase of PHASES) {
    thresholds[`${METRICS.latency}{phase:${phase}}`] = ['max>=0'];
    thresholds[`${METRICS.requests}{phase:${phase}}`] = ['count>=0'];
    thresholds[`${METRICS.failures}{phase:${phase}}`] = ['count>=0'];
  }

  const options = {
    scenarios: {
      warmup: {
        executor: 'shared-iterations',
        vus: 1,
        iterations: 1,
        maxDuration: `${Math.ceil(s.timeBudgetS)}s`,
        gracefulStop: '1s',
      },
    },
    thresholds,
    summaryTrendStats: [...reportedPercentiles, 'count', 'max'],
    setupTimeout: '5s',
    teardownTimeout: '5s',
  };

  let started = false;

  /** `send` with the counts, latency and first failure of the phase `phaseOf(i)` names recorded. */
  function measured(phaseOf, send) {
    return (i) => {
      const phase = phaseOf(i);
      if (!started) {
        started = true;
        firstRequestAt.add(Date.now());
      }
      sent.add(1, { phase });
      return send(i, phase).then((answer) => {
        if (answer.ok) {
          latency.add(answer.ms, { phase });
        } else {
          failed.add(1, { phase });
          if (!firstFailureSeen[phase]) {
            firstFailureSeen[phase] = true;
            record(`failure:${phase}`, answer.failure || 'failed');
          }
        }
        return answer;
      });
    };
  }

  /** One measured open pass of `count` at `perSecond`; returns 'Aborted' (too many failed), 'OutOfTime' (cut short) or null. */
  async function pass(phase, send, deadline, count = s.requests, perSecond = s.rate) {
    const result = await openPass({ ...clock, send: measured(() => phase, send) }, {
      count, perSecond, deadline, maxInFlight: s.maxInFlight, maxErrorRatio: s.maxErrorRatio,
    });
    return passOutcome(result, count);
  }

  /** The warm pass the same way as the cold figures were taken from the warm-up: closed, its concurrency in flight. */
  async function closedWarmPass(send, deadline) {
    const result = await closedPass({ ...clock, send: measured(() => 'warm', send) }, {
      count: s.requests, concurrency: s.warmupConcurrency, ceilingRate: s.warmupRate, deadline,
      maxErrorRatio: s.maxErrorRatio,
    });
    return passOutcome(result, s.requests);
  }

  function passOutcome(result, count) {
    if (result.aborted) return 'Aborted';
    return result.sent < count ? 'OutOfTime' : null;
  }

  /**
   * The warm-up phase: the closed loop until a stop rule fires, its first `coldCount` answers recorded as the
   * cold pass; then the drain. Records its evidence.
   */
  async function warmup(send, deadline, coldCount) {
    const phaseOf = (i) => (i < coldCount ? 'cold' : 'warmup');
    const result = await closedLoop({ ...clock, send: measured(phaseOf, send), scrapeJit: s.jitMetricsUrl ? scrapeJit : null }, {
      concurrency: s.warmupConcurrency, ceilingRate: s.warmupRate, minRequests: s.minWarmupRequests,
      maxRequests: s.maxWarmupRequests, blockSize: s.blockSize, tolerance: s.tolerance, window: s.window,
      targetP95: s.targetP95Ms, jitQuietShare: s.jitQuietShare, jitQuietBlocks: s.jitQuietBlocks,
      maxErrorRatio: s.maxErrorRatio, deadline,
    });
    evidence.requests.add(result.sent);
    evidence.blocks.add(result.blocks.length);
    evidence.seconds.add(result.seconds);
    for (const key of ['lastBlockP95', 'lastBlockRate', 'recentRate', 'earlierRate', 'recentCpuPerRequest', 'earlierCpuPerRequest']) {
      if (result[key] !== null) evidence[key].add(result[key]);
    }
    if (result.jit) recordJit(result.jit);
    if (STOPPED_WARM.includes(result.stopReason) && s.drainS > 0) {
      const drained = await pass('warmup', send, deadline, Math.max(1, Math.round(s.drainS * s.drainRate)), s.drainRate);
      if (drained === 'Aborted') return 'Aborted';
    }
    return result.stopReason;
  }

  function recordJit(jit) {
    evidence.jitState.add(JIT_STATES.indexOf(jit.error ? 'failed' : 'ok'));
    if (jit.metric) evidence.jitCounter.add(JIT_COUNTER_NAMES.indexOf(jit.metric));
    if (jit.cpuMetric) evidence.cpuCounter.add(CPU_COUNTER_NAMES.indexOf(jit.cpuMetric));
    if (jit.compileMs !== null) evidence.jitCompileMs.add(jit.compileMs);
    if (jit.lastShare !== null) evidence.jitLastShare.add(jit.lastShare);
    if (jit.error) {
      evidence.jitError.add(jit.error.code);
      evidence.jitErrorDetail.add(jit.error.detail);
    }
  }

  /**
   * Reads the pod's JIT counter and process CPU counter; resolves to {ms, metric, cpuMs, cpuMetric} (lib/jit.js
   * readPage) or {error: {code, detail}}: code 0 no answer (detail: k6's error code), 1 a status other than 200
   * (detail: the status), 2 no JIT counter on the page.
   */
  function scrapeJit() {
    return http.asyncRequest('GET', s.jitMetricsUrl, null, {
      headers: Object.assign({ Accept: 'text/plain;version=0.0.4;q=1,*/*;q=0.1' }, headers),
      tags: { phase: 'jit', name: 'jit metrics' },
      responseType: 'text',
      timeout: '5s',
      redirects: 0,
      responseCallback: http.expectedStatuses(200),
    }).then((res) => {
      if (res.status === 0) return { error: { code: 0, detail: res.error_code } };
      if (res.status !== 200) return { error: { code: 1, detail: res.status } };
      return readPage(res.body) || { error: { code: 2, detail: 0 } };
    });
  }

  /** Carries `text` to handleSummary under `key` (lib/messages.js). */
  function record(key, text) {
    check(null, { [messageName(key, text)]: () => true });
  }

  return {
    options,
    /** Headers every warm-up request carries: HEADERS and X-Danki-Warmup: 1. */
    headers,

    /**
     * Cold pass, warm-up, warm pass, or those of them that PHASES names. `startedAt` (epoch ms) is when
     * the run's time budget began: runner.js spends some of it on the flow's setup first.
     */
    async run(send, startedAt = Date.now()) {
      const runs = (phase) => s.phases.includes(phase);
      // the warm-up leaves the drain and the warm pass their time, also when the warm pass is a run of its own
      const warmPassMs = (s.requests / s.rate + s.drainS) * 1000 + 2000;
      const deadline = startedAt + s.timeBudgetS * 1000;
      // the cold figures come from the warm-up only when this run sends both (coldFromWarmup)
      const fromWarmup = coldFromWarmup(s);
      let reason = runs('cold') && !fromWarmup ? await pass('cold', send, deadline) : null;
      if (!reason && runs('warmup')) reason = await warmup(send, deadline - warmPassMs, fromWarmup ? s.requests : 0);
      if (runs('warm') && reason !== 'Aborted' && reason !== 'OutOfTime') {
        reason = (await (warmPassClosed(s) ? closedWarmPass(send, deadline) : pass('warm', send, deadline))) || reason;
      }
      stopCode.add(STOP_REASONS.indexOf(reason || 'Measured'));
    },

    /** Ends a run that cannot start (e.g. its flow failed to load): stop reason Aborted, with `message`. */
    abort(message) {
      record('abort', message);
      stopCode.add(STOP_REASONS.indexOf('Aborted'));
    },

    /** Reports note `index` (0..9) in the summary. */
    note(index, text) {
      record(noteKey(index), text);
    },

    /** The summary, for handleSummary; `unit` says what one request is (lib/warmup-summary.js). */
    summary(data, unit = REQUEST_UNIT) {
      return buildSummary(data, s, unit);
    },
  };
}
