// Unit tests of the warm-up's senders in k6-scripts/lib/senders.js against a fake pod on a virtual
// clock, so they run in milliseconds and never depend on the machine's speed
// (run: make test-unit-operator-js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closedLoop, closedPass, openPass } from '../../../../k6-scripts/lib/senders.js';

/** A virtual clock: sleep() schedules, run() advances time to the next timer whenever nothing else can run. */
function virtualClock() {
  let t = 0;
  const timers = [];
  const sleep = (ms) => new Promise((resolve) => timers.push({ at: t + Math.max(0, ms), resolve }));
  const now = () => t;
  async function run(promise) {
    let done = false;
    let result;
    let error;
    promise.then((r) => { done = true; result = r; }, (e) => { done = true; error = e; });
    for (let steps = 0; steps < 1e6; steps++) {
      await new Promise((r) => setImmediate(r));
      if (done) break;
      assert.ok(timers.length > 0, 'nothing scheduled and not done: the loop is stuck');
      timers.sort((a, b) => a.at - b.at);
      const next = timers.shift();
      t = Math.max(t, next.at);
      next.resolve();
    }
    if (error) throw error;
    return result;
  }
  return { sleep, now, run };
}

/** A fake pod: request i answers after latency(i) ms, ok unless failing(i); it counts what it saw. */
function fakePod(clock, latency, failing = () => false) {
  const pod = { inFlight: 0, maxInFlight: 0, sentAt: [] };
  pod.send = async (i) => {
    pod.sentAt.push(clock.now());
    pod.inFlight++;
    pod.maxInFlight = Math.max(pod.maxInFlight, pod.inFlight);
    const ms = latency(i);
    await clock.sleep(ms);
    pod.inFlight--;
    return { ok: !failing(i), ms };
  };
  return pod;
}

const settings = {
  concurrency: 4, ceilingRate: 100000, minRequests: 0, maxRequests: 100000, blockSize: 100, tolerance: 0.05,
  window: 3, targetP95: 0, jitQuietShare: 0.5, jitQuietBlocks: 2, maxErrorRatio: 0.05, deadline: 1e12,
};

/** A pod whose latency falls as it warms, from `cold` ms to `warm` ms by request `by`, then stays. */
const warming = (cold, warm, by) => (i) => Math.max(warm, cold - ((cold - warm) * i) / by);

test('the closed loop keeps exactly `concurrency` requests in flight and sends the next at each answer', async () => {
  const clock = virtualClock();
  const pod = fakePod(clock, () => 10);
  const result = await clock.run(closedLoop({ ...clock, send: pod.send }, { ...settings, minRequests: 1e9, maxRequests: 400 }));
  assert.equal(pod.maxInFlight, 4);
  assert.equal(result.sent, 400);
  assert.equal(result.stopReason, 'MaxRequests');
  // 400 requests, 4 at a time, 10 ms each: 1 s, as fast as the pod answers
  assert.ok(Math.abs(result.seconds - 1) < 0.01, `took ${result.seconds} s`);
});

test('the ceiling rate holds a fast pod back', async () => {
  const clock = virtualClock();
  const pod = fakePod(clock, () => 1);
  const result = await clock.run(closedLoop({ ...clock, send: pod.send },
    { ...settings, concurrency: 8, ceilingRate: 100, maxRequests: 200 }));
  assert.equal(result.sent, 200);
  assert.ok(result.seconds >= 1.99, `took ${result.seconds} s, expected about 2 s at 100/s`);
});

test('the throughput rule stops once the pod stops getting faster, after whole blocks', async () => {
  const clock = virtualClock();
  // 4 in flight: 100 ms a request (40/s) falling to 5 ms (800/s) by request 1000
  const pod = fakePod(clock, warming(100, 5, 1000));
  const result = await clock.run(closedLoop({ ...clock, send: pod.send }, settings));
  assert.equal(result.stopReason, 'Converged');
  // the last rising block ends at 1000; the windows of three that follow it (1100-1300, 1400-1600) are flat
  assert.ok(result.sent >= 1500 && result.sent <= 1700, `stopped after ${result.sent}`);
  assert.equal(result.lastBlockRate, 800);
  assert.equal(result.recentRate, 800);
  assert.equal(result.earlierRate, 800);
  assert.equal(result.lastBlockP95, 5);
});

