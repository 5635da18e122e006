// Shared settings for every danki k6 script, read from __ENV so a script differs from the
// others only in its load profile and assertions.
//
// Env vars:
//   BASE_URL      target, e.g. http://127.0.0.1:8080 (default) or http://198.18.0.12:8080
//   RATE          requests per second for fixed-arrival-rate passes (default 20)
//   SUMMARY_PATH  where handleSummary writes its JSON (default: none, stdout text only)
//   HEADERS       extra request headers as a JSON object, e.g. {"Authorization":"Bearer x"}

import { headerMap, positiveNumber as positiveNumberIn } from './env.js';

/** Target base URL without a trailing slash. */
export const baseUrl = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');

/** Fixed arrival rate in requests per second. */
export const rate = positiveNumber('RATE', 20);

/** Path of the JSON summary, or '' when the script should not write one. */
export const summaryPath = __ENV.SUMMARY_PATH || '';

/** Extra headers from HEADERS (a JSON object of strings). */
export const extraHeaders = headerMap(__ENV, 'HEADERS');

/** The percentiles danki reports everywhere, in k6's summaryTrendStats spelling. */
export const reportedPercentiles = ['p(25)', 'p(50)', 'p(75)', 'p(90)', 'p(95)'];

/** Reads a positive number from __ENV[name], or fails the script with a message naming it. */
export function positiveNumber(name, fallback) {
  return positiveNumberIn(__ENV, name, fallback);
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
