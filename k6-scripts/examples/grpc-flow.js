// grpc-flow.js: a custom flow for danki's runner.js that warms the sample service's gRPC exam service
// (sample-service/src/main/proto/exam.proto): GetExam, then SubmitAnswers with a full sheet, both with
// metadata x-danki-warmup: 1 so the write is rolled back. One flow = two calls, made with asyncInvoke on
// one connection, so WARMUP_CONCURRENCY flows are in flight at once.
//
// exam.proto sits next to this file (examples/exam.proto links to the service's), and ./exam.js
// builds the sheets (a link to k6-scripts/lib/exam.js): in a runner pod all three are keys of one
// ConfigMap. The gRPC port is GRPC_PORT on BASE_URL's host (default 9090, the sample service's);
// BASE_URL's own port is not used. Change GRPC_PORT's default below for your service: the operator does
// not set it.
//
// Run locally (docs/custom-flows.md), against a sample service with GRPC_PORT=9090:
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e FLOW_PATH=$PWD/k6-scripts/examples/grpc-flow.js \
//     -e SUMMARY_PATH=/tmp/s.json k6-scripts/runner.js
// For danki: a ConfigMap with the three files, and the annotation naming its flow key:
//   kubectl create configmap grpc-flow --from-file=flow.js=k6-scripts/examples/grpc-flow.js \
//     --from-file=exam.proto=k6-scripts/examples/exam.proto --from-file=exam.js=k6-scripts/lib/exam.js
//   kubectl annotate deployment exam-server danki.dev/script=grpc-flow
// No Secret.
import grpc from 'k6/net/grpc';
import { answerSheet } from './exam.js';

const GRPC_PORT = __ENV.GRPC_PORT || '9090';
const SERVICE = 'danki.sample.exam.v1.ExamService';
const EXAMS = 20;
const client = new grpc.Client();
// k6 finds a .proto through its import paths, not beside the module that loads it: name this file's folder
client.load([import.meta.resolve('./')], 'exam.proto');

let target = null;
const seen = { submissions: 0, rolledBack: 0 };

/** Connects once, before the cold pass: every flow's calls share this one HTTP/2 connection. */
export function setup(baseUrl) {
  const host = baseUrl.match(/^https?:\/\/(\[[^\]]+\]|[^/:]+)/)[1];
  target = `${host}:${GRPC_PORT}`;
  client.connect(target, { plaintext: true, timeout: '5s' });
}

export async function flow(baseUrl, vars, i) {
  const params = { metadata: vars.metadata, timeout: '10s' };
  const id = (i % EXAMS) + 1;
  const exam = await client.asyncInvoke(`${SERVICE}/GetExam`, { id }, params);
  if (exam.status !== grpc.StatusOK) throw new Error(`GetExam ${id} answered ${describe(exam)}`);

  const sheet = answerSheet(asHttpExam(exam.message), `danki-warmup-${i}`, i);
  const request = { examId: id, candidateId: sheet.candidateId, answers: sheet.answers.map(asAnswerMessage) };
  const result = await client.asyncInvoke(`${SERVICE}/SubmitAnswers`, request, params);
  if (result.status !== grpc.StatusOK) throw new Error(`SubmitAnswers ${id} answered ${describe(result)}`);
  seen.submissions++;
  if (result.message.warmup === true) seen.rolledBack++;
}

/** The gRPC exam in the JSON shape of GET /exams/{id}, which exam.js's sheet builder reads. */
function asHttpExam(message) {
  const questions = message.questions.map((q) => {
    if (q.single) return { id: q.id, type: 'single', options: q.single.options };
    if (q.multiple) return { id: q.id, type: 'multiple', options: q.multiple.options };
    if (q.trueFalse) return { id: q.id, type: 'true-false' };
    if (q.numeric) return { id: q.id, type: 'numeric', min: q.numeric.min || 0, max: q.numeric.max || 0 };
    if (q.text) return { id: q.id, type: 'text', maxLength: q.text.maxLength || 0 };
    if (q.ordering) return { id: q.id, type: 'ordering', items: q.ordering.items };
    throw new Error(`question ${q.id}: no kind in ${JSON.stringify(q).slice(0, 80)}`);
  });
  return { id: message.id, questions };
}

/** One answer of exam.js's sheet as the proto's Answer message (its oneof `kind`). */
function asAnswerMessage(a) {
  switch (a.type) {
    case 'single': return { questionId: a.questionId, single: { choice: a.choice } };
    case 'multiple': return { questionId: a.questionId, multiple: { choices: a.choices } };
    case 'true-false': return { questionId: a.questionId, trueFalse: { value: a.value } };
    case 'numeric': return { questionId: a.questionId, numeric: { value: a.value } };
    case 'text': return { questionId: a.questionId, text: { text: a.text } };
    case 'ordering': return { questionId: a.questionId, ordering: { order: a.order } };
    default: throw new Error(`answer to question ${a.questionId}: unknown type ${a.type}`);
  }
}

function describe(response) {
  const message = response.error && response.error.message ? `: ${response.error.message}` : '';
  return `status ${response.status}${message}`;
}

export function notes() {
  return [`${seen.submissions} SubmitAnswers calls over gRPC at ${target}, ${seen.rolledBack} rolled back (warmup: true)`];
}
