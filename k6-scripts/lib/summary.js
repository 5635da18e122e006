// handleSummary helpers shared by the sample-service scripts: a short text report on stdout and,
// when SUMMARY_PATH is set, the same report plus k6's raw metrics as JSON.
import { summaryPath } from './config.js';

/** The trend stats every script asks k6 to compute, percentiles first (thresholds never use averages). */
export const trendStats = ['p(25)', 'p(50)', 'p(75)', 'p(90)', 'p(95)', 'max', 'min', 'count'];

/** Values of metric `name` (with its `{tag:value}` selector), or null when k6 did not record it. */
export function metricValues(data, name) {
  const metric = data.metrics[name];
  return metric ? metric.values : null;
}

/**
 * Builds handleSummary's result: `report` (plain numbers, already named for what they mean) is
 * printed as indented JSON and, with SUMMARY_PATH, written next to k6's metrics.
 */
export function summaryOutputs(script, data, report) {
  const failedThresholds = Object.entries(data.metrics)
    .filter(([, metric]) => metric.thresholds && Object.values(metric.thresholds).some((t) => !t.ok))
    .map(([name]) => name);
  const document = { script, generatedAt: new Date().toISOString(), failedThresholds, report, metrics: data.metrics };
  const outputs = {
    stdout: `\n${script}\n${JSON.stringify(report, null, 2)}\nfailed thresholds: ${failedThresholds.join(', ') || 'none'}\n`,
  };
  if (summaryPath) outputs[summaryPath] = JSON.stringify(document, null, 2);
  return outputs;
}

/** Rounds a millisecond value for reports, keeping null as null. */
export function ms(value) {
  return value === null || value === undefined ? null : Math.round(value * 10) / 10;
}
