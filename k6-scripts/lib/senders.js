// How warmup.js sends: the open-model passes and the closed-loop warm-up. No k6 imports: the caller
// passes `send`, `sleep` and `now`, so node can test the loops with a fake pod
// (operator/src/test/js/senders.test.mjs).
//
// `send(i)` sends request i of the phase and resolves to {ok: boolean, ms: number}; it never rejects.

import { cpuStopReason, jitQuiet, lastWindows, percentile, targetReached, throughputStopReason } from './convergence.js';

/** Answers needed before the error ratio may stop a phase: one unlucky first request must not. */
export const MIN_ANSWERS_TO_ABORT = 20;

/** Counts a phase's answers and decides when too many of them failed. */
export class Tally {
  constructor(maxErrorRatio) {
    this.maxErrorRatio = maxErrorRatio;
    this.answered = 0;
    this.failures = 0;
  }

  add(ok) {
    this.answered++;
    if (!ok) this.failures++;
  }

  /** Too many failed: `atLeast` answers seen (fewer when the phase sent fewer) and a ratio above the limit. */
  tooManyFailed(atLeast = MIN_ANSWERS_TO_ABORT) {
    return this.answered >= atLeast && this.answered > 0 && this.failures / this.answered > this.maxErrorRatio;
  }
}

/**
 * Open model, for the measured passes: request i leaves at start + i/perSecond whether or not earlier
 * ones answered, as real users arrive. Returns {sent, aborted}; `sent` < count when the deadline cut it.
 */
export async function openPass({ send, sleep, now }, { count, perSecond, deadline, maxInFlight, maxErrorRatio }) {
  const start = now();
  const interval = 1000 / perSecond;
  const tally = new Tally(maxErrorRatio);
  const inFlight = new Set();
  let sent = 0;
  for (let i = 0; i < count; i++) {
    if (tally.tooManyFailed()) break;
    const wait = start + i * interval - now();
    if (wait > 0) await sleep(wait);
    if (now() >= deadline) break;
    while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    sent++;
    const request = send(i).then((answer) => tally.add(answer.ok)).finally(() => inFlight.delete(request));
    inFlight.add(request);
  }
  await Promise.all([...inFlight]);
  return { sent, aborted: tally.tooManyFailed(Math.min(MIN_ANSWERS_TO_ABORT, sent)) };
}

/**
 * Closed pass, for the warm figures when the cold ones came from the warm-up: `count` requests with
 * `concurrency` in flight, the next sent as soon as one answers, so both figures are taken the same way
 * (a loaded pod's latency under a closed loop is bounded by its concurrency, an open pass's is not).
 * Returns {sent, aborted}, as openPass does; `sent` < count when the deadline cut it.
 */
export async function closedPass(deps, { count, concurrency, ceilingRate, deadline, maxErrorRatio }) {
  // the loop without its stop rules (asked only after minRequests) and without the JIT scrape: it ends at the count
  const result = await closedLoop({ send: deps.send, sleep: deps.sleep, now: deps.now }, {
    concurrency, ceilingRate, minRequests: Infinity, maxRequests: count, blockSize: count, maxErrorRatio, deadline,
  });
  return { sent: result.sent, aborted: result.stopReason === 'Aborted' };
}

/**
 * Closed loop, for the warm-up: `concurrency` requests in flight, the next sent as soon as one answers,
 * never faster than `ceilingRate` per second. The pod takes no users yet, so it is fed as fast as it
 * answers; the ceiling keeps a fast pod's warm-up from costing more than the plan allows.
 *
 * After every `blockSize` answers the stop rules are asked (never before `minRequests` were sent): a
 * target P95 stops at once; otherwise the throughput rule (convergence.js), and with `scrapeJit` also the
 * JIT rule: the compiler quiet as well as the throughput flat. When the page has the process CPU counter
 * too, the CPU rule judges in the throughput rule's place: the compiler quiet and the CPU per request flat,
 * which a change in the pod's share of the CPU does not move. Returns the evidence of why it stopped.
 *
 * @param {object} deps  {send, sleep, now, scrapeJit?}; scrapeJit() resolves to {ms, metric, cpuMs, cpuMetric}
 *                       (lib/jit.js readPage; cpuMs null when the page has no CPU counter) or {error}
 * @param {object} s     settings: concurrency, ceilingRate, minRequests, maxRequests, blockSize, tolerance,
 *                       window, targetP95, jitQuietShare, jitQuietBlocks, maxErrorRatio, deadline
 */
