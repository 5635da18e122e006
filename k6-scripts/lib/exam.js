// The exam flow of sample-service, shared by exam-start.js and any script that warms it:
// GET /exams/{id}, then POST /exams/{id}/answers with a sheet built from the exam's questions.

/** Written answer of about 180 characters: long enough for the server's text scoring to do real work. */
const TEXT_ANSWER =
  'the heap and the thread pool queue grow when latency rises because the garbage collector and the ' +
  'compiler tier compete for cpu quota while the readiness probe waits for warm replicas';

/** An answer for every question of `exam` (the JSON of GET /exams/{id}), varied by `seed`. */
export function answerSheet(exam, candidateId, seed) {
  const answers = exam.questions.map((q) => answerFor(q, seed));
  return { candidateId, answers };
}

function answerFor(question, seed) {
  const id = question.id;
  switch (question.type) {
    case 'single':
      return { type: 'single', questionId: id, choice: (id + seed) % question.options.length };
    case 'multiple':
      return { type: 'multiple', questionId: id, choices: [seed % question.options.length, (seed + 2) % question.options.length].filter(uniq) };
    case 'true-false':
      return { type: 'true-false', questionId: id, value: (id + seed) % 2 === 0 };
    case 'numeric':
      return { type: 'numeric', questionId: id, value: Math.min(question.max, question.min + ((seed * 37 + id) % 500)) };
    case 'text':
      return { type: 'text', questionId: id, text: `${TEXT_ANSWER} ${seed}`.slice(0, question.maxLength) };
    case 'ordering':
      return { type: 'ordering', questionId: id, order: rotate(question.items.map((_, i) => i), seed) };
    default:
      throw new Error(`question ${id}: unknown type ${question.type}`);
  }
}

function uniq(value, index, all) {
  return all.indexOf(value) === index;
}

function rotate(list, by) {
  const k = by % list.length;
  return list.slice(k).concat(list.slice(0, k));
}
