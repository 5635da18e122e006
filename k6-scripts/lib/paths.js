// The request list of a warm-up, in the danki.dev/paths annotation's format, shared by warmup.js and
// the benchmark's scripts. No k6 imports.

/**
 * Parses PATHS: a JSON array of {method, path, body} (what the operator passes), or
 * 'METHOD /path [JSON body]' entries separated by ';' or newlines (what a person types).
 *
 * @param {string} raw
 * @returns {{method: string, path: string, body: string|null}[]}
 */
export function parsePaths(raw) {
  const text = raw.trim();
  let entries;
  if (text.startsWith('[')) {
    try {
      entries = JSON.parse(text);
    } catch (e) {
      throw new Error(`PATHS: not valid JSON (${e})`);
    }
    if (!Array.isArray(entries) || entries.length === 0) throw new Error('PATHS: expected a non-empty array');
  } else {
    entries = text.split(text.includes('\n') ? '\n' : ';').map((e) => e.trim()).filter((e) => e).map((e) => {
      const m = e.match(/^(\S+)\s+(\S+)(?:\s+(.+))?$/);
      if (!m) throw new Error(`PATHS entry '${e}': expected 'METHOD /path [JSON body]'`);
      return { method: m[1], path: m[2], body: m[3] };
    });
    if (entries.length === 0) throw new Error('PATHS: no entry');
  }
  return entries.map((e) => {
    if (!e || typeof e.method !== 'string' || typeof e.path !== 'string' || !e.path.startsWith('/')) {
      throw new Error(`PATHS entry ${JSON.stringify(e)}: expected {method, path starting with /, body?}`);
    }
    return { method: e.method.toUpperCase(), path: e.path, body: e.body === null || e.body === undefined ? null : String(e.body) };
  });
}
