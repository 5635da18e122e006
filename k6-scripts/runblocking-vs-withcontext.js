// runblocking-vs-withcontext.js: how much slower is runBlocking in a handler than withContext under
// load? (experiment 2: 100 parallel 3 s requests; published: runBlocking 40.6 s in total, withContext 7.3 s)
//
// CONCURRENCY requests at once to /withcontext/{SECONDS}, then, once that phase is over, to
// /runblocking/{SECONDS}. Total time of a phase = from its start to its last response. runBlocking
// parks the request thread for the whole query, so a phase takes about
// CONCURRENCY x SECONDS / CALL_GROUP_SIZE; withContext frees it, so the phase is bounded by
// Dispatchers.IO (64 threads) and DB_POOL_SIZE instead. Run the service with CALL_GROUP_SIZE=8 and
// DB_POOL_SIZE=64 to compare with the published run.
//
// Env: BASE_URL, SECONDS (3), CONCURRENCY (100), PHASE_GAP_SECONDS (start of the runBlocking phase;
//      default 4 x SECONDS + 8), SUMMARY_PATH, HEADERS
// Run: k6 run --no-usage-report k6-scripts/runblocking-vs-withcontext.js
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { Trend } from 'k6/metrics';
import { baseUrl, extraHeaders, positiveNumber } from './lib/config.js';
import { metricValues, ms, summaryOutputs, trendStats } from './lib/summary.js';

const seconds = positiveNumber('SECONDS', 3);
const concurrency = positiveNumber('CONCURRENCY', 100);
const gapSeconds = positiveNumber('PHASE_GAP_SECONDS', Math.ceil(seconds * 4 + 8));
// runBlocking is expected to take CONCURRENCY x SECONDS / threads: leave room for 2 request threads
const runBlockingMaxSeconds = Math.ceil((concurrency * seconds) / 2 + 30);

/** Milliseconds from a phase's start to each response: the max is the phase's total time. */
const phaseTotal = new Trend('phase_total_time', true);

function phase(route, startSeconds, maxSeconds) {
  return {
    executor: 'per-vu-iterations',
    vus: concurrency,
    iterations: 1,
    startTime: `${startSeconds}s`,
    maxDuration: `${maxSeconds}s`,
    env: { ROUTE: route },
    tags: { route },
  };
}

export const options = {
  scenarios: {
    withcontext: phase('/withcontext', 0, gapSeconds - 1),
    runblocking: phase('/runblocking', gapSeconds, runBlockingMaxSeconds),
  },
  summaryTrendStats: trendStats,
  thresholds: {
    'phase_total_time{route:/withcontext}': ['max>0'],
    // runBlocking holds a request thread per request, so its phase must take longer
    'phase_total_time{route:/runblocking}': [`max>${seconds * 1000 * 1.5}`],
    checks: ['rate==1'],
  },
};

export default function () {
  const route = __ENV.ROUTE;
  const res = http.get(`${baseUrl}${route}/${seconds}`, {
    headers: extraHeaders,
    timeout: `${runBlockingMaxSeconds}s`,
    tags: { name: `${route}/{seconds}` },
  });
  check(res, { 'status is 200': (r) => r.status === 200 });
  phaseTotal.add(Date.now() - exec.scenario.startTime, { route });
}

export function handleSummary(data) {
  const total = (route) => ms((metricValues(data, `phase_total_time{route:${route}}`) || {}).max);
  const withContextMs = total('/withcontext');
  const runBlockingMs = total('/runblocking');
  return summaryOutputs('runblocking-vs-withcontext.js', data, {
    seconds,
    concurrency,
    withContextTotalMs: withContextMs,
    runBlockingTotalMs: runBlockingMs,
    ratio: withContextMs ? Math.round((runBlockingMs / withContextMs) * 10) / 10 : null,
  });
}
