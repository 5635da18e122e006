// fixed-warmup.js - a warm-up of a fixed number of requests, the way simpler warm-up tools do it.
//
// Question: how warm does a pod get from exactly COUNT requests (3, as the closest existing
// operator sends by default, or 100)? The benchmark also uses it, with a rate, to bring a pod to
// its fully warm steady state before measuring that, and with COUNT=1 to time k6's own start-up.
//
// Env (on top of lib/config.js: BASE_URL, HEADERS, SUMMARY_PATH):
//   COUNT     requests to send (default 3)
//   PATHS     'METHOD /path [JSON body]' entries, separated by ';' or newlines, sent in turn;
//             the same format as the danki.dev/paths annotation (default 'GET /')
//   RATE      requests per second (open model); unset sends them back to back from VUS virtual users
//   VUS       virtual users sending back to back when RATE is unset (default 1): a closed loop
//   MAX_RATE  with RATE unset: requests per second never exceeded, e.g. 100 with VUS=1 is "one at a
//             time, at most 100/s", the way a simple serial warmer sends
//   WARMUP_HEADER  '1' (default) adds X-Danki-Warmup: 1, so the service rolls back its writes
//
// Run: k6 run --no-usage-report -e BASE_URL=http://198.18.0.12:8080 -e COUNT=100 \
//        -e PATHS='GET /exams/1' bench/warmup/fixed-warmup.js
import http from 'k6/http';
import { sleep } from 'k6';
import exec from 'k6/execution';
import { baseUrl, extraHeaders, positiveNumber, summaryPath } from '../../k6-scripts/lib/config.js';
import { parsePaths } from '../../k6-scripts/lib/paths.js';

const count = positiveNumber('COUNT', 3);
const maxRate = __ENV.MAX_RATE && !__ENV.RATE ? positiveNumber('MAX_RATE', 100) : 0;
const requests = parsePaths(__ENV.PATHS || 'GET /');
const headers = Object.assign({ 'Content-Type': 'application/json' }, extraHeaders,
  (__ENV.WARMUP_HEADER || '1') === '1' ? { 'X-Danki-Warmup': '1' } : {});

export const options = {
  scenarios: {
    fixed: __ENV.RATE
      ? {
        executor: 'constant-arrival-rate', rate: positiveNumber('RATE', 20), timeUnit: '1s',
        duration: `${Math.round((count * 1000) / positiveNumber("RATE", 20)) - 1}ms`, // the last start falls inside
        preAllocatedVUs: 20, maxVUs: 200,
      }
      : { executor: 'shared-iterations', vus: Math.round(positiveNumber('VUS', 1)), iterations: count, maxDuration: '10m' },
  },
  summaryTrendStats: ['p(25)', 'p(50)', 'p(75)', 'p(90)', 'p(95)', 'max', 'count'],
};

export default function () {
  const i = exec.scenario.iterationInTest;
  if (maxRate) {
    const wait = exec.scenario.startTime + (i * 1000) / maxRate - Date.now();
    if (wait > 0) sleep(wait / 1000);
  }
  const r = requests[i % requests.length];
  http.request(r.method, `${baseUrl}${r.path}`, r.body, { headers, tags: { name: `${r.method} ${r.path}` } });
}

export function handleSummary(data) {
  return summaryPath ? { [summaryPath]: JSON.stringify(data, null, 1) } : {};
}
