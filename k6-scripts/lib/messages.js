// Texts the warm-up learns while it runs (a phase's first failure, why it aborted, a flow's notes),
// carried to handleSummary in k6 check names: handleSummary runs apart from the test's VU and sees only
// metrics and checks, and a metric carries numbers, never text. No k6 imports, so node can test it.

/** Check names danki writes start with this; the tenant's own checks never do. */
const PREFIX = 'danki:';

/** Longest text kept, in characters: a summary must fit a 4096-byte termination message. */
export const MAX_TEXT = 200;

/** Most notes a flow may report. */
export const MAX_NOTES = 10;

/**
 * `text` as one line of at most `max` characters: whitespace runs become one space, a lone surrogate
 * becomes U+FFFD (JSON must stay valid UTF-8), and a cut text ends in '…'.
 */
export function oneLine(text, max = MAX_TEXT) {
  const chars = [];
  for (const ch of String(text).replace(/\s+/g, ' ').trim()) {
    const code = ch.codePointAt(0);
    chars.push(code >= 0xd800 && code <= 0xdfff ? '\ufffd' : ch);
  }
  return chars.length <= max ? chars.join('') : chars.slice(0, max - 1).join('') + '…';
}

/**
 * The check name that carries `text` under `key` (e.g. `failure:cold`, `abort`, `note:03`). k6 refuses
 * check names containing '::', so a colon followed by another gets a space after it.
 */
export function messageName(key, text) {
  return `${PREFIX}${key}:${oneLine(text)}`.replace(/:(?=:)/g, ': ');
}

/**
 * The texts carried in handleSummary's data: {failures: {phase: text}, abort: text|null, notes: [text]}.
 *
 * @param {object} data  k6's handleSummary data (its root_group.checks)
 */
export function messagesOf(data) {
  const found = { failures: {}, abort: null, notes: [] };
  const checks = (data && data.root_group && data.root_group.checks) || [];
  const notes = [];
  for (const { name } of checks) {
    if (typeof name !== 'string' || !name.startsWith(PREFIX)) continue;
    const rest = name.slice(PREFIX.length);
    let m;
    if ((m = rest.match(/^failure:(\w+):(.*)$/))) found.failures[m[1]] = m[2];
    else if ((m = rest.match(/^abort:(.*)$/))) found.abort = m[1];
    else if ((m = rest.match(/^note:(\d+):(.*)$/))) notes.push({ index: Number(m[1]), text: m[2] });
  }
  found.notes = notes.sort((a, b) => a.index - b.index).slice(0, MAX_NOTES).map((n) => n.text);
  return found;
}

/** Key of note `index`, zero-padded so the names sort as the notes came. */
export function noteKey(index) {
  return `note:${String(index).padStart(2, '0')}`;
}
