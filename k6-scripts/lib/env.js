// Reading settings from an env map (k6's __ENV, or a plain object in node's tests), each failing with
// a message that names the variable. No k6 imports, so node can test it.

/** A positive number from env[name], `fallback` when unset or empty. */
export function positiveNumber(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name}=${raw}: expected a positive number`);
  }
  return value;
}

/** A number of 0 or more from env[name], `fallback` when unset or empty. */
export function nonNegative(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}=${raw}: expected a number of 0 or more`);
  return value;
}

/** A number from 0 to 1 from env[name], `fallback` when unset or empty. */
export function ratio(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new Error(`${name}=${raw}: expected a number from 0 to 1`);
  return value;
}

/** A JSON object of header names to string values from env[name]; {} when unset. */
export function headerMap(env, name) {
  const raw = env[name];
  if (!raw) return {};
  let parsed;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    throw new Error(`${name}=${raw}: expected a JSON object of header names to values (${e})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${name}=${raw}: expected a JSON object of header names to values`);
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new Error(`${name}: value of ${key} must be a string`);
  }
  return parsed;
}

const DURATION_UNITS = { ms: 1, s: 1000, m: 60000, h: 3600000 };

/**
 * A duration in ms, as k6 reads request timeouts: a plain number is ms, otherwise Go units that may be
 * combined (`500ms`, `10s`, `1.5s`, `1m30s`). Throws a message naming `name` for anything else.
 */
export function durationMs(name, raw) {
  const text = String(raw).trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const parts = text.match(/\d+(?:\.\d+)?(?:ms|s|m|h)/g);
  if (!parts || parts.join('') !== text) throw new Error(`${name}=${raw}: expected a duration like 10s, 500ms or 1m30s`);
  return parts.reduce((sum, part) => {
    const [, number, unit] = part.match(/^([\d.]+)(ms|s|m|h)$/);
    return sum + Number(number) * DURATION_UNITS[unit];
  }, 0);
}