test('one lucky block neither stops the warm-up nor holds it up', async () => {
  const clock = virtualClock();
  // warming until 1500; requests 300-399 answer at once, a block far faster than the pod then is
  const pod = fakePod(clock, (i) => (i >= 300 && i < 400 ? 1 : warming(100, 5, 1500)(i)));
  const result = await clock.run(closedLoop({ ...clock, send: pod.send }, settings));
  assert.equal(result.stopReason, 'Converged');
  assert.ok(result.sent >= 1500, `stopped after ${result.sent}, while the pod still got faster`);
  assert.ok(result.sent <= 2200, `stopped after ${result.sent}`);
});

test('no rule is asked before the minimum of warm-up requests', async () => {
  const clock = virtualClock();
  const pod = fakePod(clock, () => 5);
  const result = await clock.run(closedLoop({ ...clock, send: pod.send }, { ...settings, minRequests: 1500 }));
  assert.equal(result.stopReason, 'Converged');
  assert.ok(result.sent >= 1500 && result.sent < 1600, `stopped after ${result.sent}`);
});

test('a steady pod stops as soon as there are two windows to compare', async () => {
  const clock = virtualClock();
  const pod = fakePod(clock, () => 5);
  const result = await clock.run(closedLoop({ ...clock, send: pod.send }, settings));
  assert.equal(result.stopReason, 'Converged');
  assert.ok(result.sent >= 600 && result.sent < 700, `stopped after ${result.sent}`);
});

test('a pod that keeps getting faster is capped at the maximum', async () => {
  const clock = virtualClock();
  const pod = fakePod(clock, (i) => 1000 / (1 + i / 50));
  const result = await clock.run(closedLoop({ ...clock, send: pod.send }, { ...settings, maxRequests: 2000 }));
  assert.equal(result.stopReason, 'MaxRequests');
  assert.equal(result.sent, 2000);
});

test('too many failed answers abort the warm-up', async () => {
  const clock = virtualClock();
  const pod = fakePod(clock, () => 5, (i) => i % 5 === 0);
  const result = await clock.run(closedLoop({ ...clock, send: pod.send }, settings));
  assert.equal(result.stopReason, 'Aborted');
  assert.ok(result.sent < 100, `sent ${result.sent} before aborting`);
});

test('the deadline stops the warm-up with Timeout', async () => {
  const clock = virtualClock();
  const pod = fakePod(clock, (i) => 1000 / (1 + i / 50));
  const result = await clock.run(closedLoop({ ...clock, send: pod.send }, { ...settings, deadline: 3000 }));
  assert.equal(result.stopReason, 'Timeout');
});

test('the JIT rule waits out a throughput plateau while the compiler is still busy', async () => {
  const clock = virtualClock();
  const pod = fakePod(clock, () => 5);
  // the compiler busy 90 % of the wall time until request 2000, then 1 %
  let compiled = 0;
  let last = 0;
  const scrapeJit = async () => {
    const t = clock.now();
    compiled += (t - last) * (pod.sentAt.length < 2000 ? 0.9 : 0.01);
    last = t;
    return { ms: compiled, metric: 'jvm_compilation_time_ms_total' };
  };
  const result = await clock.run(closedLoop({ ...clock, send: pod.send, scrapeJit }, settings));
  assert.equal(result.stopReason, 'JitSettled');
  assert.ok(result.sent >= 2100 && result.sent <= 2500, `stopped after ${result.sent}`);
  assert.equal(result.jit.metric, 'jvm_compilation_time_ms_total');
  assert.ok(result.jit.compileMs >= 200, `compile time ${result.jit.compileMs}`);
  assert.ok(result.jit.lastShare <= 0.5, `last share ${result.jit.lastShare}`);
  assert.equal(result.jit.error, null);
});

