// runner.js's summary as its pod's termination message: compact JSON of at most 4096 bytes, the
// kubelet's limit (it cuts longer ones, which would leave the operator invalid JSON). No k6 imports,
// so node can test it (operator/src/test/js/termination-message.test.mjs).
import { MAX_NOTES, MAX_TEXT, oneLine } from './messages.js';

/** The kubelet keeps at most this many bytes of /dev/termination-log. */
export const TERMINATION_MESSAGE_BYTES = 4096;

/** Bytes of `text` in UTF-8 (k6 writes files in UTF-8). */
export function utf8Bytes(text) {
  let bytes = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * The summary (lib/warmup-summary.js) without its settings block, with `notes`, as one line of JSON of
 * at most `maxBytes` bytes. Notes give way first (the last ones, replaced by a note saying how many
 * were cut), then long texts are shortened; a summary of counts and percentiles always fits.
 *
 * @param {object}   summary   buildSummary()'s result
 * @param {string[]} notes     the flow's notes; each is cut to 200 characters, at most 10 are kept
 * @param {number}   maxBytes  4096 by default
 * @returns {string} valid JSON of at most maxBytes bytes
 */
export function terminationMessage(summary, notes, maxBytes = TERMINATION_MESSAGE_BYTES) {
  const { settings, ...rest } = summary;
  const kept = (notes || []).slice(0, MAX_NOTES).map((n) => oneLine(n));
  const fits = (candidate) => {
    const text = JSON.stringify(candidate);
    return utf8Bytes(text) <= maxBytes ? text : null;
  };
  for (let n = kept.length; n >= 0; n--) {
    const cut = kept.length - n;
    const tail = cut > 0 ? [`(${cut} more note(s) cut to fit ${maxBytes} bytes)`] : [];
    const text = fits({ ...rest, notes: kept.slice(0, n).concat(tail) });
    if (text) return text;
  }
  return fits(shortened(rest, MAX_TEXT / 2)) || fits(minimal(rest)) ||
    JSON.stringify({ version: rest.version, stopReason: rest.stopReason });
}

/** The summary with every free text cut to `max` characters and no notes. */
function shortened(s, max) {
  const cut = (text) => (typeof text === 'string' ? oneLine(text, max) : text);
  const phases = {};
  for (const [name, p] of Object.entries(s.phases)) phases[name] = { ...p, failureExample: cut(p.failureExample) };
  const jit = s.evidence && s.evidence.jit ? { ...s.evidence.jit, url: cut(s.evidence.jit.url), error: cut(s.evidence.jit.error) } : null;
  return {
    ...s,
    abortMessage: cut(s.abortMessage),
    baseUrl: cut(s.baseUrl),
    evidence: s.evidence ? { ...s.evidence, jit } : s.evidence,
    phases,
    notes: [],
  };
}

/** Counts, percentiles and a short abort message: what the operator cannot do without. */
function minimal(s) {
  const phases = {};
  for (const [name, p] of Object.entries(s.phases)) {
    phases[name] = { requests: p.requests, failures: p.failures, failureExample: null,
      p25: p.p25, p50: p.p50, p75: p.p75, p90: p.p90, p95: p.p95 };
  }
  return {
    version: s.version,
    stopReason: s.stopReason,
    abortMessage: typeof s.abortMessage === 'string' ? oneLine(s.abortMessage, 100) : undefined,
    firstRequestAtMs: s.firstRequestAtMs,
    durationSeconds: s.durationSeconds,
    evidence: s.evidence ? { ...s.evidence, jit: null } : s.evidence,
    phases,
    notes: [],
  };
}
