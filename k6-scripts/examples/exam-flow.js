// exam-flow.js: a custom flow for danki's runner.js that warms the sample service's exam flow the way
// a candidate uses it: GET /exams/{id}, then POST /exams/{id}/answers with a full answer sheet built from
// the exam just fetched (validated, scored and, for warm-up, rolled back). One flow = two requests.
//
// It imports ./exam.js, the sheet builder of k6-scripts/lib/exam.js (examples/exam.js links to it): in
// a runner pod a flow can import only the files of its own ConfigMap, so exam.js goes in as a key too.
//
// Run locally (docs/custom-flows.md):
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e FLOW_PATH=$PWD/k6-scripts/examples/exam-flow.js \
//     -e SUMMARY_PATH=/tmp/s.json k6-scripts/runner.js
// For danki: a ConfigMap with this file as flow.js and lib/exam.js as exam.js, named by the annotation:
//   kubectl create configmap exam-flow --from-file=flow.js=k6-scripts/examples/exam-flow.js \
//     --from-file=exam.js=k6-scripts/lib/exam.js
//   kubectl annotate deployment exam-server danki.dev/script=exam-flow
// No Secret. Env: EXAMS (exam ids 1..EXAMS are used, default 20).
import http from 'k6/http';
import { answerSheet } from './exam.js';

const EXAMS = Number(__ENV.EXAMS || 20);
const seen = { submissions: 0, rolledBack: 0, lowest: null, highest: null };

export async function flow(baseUrl, vars, i) {
  const examId = (i % EXAMS) + 1;
  const exam = await http.asyncRequest('GET', `${baseUrl}/exams/${examId}`, null, {
    headers: vars.headers,
    tags: { name: 'GET /exams/{id}' },
  });
  if (exam.status !== 200) throw new Error(`GET /exams/${examId} answered ${exam.status}`);

  const sheet = answerSheet(exam.json(), `danki-warmup-${i}`, i);
  const submitted = await http.asyncRequest('POST', `${baseUrl}/exams/${examId}/answers`, JSON.stringify(sheet), {
    headers: Object.assign({ 'Content-Type': 'application/json' }, vars.headers),
    tags: { name: 'POST /exams/{id}/answers' },
  });
  if (submitted.status !== 200) {
    throw new Error(`POST /exams/${examId}/answers answered ${submitted.status}: ${String(submitted.body).slice(0, 120)}`);
  }
  record(submitted.json());
}

function record(result) {
  seen.submissions++;
  if (result.warmup === true) seen.rolledBack++;
  seen.lowest = seen.lowest === null ? result.percent : Math.min(seen.lowest, result.percent);
  seen.highest = seen.highest === null ? result.percent : Math.max(seen.highest, result.percent);
}

/** What the run found: whether the service rolled the warm-up's writes back, and the scores it gave. */
export function notes() {
  if (seen.submissions === 0) return ['no answer sheet was scored'];
  const stored = seen.submissions - seen.rolledBack;
  return [
    stored === 0
      ? `all ${seen.submissions} warm-up submissions were rolled back (warmup: true)`
      : `${stored} of ${seen.submissions} warm-up submissions were stored: the service ignored X-Danki-Warmup`,
    `scores from ${seen.lowest.toFixed(1)}% to ${seen.highest.toFixed(1)}%`,
  ];
}
