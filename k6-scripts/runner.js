// runner.js: how slow is a fresh pod for its first users, and how fast once warmed, on the tenant's own
// user journeys? The entry script of danki's runner pods (custom flows, docs/custom-flows.md).
//
// It loads the tenant's flow module (FLOW_PATH; in a runner pod the tenant's ConfigMap is mounted at
// /var/run/danki/flow/) and runs warmup.js's warm-up with one call of its flow as one "request": the
// cold pass, the warm-up with its stop rules, the warm pass (lib/danki.js). The flow module exports
//   async function flow(baseUrl, vars, i)  one user journey, any number of requests; resolves on
//                                          success, throws (or returns false) on failure
//   function setup(baseUrl, vars)          optional, once before the cold pass (e.g. a login); its
//                                          object's fields are added to vars
//   function notes()                       optional, after the run: a few short strings to report
//   const secrets = ['username', ...]      optional, the Secret keys it reads with vars.secret(name)
// vars holds `headers` (X-Danki-Warmup: 1 and HEADERS), `metadata` (the same for gRPC) and `secret`.
//
// Env vars:
//   BASE_URL      the pod, http://<podIP>:<port>: the only host the run may reach (lib/egress.js)
//   FLOW_PATH     absolute path of the flow module (default /var/run/danki/flow/flow.js)
//   SECRET_DIR    where the tenant's Secret is mounted (default /var/run/danki/secret)
//   SUMMARY_PATH  where the summary goes (default /dev/termination-log): compact version-2 JSON with
//                 `notes` and without `settings`, always at most 4096 bytes (lib/termination-message.js)
//   every warm-up setting of warmup.js (lib/settings.js): RATE, REQUESTS, WARMUP_CONCURRENCY,
//   WARMUP_RATE, MIN_WARMUP_REQUESTS, MAX_WARMUP_REQUESTS, TARGET_P95_MS, JIT_METRICS_URL, TIME_BUDGET_S,
//   MAX_ERROR_RATIO, BLOCK_SIZE, TOLERANCE, STABLE_BLOCKS, MIN_DELTA_MS, JIT_QUIET_MS, JIT_QUIET_BLOCKS,
//   MAX_IN_FLIGHT, HEADERS; REQUEST_TIMEOUT (default 10s) bounds one flow call.
// A flow module that cannot be loaded, a setup() that throws and a flow that keeps failing all end in
// stop reason Aborted, with the error in abortMessage. Redirects are never followed.
//
// Run: k6 run --no-usage-report -e BASE_URL=http://127.0.0.1:8080 \
//        -e FLOW_PATH=$PWD/k6-scripts/examples/exam-flow.js -e SUMMARY_PATH=/tmp/s.json k6-scripts/runner.js
import exec from 'k6/execution';
import { clearTimeout, setTimeout } from 'k6/timers';
import { createWarmup } from './lib/danki.js';
import { egressOptions } from './lib/egress.js';
import { durationMs } from './lib/env.js';
import { addSetupVars, callFlow, describeError, FLOW_UNIT, flowVars, noteList, secretReader } from './lib/flows.js';
import { readSettings } from './lib/settings.js';
import { terminationMessage } from './lib/termination-message.js';
import { notesOf, textTable } from './lib/warmup-summary.js';

const settings = readSettings(__ENV);
const FLOW_PATH = __ENV.FLOW_PATH || '/var/run/danki/flow/flow.js';
const SECRET_DIR = (__ENV.SECRET_DIR || '/var/run/danki/secret').replace(/\/+$/, '');
const SUMMARY_PATH = __ENV.SUMMARY_PATH || '/dev/termination-log';
const FLOW_TIMEOUT_MS = durationMs('REQUEST_TIMEOUT', settings.requestTimeout);
const warmup = createWarmup(settings);
const user = loadFlow();

export const options = {
  ...warmup.options,
  ...egressOptions(settings.baseUrl),
  // a redirect would lead the flow to another host, or time a page the pod did not serve
  maxRedirects: 0,
};

/** The flow module and its secret(name), or why it could not be loaded: the run then aborts with it. */
function loadFlow() {
  try {
    if (!FLOW_PATH.startsWith('/')) throw new Error('FLOW_PATH must be an absolute path');
    const module = require(FLOW_PATH);
    if (typeof module.flow !== 'function') throw new Error('the module exports no function flow(baseUrl, vars, i)');
    return { module, secret: secretReader(module.secrets, SECRET_DIR, open) };
  } catch (e) {
    return { error: `cannot load the flow ${FLOW_PATH}: ${describeError(e)}` };
  }
}

export default async function () {
  const startedAt = Date.now();
  if (user.error) {
    warmup.abort(user.error);
    return;
  }
  const vars = flowVars(warmup.headers, user.secret);
  try {
    if (typeof user.module.setup === 'function') addSetupVars(vars, await user.module.setup(settings.baseUrl, vars));
  } catch (e) {
    warmup.abort(`setup() failed: ${describeError(e)}`);
    reportNotes();
    return;
  }
  const timing = {
    // ms since the test started, with fractions: Date.now() would round a fast flow to 0 or 1 ms
    now: () => exec.instance.currentTestRunDuration,
    setTimer: setTimeout,
    clearTimer: clearTimeout,
    timeoutMs: FLOW_TIMEOUT_MS,
  };
  await warmup.run((i) => callFlow(user.module.flow, [settings.baseUrl, vars, i], timing), startedAt);
  reportNotes();
}

/** Carries what the flow's notes() returns to the summary; a failing notes() becomes the note. */
function reportNotes() {
  if (typeof user.module.notes !== 'function') return;
  let notes;
  try {
    notes = noteList(user.module.notes());
  } catch (e) {
    notes = [`notes() threw ${describeError(e)}`];
  }
  notes.forEach((note, index) => warmup.note(index, note));
}

export function handleSummary(data) {
  const summary = warmup.summary(data, FLOW_UNIT);
  const notes = notesOf(data);
  const lines = [textTable(summary, `danki warm-up of ${settings.baseUrl} with ${FLOW_PATH}`)];
  if (summary.abortMessage) lines.push(`why: ${summary.abortMessage}\n`);
  for (const note of notes) lines.push(`note: ${note}\n`);
  return { stdout: lines.join(''), [SUMMARY_PATH]: terminationMessage(summary, notes) };
}
