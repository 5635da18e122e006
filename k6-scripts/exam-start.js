// exam-start.js: how slow is the exam flow when a pod starts, compared with a warm pod?
// (experiment 5: 100 requests at 20 rps; published P95 cold 3,045 ms, fully warm 94 ms)
//
// Each iteration is one candidate starting an exam: GET /exams/{id}, then POST /exams/{id}/answers
// with a full answer sheet (validated, scored and stored by the service). Iterations arrive at a
// fixed RATE for DURATION seconds (20 x 5 = 100 flows), whatever the service's speed, like real
// candidates. Reports P25..P95 of the whole flow and of each request.
//
// Env: BASE_URL (lib/config.js) or BASE_URLS (comma-separated pod URLs, spread round-robin, e.g.
//      http://198.18.0.12:8080,http://198.18.0.13:8080), RATE (20), DURATION (seconds, 5),
//      EXAMS (exam ids 1..EXAMS are used, 20), PHASE (tag for this pass, "measure"),
//      MAX_P95_MS (threshold on the flow's P95, 60000), SUMMARY_PATH, HEADERS
//      (e.g. {"X-Danki-Warmup":"1"} so the service rolls the writes back)
// Run: k6 run --no-usage-report k6-scripts/exam-start.js
//      BASE_URLS=http://198.18.0.12:8080,http://198.18.0.13:8080 k6 run --no-usage-report k6-scripts/exam-start.js
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { Trend } from 'k6/metrics';
import { baseUrl, extraHeaders, positiveNumber, rate } from './lib/config.js';
import { answerSheet } from './lib/exam.js';
import { metricValues, ms, summaryOutputs, trendStats } from './lib/summary.js';

const durationSeconds = positiveNumber('DURATION', 5);
const exams = positiveNumber('EXAMS', 20);
const maxP95Ms = positiveNumber('MAX_P95_MS', 60000);
const phase = __ENV.PHASE || 'measure';
const targets = parseTargets(__ENV.BASE_URLS);

/** One candidate's GET and POST together, in ms. */
const flowDuration = new Trend('exam_flow_duration', true);

function parseTargets(raw) {
  if (!raw) return [baseUrl];
  const urls = raw.split(',').map((u) => u.trim().replace(/\/+$/, '')).filter((u) => u !== '');
  for (const url of urls) {
    if (!/^https?:\/\/[^/]+$/.test(url)) throw new Error(`BASE_URLS: '${url}' is not a base URL like http://198.18.0.12:8080`);
  }
  if (urls.length === 0) throw new Error('BASE_URLS: no URL given');
  return urls;
}

export const options = {
  scenarios: {
    exam_start: {
      executor: 'constant-arrival-rate',
      rate,
      timeUnit: '1s',
      duration: `${durationSeconds}s`,
      // a cold service answers in seconds: enough VUs that arrivals never wait for a free VU
      preAllocatedVUs: Math.ceil(rate * 4),
      maxVUs: Math.ceil(rate * 20),
      tags: { phase },
    },
  },
  summaryTrendStats: trendStats,
  thresholds: {
    exam_flow_duration: [`p(95)<${maxP95Ms}`],
    'http_req_duration{name:GET /exams/{id}}': ['max>0'],
    'http_req_duration{name:POST /exams/{id}/answers}': ['max>0'],
    checks: ['rate==1'],
  },
};

export default function () {
  const iteration = exec.scenario.iterationInTest;
  const base = targets[iteration % targets.length];
  const examId = (iteration % exams) + 1;
  const headers = { ...extraHeaders, 'Content-Type': 'application/json' };
  const started = Date.now();

  const examRes = http.get(`${base}/exams/${examId}`, { headers: extraHeaders, tags: { name: 'GET /exams/{id}' } });
  if (!check(examRes, { 'exam status is 200': (r) => r.status === 200 })) return;

  const sheet = answerSheet(examRes.json(), `k6-${phase}-${iteration}`, iteration);
  const submitRes = http.post(`${base}/exams/${examId}/answers`, JSON.stringify(sheet), {
    headers,
    tags: { name: 'POST /exams/{id}/answers' },
  });
  check(submitRes, { 'answers status is 200': (r) => r.status === 200 });
  flowDuration.add(Date.now() - started);
}

export function handleSummary(data) {
  const pct = (name) => {
    const v = metricValues(data, name) || {};
    return { p25: ms(v['p(25)']), p50: ms(v['p(50)']), p75: ms(v['p(75)']), p90: ms(v['p(90)']), p95: ms(v['p(95)']), max: ms(v.max), count: v.count ?? null };
  };
  return summaryOutputs('exam-start.js', data, {
    phase,
    rate,
    durationSeconds,
    targets,
    flow: pct('exam_flow_duration'),
    getExam: pct('http_req_duration{name:GET /exams/{id}}'),
    postAnswers: pct('http_req_duration{name:POST /exams/{id}/answers}'),
    failedRequests: (metricValues(data, 'http_req_failed') || {}).passes ?? null,
    // arrivals k6 could not start because every VU was still busy: a sign the service fell behind
    droppedIterations: (metricValues(data, 'dropped_iterations') || {}).count ?? 0,
  });
}
