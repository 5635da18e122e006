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
//   RATE      requests per second; unset sends them back to back from one virtual user
//   WARMUP_HEADER  '1' (default) adds X-Danki-Warmup: 1, so the service rolls back its writes
//
// Run: k6 run --no-usage-report -e BASE_URL=http://198.18.0.12:8080 -e COUNT=100 \
//        -e PATHS='GET /exams/1' bench/warmup/fixed-warmup.js
import http from 'k6/http';
import exec from 'k6/execution';
import { baseUrl, extraHeaders, positiveNumber, summaryPath } from '../../k6-scripts/lib/config.js';

const count = positiveNumber('COUNT', 3);
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
      : { executor: 'shared-iterations', vus: 1, iterations: count, maxDuration: '10m' },
  },
  summaryTrendStats: ['p(25)', 'p(50)', 'p(75)', 'p(90)', 'p(95)', 'max', 'count'],
};

/** Parses the danki.dev/paths format into [{method, path, body}]. */
function parsePaths(raw) {
  const separator = raw.includes('\n') ? '\n' : ';';
  return raw.split(separator).map((s) => s.trim()).filter((s) => s).map((entry) => {
    const match = entry.match(/^(\S+)\s+(\S+)\s*(.*)$/);
    if (!match) throw new Error(`PATHS entry '${entry}': expected 'METHOD /path [JSON body]'`);
    return { method: match[1].toUpperCase(), path: match[2], body: match[3] || null };
  });
}

export default function () {
  const i = exec.scenario.iterationInTest;
  const r = requests[i % requests.length];
  http.request(r.method, `${baseUrl}${r.path}`, r.body, { headers, tags: { name: `${r.method} ${r.path}` } });
}

export function handleSummary(data) {
  return summaryPath ? { [summaryPath]: JSON.stringify(data, null, 1) } : {};
}
