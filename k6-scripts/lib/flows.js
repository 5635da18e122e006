// How runner.js calls a tenant's flow module: one call timed as one "request", the `vars` danki hands
// it, its secrets and its notes. No k6 imports (the caller passes clock, timers and k6's open), so node
// can test it (operator/src/test/js/flows.test.mjs). docs/custom-flows.md is the contract for users.
import { MAX_NOTES } from './messages.js';

/** What one "request" of runner.js is, for its summary's abort message (lib/warmup-summary.js). */
export const FLOW_UNIT = { noun: 'flows', failed: 'threw, returned false or ran past REQUEST_TIMEOUT' };

/** A Kubernetes Secret key: also keeps a name from leaving the secret directory. */
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

/**
 * Calls `flow(...args)` once and resolves to {ok, ms, failure}; never rejects. A flow fails when it
 * throws (or rejects), returns false, or has not finished after `timeoutMs`; its late answer is then
 * ignored.
 *
 * @param {Function} flow
 * @param {Array}    args   [baseUrl, vars, i]
 * @param {object}   deps   {now (ms, fractions welcome), setTimer(fn, ms) -> id, clearTimer(id), timeoutMs}
 */
export function callFlow(flow, args, { now, setTimer, clearTimer, timeoutMs }) {
  return new Promise((resolve) => {
    const started = now();
    let done = false;
    let timer = null;
    const finish = (answer) => {
      if (done) return;
      done = true;
      if (timer !== null) clearTimer(timer);
      resolve({ ...answer, ms: now() - started });
    };
    timer = setTimer(() => finish({ ok: false, failure: `flow did not finish within ${timeoutMs} ms` }), timeoutMs);
    // a flow that throws before its first await must fail this call, not the whole run
    Promise.resolve()
      .then(() => flow(...args))
      .then(
        (result) => finish(result === false ? { ok: false, failure: 'flow returned false' } : { ok: true }),
        (error) => finish({ ok: false, failure: `flow threw ${describeError(error)}` }),
      );
  });
}

/** An error as one readable line: "Error: login answered 401", or the thrown value itself. */
export function describeError(error) {
  if (error instanceof Error || (error && typeof error.message === 'string')) {
    const name = error.name || 'Error';
    return `${name}: ${error.message}`;
  }
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch (e) {
    return String(error);
  }
}

/**
 * Reads the Secret keys a flow module declares (`export const secrets = ['username', 'password']`) from
 * `dir` with `read` (k6's open(), which works only in init code) and returns `secret(name)`. A key that
 * cannot be read fails only when the flow asks for it, with the reason; a trailing newline (what
 * `kubectl create secret --from-file` keeps from an editor) is dropped.
 */
export function secretReader(names, dir, read) {
  if (names !== undefined && !Array.isArray(names)) {
    throw new Error('`export const secrets` must be an array of Secret keys, e.g. [\'username\', \'password\']');
  }
  const values = new Map();
  const problems = new Map();
  for (const name of names || []) {
    if (typeof name !== 'string' || !SECRET_KEY.test(name)) throw new Error(`secrets: '${name}' is not a Secret key`);
    try {
      values.set(name, String(read(`${dir}/${name}`)).replace(/\r?\n$/, ''));
    } catch (e) {
      problems.set(name, `cannot read ${dir}/${name}: ${describeError(e)}`);
    }
  }
  return (name) => {
    if (values.has(name)) return values.get(name);
    if (problems.has(name)) throw new Error(`secret('${name}'): ${problems.get(name)}`);
    throw new Error(`secret('${name}'): not declared; list it in the flow module's \`export const secrets\``);
  };
}

/**
 * The `vars` every flow call gets: danki's helpers, then whatever the flow's setup() returned.
 *   headers   X-Danki-Warmup: 1 and the HEADERS setting: put them on every HTTP request
 *   metadata  the same marker as gRPC metadata ({'x-danki-warmup': '1'})
 *   secret    secret(name): the Secret key `name`, declared in `export const secrets`
 */
export function flowVars(headers, secret) {
  return { headers: { ...headers }, metadata: { 'x-danki-warmup': '1' }, secret };
}

/** Adds what setup() returned to `vars`; nothing (undefined or null) adds nothing. */
export function addSetupVars(vars, returned) {
  if (returned === undefined || returned === null) return vars;
  if (typeof returned !== 'object' || Array.isArray(returned)) {
    throw new Error(`setup() returned ${Array.isArray(returned) ? 'an array' : typeof returned}: expected an object (added to vars) or nothing`);
  }
  return Object.assign(vars, returned);
}

/** What notes() returned, as at most 10 strings: a single value counts as one note. */
export function noteList(value) {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.slice(0, MAX_NOTES).map((note) => (typeof note === 'string' ? note : describeError(note)));
}