export async function closedLoop(deps, s) {
  const { send, sleep, now } = deps;
  const start = now();
  const interval = s.ceilingRate > 0 ? 1000 / s.ceilingRate : 0;
  const tally = new Tally(s.maxErrorRatio);
  const blocks = new Blocks(s, start);
  const state = { reserved: 0, sent: 0, stop: null };
  const quiet = { quietShare: s.jitQuietShare, quietBlocks: s.jitQuietBlocks };
  // the CPU rule is asked when a scrape's figures arrive, not at the block end that started it: a block sooner
  const judgeCost = () => {
    if (state.stop || state.sent < s.minRequests || !jit.cpuLive()) return;
    if (cpuStopReason(jit.costs, s) && jitQuiet(jit.shares, quiet)) state.stop = 'JitSettled';
  };
  const jit = deps.scrapeJit ? new JitWatch(deps.scrapeJit, now, () => tally.answered, judgeCost) : null;
  if (jit) jit.scrape();

  const onAnswer = (answer) => {
    tally.add(answer.ok);
    if (tally.tooManyFailed()) state.stop = state.stop || 'Aborted';
    if (!blocks.add(answer, now()) || state.stop) return;
    if (jit && !jit.failed) jit.scrape();
    if (state.sent < s.minRequests) return;
    if (targetReached(blocks.p95s, s.targetP95)) {
      state.stop = 'TargetReached';
    } else if (jit && jit.cpuLive()) {
      // judgeCost decides, when this block's scrape answers
    } else if (throughputStopReason(blocks.rates, s)) {
      // with the JIT counter, a flat throughput is not enough: the compiler must have gone quiet too
      if (!jit || jit.failed) state.stop = 'Converged';
      else if (jitQuiet(jit.shares, quiet)) state.stop = 'JitSettled';
    }
  };

  const worker = async () => {
    // the cap ends a worker without stopping the others: they still send the requests they reserved
    while (!state.stop && state.reserved < s.maxRequests) {
      const wait = start + state.reserved++ * interval - now();
      if (wait > 0) await sleep(wait);
      if (state.stop) break;
      if (now() >= s.deadline) {
        state.stop = 'Timeout';
        break;
      }
      const i = state.sent++;
      onAnswer(await send(i));
    }
  };
  await Promise.all(Array.from({ length: s.concurrency }, worker));
  if (jit) await jit.settled();
  return {
    stopReason: state.stop || 'MaxRequests',
    sent: state.sent,
    answered: tally.answered,
    failures: tally.failures,
    seconds: (now() - start) / 1000,
    blocks: blocks.p95s,
    rates: blocks.rates,
    lastBlockP95: blocks.p95s.length ? blocks.p95s[blocks.p95s.length - 1] : null,
    lastBlockRate: blocks.rates.length ? blocks.rates[blocks.rates.length - 1] : null,
    ...blocks.windows(s.window),
    ...(jit ? jit.costWindows(s.window) : { recentCpuPerRequest: null, earlierCpuPerRequest: null }),
    jit: jit ? jit.evidence() : null,
  };
}

/**
 * The warm-up's answers cut into blocks of `blockSize`: each block's P95 of successful answers, and its
 * throughput (answers per second since the previous block ended).
 */
class Blocks {
  constructor(s, start) {
    this.size = s.blockSize;
    this.current = [];
    this.answers = 0;
    this.endedAt = start;
    this.p95s = [];
    this.rates = [];
  }

