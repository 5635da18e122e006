// threads-under-load.js: how many threads, and how much reserved stack, does waiting on a slow
// downstream cost, thread-per-request versus event loop? (experiment 4: 200 req/s to a 1 s downstream;
// published: thread-per-request 310 threads and 318 MB of stack, event loop 66 threads and 67 MB)
//
// For each mode (event-loop first, then thread-per-request, whose idle threads die after 2 s),
// RATE requests/s for DURATION seconds go to /relay?mode=...&ms=DOWNSTREAM_MS, which waits on the
// service's own /slow. Meanwhile /threads is sampled 5 times a second; the summary reports the
// highest live thread count and reserved stack seen in each mode.
//
// Env: BASE_URL, RATE (200), DURATION (seconds, 5), DOWNSTREAM_MS (1000), SUMMARY_PATH, HEADERS
// Run: k6 run --no-usage-report k6-scripts/threads-under-load.js
import http from 'k6/http';
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import { baseUrl, extraHeaders, positiveNumber } from './lib/config.js';
import { metricValues, ms, summaryOutputs, trendStats } from './lib/summary.js';

const rate = positiveNumber('RATE', 200);
const durationSeconds = positiveNumber('DURATION', 5);
const downstreamMs = positiveNumber('DOWNSTREAM_MS', 1000);
const modes = ['event-loop', 'thread-per-request'];
// the next mode starts once the previous one's requests have drained and its threads have idled out
const phaseSeconds = durationSeconds + Math.ceil(downstreamMs / 1000) + 5;
const samplesPerSecond = 5;

const liveThreads = new Trend('live_threads');
const reservedStackMb = new Trend('reserved_stack_mb');

function scenariosFor(mode, index) {
  const start = `${index * phaseSeconds}s`;
  return {
    [`load_${mode}`]: {
      executor: 'constant-arrival-rate',
      rate,
      timeUnit: '1s',
      duration: `${durationSeconds}s`,
      preAllocatedVUs: Math.ceil((rate * downstreamMs) / 1000) + 20,
      maxVUs: Math.ceil((rate * downstreamMs) / 1000) * 4 + 50,
      startTime: start,
      exec: 'relay',
      env: { MODE: mode },
      tags: { mode },
    },
    [`sample_${mode}`]: {
      executor: 'constant-arrival-rate',
      rate: samplesPerSecond,
      timeUnit: '1s',
      duration: `${durationSeconds + Math.ceil(downstreamMs / 1000)}s`,
      preAllocatedVUs: 2,
      maxVUs: 5,
      startTime: start,
      exec: 'sample',
      env: { MODE: mode },
      tags: { mode },
    },
  };
}

export const options = {
  scenarios: Object.assign({}, ...modes.map(scenariosFor)),
  summaryTrendStats: trendStats,
  thresholds: Object.assign(
    { checks: ['rate>0.99'] },
    ...modes.map((mode) => ({
      [`live_threads{mode:${mode}}`]: ['max>0'],
      [`reserved_stack_mb{mode:${mode}}`]: ['max>0'],
      [`http_req_duration{mode:${mode},name:/relay}`]: ['p(95)>0'],
    })),
  ),
};

export function relay() {
  const res = http.get(`${baseUrl}/relay?mode=${__ENV.MODE}&ms=${downstreamMs}`, {
    headers: extraHeaders,
    timeout: '60s',
    tags: { name: '/relay' },
  });
  check(res, { 'relay status is 200': (r) => r.status === 200 });
}

export function sample() {
  const res = http.get(`${baseUrl}/threads`, { headers: extraHeaders, tags: { name: '/threads' } });
  if (!check(res, { 'threads status is 200': (r) => r.status === 200 })) return;
  const snapshot = res.json();
  liveThreads.add(snapshot.liveThreads, { mode: __ENV.MODE });
  reservedStackMb.add(snapshot.reservedStackBytes / (1024 * 1024), { mode: __ENV.MODE });
}

export function handleSummary(data) {
  const report = { rate, durationSeconds, downstreamMs };
  for (const mode of modes) {
    const threads = metricValues(data, `live_threads{mode:${mode}}`) || {};
    const stack = metricValues(data, `reserved_stack_mb{mode:${mode}}`) || {};
    const latency = metricValues(data, `http_req_duration{mode:${mode},name:/relay}`) || {};
    report[mode] = {
      peakLiveThreads: threads.max ?? null,
      peakReservedStackMb: ms(stack.max),
      relayP50Ms: ms(latency['p(50)']),
      relayP95Ms: ms(latency['p(95)']),
      requests: latency.count ?? null,
    };
  }
  return summaryOutputs('threads-under-load.js', data, report);
}
