// head-of-line.js: does one slow blocking query on a Ktor request thread stall the requests queued
// behind that thread? (experiment 1: "head-of-line blocking in a Ktor handler")
//
// Sends one SLOW_SECONDS request, then FAST_REQUESTS concurrent FAST_SECONDS requests (one
// connection each, so some land on the blocked thread), first against /sleep-sync (the query runs
// on the request thread), then against /sleep-async (the query runs in withContext(Dispatchers.IO)).
// Published, with 8 request threads, a 20 s query and 50 x 0.1 s: sync p90 18,699 ms, p100 19,138 ms;
// async p100 689 ms. Run the service with CALL_GROUP_SIZE=8 to match.
//
// Env: BASE_URL (lib/config.js), SLOW_SECONDS (20), FAST_SECONDS (0.1), FAST_REQUESTS (50),
//      SUMMARY_PATH (JSON summary), HEADERS (extra request headers)
// Run: CALL_GROUP_SIZE=8 make run-sample   then
//      k6 run --no-usage-report k6-scripts/head-of-line.js
// The thresholds assert the asymmetry: some sync fast request waited for most of the slow one,
// and no async fast request did.
import http from 'k6/http';
import { check } from 'k6';
import { baseUrl, extraHeaders, positiveNumber } from './lib/config.js';
import { metricValues, ms, summaryOutputs, trendStats } from './lib/summary.js';

const slowSeconds = positiveNumber('SLOW_SECONDS', 20);
const fastSeconds = positiveNumber('FAST_SECONDS', 0.1);
const fastRequests = positiveNumber('FAST_REQUESTS', 50);
const slowMs = slowSeconds * 1000;

// the fast burst starts once the slow request holds its thread; the async phase starts after the sync one ends
const burstDelaySeconds = 1;
const asyncStartSeconds = Math.ceil(slowSeconds + burstDelaySeconds + fastSeconds * fastRequests + 5);

function phase(route, mode, startSeconds) {
  const common = { executor: 'per-vu-iterations', iterations: 1, maxDuration: `${slowSeconds * 2 + 30}s`, env: { ROUTE: route } };
  return {
    [`${mode}_slow`]: { ...common, vus: 1, startTime: `${startSeconds}s`, exec: 'slowRequest', tags: { mode, kind: 'slow' } },
    [`${mode}_fast`]: {
      ...common,
      vus: fastRequests,
      startTime: `${startSeconds + burstDelaySeconds}s`,
      exec: 'fastRequest',
      tags: { mode, kind: 'fast' },
    },
  };
}

export const options = {
  scenarios: { ...phase('/sleep-sync', 'sync', 0), ...phase('/sleep-async', 'async', asyncStartSeconds) },
  summaryTrendStats: trendStats,
  thresholds: {
    // a fast request stuck behind the slow one waited for most of what was left of it
    'http_req_duration{mode:sync,kind:fast}': [`max>=${(slowMs - burstDelaySeconds * 1000) * 0.8}`],
    // with the query off the request thread, no fast request waited for the slow one
    'http_req_duration{mode:async,kind:fast}': [`max<${slowMs * 0.5}`],
    'http_req_duration{kind:slow}': ['max>0'],
    checks: ['rate==1'],
  },
};

function sleepRequest(seconds) {
  const res = http.get(`${baseUrl}${__ENV.ROUTE}/${seconds}`, {
    headers: extraHeaders,
    timeout: `${slowSeconds * 2 + 30}s`,
    tags: { name: `${__ENV.ROUTE}/{seconds}` },
  });
  check(res, { 'status is 200': (r) => r.status === 200 });
}

export function slowRequest() {
  sleepRequest(slowSeconds);
}

export function fastRequest() {
  sleepRequest(fastSeconds);
}

export function handleSummary(data) {
  const stats = (selector) => {
    const v = metricValues(data, `http_req_duration{${selector}}`) || {};
    return { p50: ms(v['p(50)']), p90: ms(v['p(90)']), p95: ms(v['p(95)']), p100: ms(v.max), count: v.count ?? null };
  };
  return summaryOutputs('head-of-line.js', data, {
    slowSeconds,
    fastSeconds,
    fastRequests,
    syncFast: stats('mode:sync,kind:fast'),
    asyncFast: stats('mode:async,kind:fast'),
  });
}