/**
 * A pod on a CPU quota, kept saturated by the closed loop: request i costs cost(i) CPU ms, and the pod has
 * share(t) CPU ms per ms, split among the requests in flight. Its metrics page counts the CPU it used and a
 * compiler that is quiet throughout, so only the CPU or the throughput rule decides.
 */
function quotaPod(clock, cost, share, { cpuCounter = () => true } = {}) {
  const pod = { cpuMs: 0, lastT: 0, inFlight: 0, sent: 0 };
  const burn = () => {
    const t = clock.now();
    if (pod.inFlight > 0) pod.cpuMs += (t - pod.lastT) * share(t);
    pod.lastT = t;
  };
  pod.send = async (i) => {
    burn();
    pod.inFlight++;
    pod.sent++;
    // the closed loop keeps settings.concurrency in flight, each with its part of the share
    const ms = (cost(i) * settings.concurrency) / share(clock.now());
    await clock.sleep(ms);
    burn();
    pod.inFlight--;
    return { ok: true, ms };
  };
  pod.scrape = async () => {
    burn();
    const page = { ms: clock.now() * 0.01, metric: 'jvm_compilation_time_ms_total', cpuMs: null, cpuMetric: null };
    if (cpuCounter(pod.sent)) Object.assign(page, { cpuMs: pod.cpuMs, cpuMetric: 'process_cpu_time_ns_total' });
    return page;
  };
  return pod;
}

/**
 * The closed loop, blocks of 200, on a quotaPod whose CPU share goes from `before` to `after` when request `at` is
 * sent; with the CPU counter on its page (the cpu rule) or without (the throughput rule, with the compiler).
 */
function shareChange(cost, { before, after, at }) {
  return async (withCpuCounter) => {
    const clock = virtualClock();
    let changedAt = null;
    const share = (t) => (changedAt !== null && t >= changedAt ? after : before);
    const pod = quotaPod(clock, cost, share, { cpuCounter: () => withCpuCounter });
    const send = (i) => {
      if (i === at) changedAt = clock.now();
      return pod.send(i);
    };
    return clock.run(closedLoop({ ...clock, send, scrapeJit: pod.scrape }, { ...settings, blockSize: 200, tolerance: 0.1 }));
  };
}

test('with the CPU counter, a pod whose CPU share halves while its code still gets faster keeps warming', async () => {
  // the cost falls from 20 to 2 CPU ms by request 3000; the node's other pod takes half the CPU from request 800
  const run = shareChange((i) => Math.max(2, 20 - (18 * i) / 3000), { before: 1, after: 0.5, at: 800 });
  const throughputRule = await run(false);
  assert.equal(throughputRule.stopReason, 'JitSettled');
  assert.ok(throughputRule.sent < 1800, `the throughput rule read the halved share as the end: ${throughputRule.sent}`);
  assert.equal(throughputRule.jit.cpuMetric, null);
  const cpuRule = await run(true);
  assert.equal(cpuRule.stopReason, 'JitSettled');
  assert.ok(cpuRule.sent >= 3000, `the CPU rule stopped after ${cpuRule.sent}`);
  assert.equal(cpuRule.jit.cpuMetric, 'process_cpu_time_ns_total');
  assert.ok(Math.abs(cpuRule.recentCpuPerRequest - 2) < 0.3, `recent CPU per request ${cpuRule.recentCpuPerRequest}`);
  assert.ok(cpuRule.earlierCpuPerRequest - cpuRule.recentCpuPerRequest <= 0.1 * cpuRule.recentCpuPerRequest);
});

test('with the CPU counter, a pod whose CPU share doubles once its code is done stops there', async () => {
  // flat cost from request 1000; a neighbour's start ends at request 1400 and doubles the pod's share
  const run = shareChange((i) => Math.max(3, 10 - (7 * i) / 1000), { before: 0.5, after: 1, at: 1400 });
  const throughputRule = await run(false);
  const cpuRule = await run(true);
  assert.ok(cpuRule.sent <= 2100, `the CPU rule stopped after ${cpuRule.sent}`);
  assert.ok(throughputRule.sent >= cpuRule.sent + 300,
    `the throughput rule read the doubled share as warming: ${throughputRule.sent} against ${cpuRule.sent}`);
});

