// Unit tests of how runner.js calls a tenant's flow, k6-scripts/lib/flows.js (run: make test-unit-operator-js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addSetupVars, callFlow, describeError, FLOW_UNIT, flowVars, noteList, secretReader } from '../../../../k6-scripts/lib/flows.js';
import { messageName } from '../../../../k6-scripts/lib/messages.js';
import { readSettings } from '../../../../k6-scripts/lib/settings.js';
import { buildSummary } from '../../../../k6-scripts/lib/warmup-summary.js';

/** Real timers, counted: a flow call must leave none running (k6 waits for them before it ends). */
function timers(timeoutMs = 200) {
  const live = new Set();
  return {
    live,
    now: () => performance.now(),
    setTimer: (fn, ms) => { const id = setTimeout(() => { live.delete(id); fn(); }, ms); live.add(id); return id; },
    clearTimer: (id) => { clearTimeout(id); live.delete(id); },
    timeoutMs,
  };
}

test('a flow that resolves is one successful request, timed', async () => {
  const t = timers();
  const answer = await callFlow(async () => { await new Promise((r) => setTimeout(r, 20)); }, ['http://x', {}, 0], t);
  assert.equal(answer.ok, true);
  assert.ok(answer.ms >= 15 && answer.ms < 150, `took ${answer.ms} ms`);
  assert.equal(t.live.size, 0);
});

test('throwing, rejecting and returning false fail with what happened', async () => {
  const t = timers();
  assert.deepEqual(omitMs(await callFlow(() => { throw new Error('boom'); }, [], t)), { ok: false, failure: 'flow threw Error: boom' });
  assert.deepEqual(omitMs(await callFlow(async () => { throw new TypeError('x is undefined'); }, [], t)),
    { ok: false, failure: 'flow threw TypeError: x is undefined' });
  assert.deepEqual(omitMs(await callFlow(async () => false, [], t)), { ok: false, failure: 'flow returned false' });
  assert.deepEqual(omitMs(await callFlow(async () => { throw 'plain string'; }, [], t)), { ok: false, failure: 'flow threw plain string' });
  assert.equal(t.live.size, 0);
});

test('a flow still running after the timeout fails, and its late answer is ignored', async () => {
  const t = timers(30);
  let release;
  const answer = await callFlow(() => new Promise((_, reject) => { release = reject; }), [], t);
  assert.deepEqual(omitMs(answer), { ok: false, failure: 'flow did not finish within 30 ms' });
  release(new Error('too late')); // must not surface as an unhandled rejection
  await new Promise((r) => setTimeout(r, 10));
});

test('the flow gets baseUrl, vars and the request index', async () => {
  let seen;
  await callFlow((...args) => { seen = args; }, ['http://198.18.0.12:8080', { a: 1 }, 7], timers());
  assert.deepEqual(seen, ['http://198.18.0.12:8080', { a: 1 }, 7]);
});

test('a flow that keeps failing aborts the run with a message naming its error', () => {
  const data = {
    metrics: {
      'danki_requests{phase:cold}': { values: { count: 20 } },
      'danki_failures{phase:cold}': { values: { count: 20 } },
      danki_stop_reason: { values: { value: 4 } },
    },
    state: { testRunDurationMs: 900 },
    root_group: { checks: [{ name: messageName('failure:cold', 'flow threw Error: login answered 401') }] },
  };
  const s = buildSummary(data, readSettings({}), FLOW_UNIT);
  assert.equal(s.stopReason, 'Aborted');
  assert.equal(s.abortMessage, 'cold phase: 20 of 20 flows failed (threw, returned false or ran past REQUEST_TIMEOUT, ' +
    'e.g. flow threw Error: login answered 401), more than 5%');
});

test('secrets: declared keys are read at init, without a trailing newline', () => {
  const files = { '/s/username': 'demo\n', '/s/password': 'p4ss\r\n' };
  const read = (path) => { if (!(path in files)) throw new Error(`open ${path}: no such file`); return files[path]; };
  const secret = secretReader(['username', 'password', 'token'], '/s', read);
  assert.equal(secret('username'), 'demo');
  assert.equal(secret('password'), 'p4ss');
  assert.throws(() => secret('token'), /secret\('token'\): cannot read \/s\/token: Error: open \/s\/token: no such file/);
  assert.throws(() => secret('other'), /secret\('other'\): not declared/);
  assert.throws(() => secretReader(['../etc/passwd'], '/s', read), /is not a Secret key/);
  assert.throws(() => secretReader('username', '/s', read), /must be an array/);
  assert.throws(() => secretReader(undefined, '/s', read)('x'), /not declared/);
});

test('vars: danki\'s helpers, then what setup() returned', () => {
  const secret = () => 's';
  const vars = flowVars({ 'X-Danki-Warmup': '1', Authorization: 'Bearer x' }, secret);
  assert.deepEqual(vars.headers, { 'X-Danki-Warmup': '1', Authorization: 'Bearer x' });
  assert.deepEqual(vars.metadata, { 'x-danki-warmup': '1' });
  assert.equal(addSetupVars(vars, { token: 't' }).token, 't');
  assert.equal(addSetupVars(vars, undefined), vars);
  assert.throws(() => addSetupVars(vars, 'token'), /setup\(\) returned string: expected an object/);
  assert.throws(() => addSetupVars(vars, ['t']), /returned an array/);
});

test('notes: at most 10 strings; a single value is one note', () => {
  assert.deepEqual(noteList('one'), ['one']);
  assert.deepEqual(noteList(undefined), []);
  assert.equal(noteList(Array.from({ length: 15 }, (_, i) => `n${i}`)).length, 10);
  assert.deepEqual(noteList([{ scores: [1, 2] }]), ['{"scores":[1,2]}']);
  assert.equal(describeError(new RangeError('r')), 'RangeError: r');
});

function omitMs({ ms, ...rest }) {
  assert.equal(typeof ms, 'number');
  return rest;
}
