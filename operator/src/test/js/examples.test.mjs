// The custom-flow examples' sibling files are their sources' (run: make test-unit-operator-js): in a
// runner pod a flow imports only its own ConfigMap's keys, so the examples ship copies or links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';

const examples = new URL('../../../../k6-scripts/examples/', import.meta.url);
const repo = new URL('../../../../', import.meta.url);

test('examples/exam.proto is the sample service\'s exam.proto', () => {
  assert.equal(fs.readFileSync(new URL('exam.proto', examples), 'utf8'),
    fs.readFileSync(new URL('sample-service/src/main/proto/exam.proto', repo), 'utf8'));
});

test('examples/exam.js is lib/exam.js, the sheet builder exam-start.js uses', async () => {
  assert.equal(fs.realpathSync(new URL('exam.js', examples)), fs.realpathSync(new URL('k6-scripts/lib/exam.js', repo)));
  const { answerSheet } = await import(new URL('exam.js', examples));
  const exam = { questions: [{ id: 1, type: 'single', options: ['a', 'b'] }, { id: 2, type: 'true-false' }] };
  assert.deepEqual(answerSheet(exam, 'c', 1).answers.map((a) => a.type), ['single', 'true-false']);
});
