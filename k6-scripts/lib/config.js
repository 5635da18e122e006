// Shared settings for every danki k6 script, read from __ENV so a script differs from the
// others only in its load profile and assertions.
//
// Env vars:
//   BASE_URL      target, e.g. http://127.0.0.1:8080 (default) or http://198.18.0.12:8080
//   RATE          requests per second for fixed-arrival-rate passes (default 20)
//   SUMMARY_PATH  where handleSummary writes its JSON (default: none, stdout text only)
//   HEADERS       extra request headers as a JSON object, e.g. {"Authorization":"Bearer x"}

/** Target base URL without a trailing slash. */
export const baseUrl = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');

/** Fixed arrival rate in requests per second. */
export const rate = positiveNumber('RATE', 20);

/** Path of the JSON summary, or '' when the script should not write one. */
export const summaryPath = __ENV.SUMMARY_PATH || '';

/** Extra headers from HEADERS (a JSON object of strings). */
export const extraHeaders = parseHeaders(__ENV.HEADERS);

/** The percentiles danki reports everywhere, in k6's summaryTrendStats spelling. */
export const reportedPercentiles = ['p(25)', 'p(50)', 'p(75)', 'p(90)', 'p(95)'];

/** Reads a positive number from __ENV[name], or fails the script with a message naming it. */
export function positiveNumber(name, fallback) {
  const raw = __ENV[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name}=${raw}: expected a positive number`);
  }
  return value;
}

function parseHeaders(raw) {
  if (!raw) return {};
  let parsed;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    throw new Error(`HEADERS=${raw}: expected a JSON object of header names to values (${e})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`HEADERS=${raw}: expected a JSON object of header names to values`);
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new Error(`HEADERS: value of ${key} must be a string`);
  }
  return parsed;
}

/** Picks the reported percentiles (in ms) out of a k6 trend metric's summary values. */
export function percentilesOf(metric) {
  const values = (metric && metric.values) || {};
  return {
    p25: values['p(25)'] ?? null,
    p50: values['p(50)'] ?? null,
    p75: values['p(75)'] ?? null,
    p90: values['p(90)'] ?? null,
    p95: values['p(95)'] ?? null,
    count: values.count ?? null,
  };
}