  /** Adds an answer that came at `t` (ms); true when it closed a block. */
  add(answer, t) {
    this.answers++;
    if (answer.ok) this.current.push(answer.ms);
    if (this.answers < this.size) return false;
    const latencies = this.current.sort((a, b) => a - b);
    const seconds = Math.max(t - this.endedAt, 1) / 1000;
    this.current = [];
    this.answers = 0;
    this.endedAt = t;
    // a block of only failures has no latency; the error ratio stops such a warm-up anyway
    if (latencies.length === 0) return false;
    this.p95s.push(percentile(latencies, 95));
    this.rates.push(this.size / seconds);
    return true;
  }

  /** The two windows' median throughputs the rule compared last: what the evidence shows. */
  windows(window) {
    const { recent, earlier } = lastWindows(this.rates, window);
    return { recentRate: recent, earlierRate: earlier };
  }
}

/** Scrapes failing in a row before the warm-up falls back to the throughput rule alone. */
const MAX_JIT_FAILURES = 3;

/**
 * Scrapes the pod's metrics page at block ends, one scrape at a time, and keeps, between two scrapes, the
 * compile time as a share of the wall time, and the process CPU per answer (when the page has the counter).
 */
class JitWatch {
  constructor(scrapeJit, now, answered, onRecord) {
    this.scrapeJit = scrapeJit;
    this.now = now;
    this.answered = answered;
    this.onRecord = onRecord;
    this.inFlight = null;
    this.first = null;
    this.last = null;
    this.shares = [];
    this.costs = [];
    this.cpuLost = false;
    this.failuresInRow = 0;
    this.failed = false;
    this.error = null;
  }

  /** Starts a scrape unless one is under way. */
  scrape() {
    if (this.inFlight || this.failed) return;
    const answeredBefore = this.answered();
    this.inFlight = this.scrapeJit().then((answer) => {
      this.inFlight = null;
      // the page was read somewhere between the request and its answer, so were the answers it counted
      this.record(answer, this.now(), (answeredBefore + this.answered()) / 2);
      this.onRecord();
    });
  }

  /** Whether the CPU rule can judge: the page had the CPU counter on every scrape, and the scrapes still work. */
  cpuLive() {
    return !this.failed && !this.cpuLost && this.first !== null && this.first.cpuMs !== null;
  }

  record(answer, t, answers = 0) {
    if (answer.error) {
      this.error = answer.error;
      this.failuresInRow++;
      // the first scrape has no baseline to fall back on: the page is wrong, not slow
      if (this.first === null || this.failuresInRow >= MAX_JIT_FAILURES) this.failed = true;
      return;
    }
    this.failuresInRow = 0;
    const cpuMs = answer.cpuMs ?? null;
    const sample = { t, ms: answer.ms, metric: answer.metric, cpuMs, cpuMetric: answer.cpuMetric ?? null, answers };
    if (this.first === null) this.first = sample;
    // a page that loses its CPU counter leaves the CPU rule for good: costs across the gap mean nothing
    if (this.first.cpuMs !== null && cpuMs === null) this.cpuLost = true;
    if (this.last !== null && t > this.last.t) this.shares.push((sample.ms - this.last.ms) / (t - this.last.t));
    if (this.cpuLive() && this.last !== null && answers > this.last.answers) {
      this.costs.push((cpuMs - this.last.cpuMs) / (answers - this.last.answers));
    }
    this.last = sample;
  }

  /** The two windows' median CPU ms per answer the CPU rule compared last. */
  costWindows(window) {
    const { recent, earlier } = lastWindows(this.costs, window);
    return { recentCpuPerRequest: recent, earlierCpuPerRequest: earlier };
  }

  async settled() {
    if (this.inFlight) await this.inFlight;
  }

  evidence() {
    const scraped = this.first !== null && this.last !== null;
    return {
      metric: this.first ? this.first.metric : null,
      compileMs: scraped ? this.last.ms - this.first.ms : null,
      lastShare: this.shares.length ? this.shares[this.shares.length - 1] : null,
      scrapes: this.shares.length + (this.first ? 1 : 0),
      cpuMetric: this.first && !this.cpuLost ? this.first.cpuMetric : null,
      error: this.failed ? this.error : null,
    };
  }
}