test('a page that loses its CPU counter leaves the CPU rule for the throughput rule', async () => {
  const clock = virtualClock();
  const pod = quotaPod(clock, () => 5, () => 1, { cpuCounter: (sent) => sent < 500 });
  const result = await clock.run(closedLoop({ ...clock, send: pod.send, scrapeJit: pod.scrape }, settings));
  assert.equal(result.stopReason, 'JitSettled');
  assert.equal(result.jit.cpuMetric, null);
  assert.equal(result.jit.error, null);
});

test('a page without the JIT counter falls back to the throughput rule and says why', async () => {
  const clock = virtualClock();
  const pod = fakePod(clock, () => 5);
  const scrapeJit = async () => ({ error: { code: 2, detail: 0 } });
  const result = await clock.run(closedLoop({ ...clock, send: pod.send, scrapeJit }, settings));
  assert.equal(result.stopReason, 'Converged');
  assert.deepEqual(result.jit.error, { code: 2, detail: 0 });
});

test('the open pass sends on schedule whatever the answers take', async () => {
  const clock = virtualClock();
  const pod = fakePod(clock, () => 500);
  const result = await clock.run(openPass({ ...clock, send: pod.send },
    { count: 10, perSecond: 10, deadline: 1e12, maxInFlight: 256, maxErrorRatio: 0.05 }));
  assert.deepEqual(result, { sent: 10, aborted: false });
  assert.deepEqual(pod.sentAt, [0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
});

test('the open pass stops at its deadline and at too many failures', async () => {
  let clock = virtualClock();
  let pod = fakePod(clock, () => 5);
  assert.deepEqual(await clock.run(openPass({ ...clock, send: pod.send },
    { count: 100, perSecond: 10, deadline: 2000, maxInFlight: 256, maxErrorRatio: 0.05 })), { sent: 20, aborted: false });
  clock = virtualClock();
  pod = fakePod(clock, () => 5, () => true);
  const failing = await clock.run(openPass({ ...clock, send: pod.send },
    { count: 100, perSecond: 100, deadline: 1e12, maxInFlight: 256, maxErrorRatio: 0.05 }));
  assert.equal(failing.aborted, true);
  assert.ok(failing.sent < 100);
});

test('the closed pass sends its count, `concurrency` at a time, without asking any stop rule', async () => {
  const clock = virtualClock();
  // a pod that is flat from the start would have stopped a warm-up at its first verdict
  const pod = fakePod(clock, () => 10);
  const result = await clock.run(closedPass({ ...clock, send: pod.send },
    { count: 1000, concurrency: 4, ceilingRate: 100000, deadline: 1e12, maxErrorRatio: 0.05 }));
  assert.deepEqual(result, { sent: 1000, aborted: false });
  assert.equal(pod.maxInFlight, 4);
  // 1,000 requests of 10 ms, 4 at a time: 2.5 s
  assert.ok(Math.abs(clock.now() - 2500) < 1, `took ${clock.now()} ms`);
});

test('the closed pass stops at its deadline and at too many failures', async () => {
  let clock = virtualClock();
  let pod = fakePod(clock, () => 10);
  assert.deepEqual(await clock.run(closedPass({ ...clock, send: pod.send },
    { count: 100, concurrency: 4, ceilingRate: 100000, deadline: 100, maxErrorRatio: 0.05 })), { sent: 40, aborted: false });
  clock = virtualClock();
  pod = fakePod(clock, () => 5, () => true);
  const failing = await clock.run(closedPass({ ...clock, send: pod.send },
    { count: 100, concurrency: 4, ceilingRate: 100000, deadline: 1e12, maxErrorRatio: 0.05 }));
  assert.equal(failing.aborted, true);
  assert.ok(failing.sent < 100);
});
