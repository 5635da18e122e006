// Reads a JVM's cumulative JIT compile time from its Prometheus metrics page. No k6 imports, so node
// can test it (operator/src/test/js/jit.test.mjs).
//
// The counter has two common names:
//   jvm_compilation_time_ms_total       Micrometer's JvmCompilationMetrics (Spring Boot Actuator, Ktor), in ms
//   jvm_compilation_time_seconds_total  the Prometheus Java client's JVM metrics and the JMX exporter, in s
// Both come from the JVM's CompilationMXBean: the time its compiler threads spent compiling, summed.

const COUNTERS = [
  { name: 'jvm_compilation_time_ms_total', toMs: 1 },
  { name: 'jvm_compilation_time_seconds_total', toMs: 1000 },
];

/** Names of the counters danki looks for, for messages. */
export const JIT_COUNTER_NAMES = COUNTERS.map((c) => c.name);

/**
 * The cumulative JIT compile time in ms on a Prometheus text page, and the counter it came from;
 * null when the page has neither counter. Series of one counter (e.g. per compiler label) are summed.
 *
 * @param {string} text  a Prometheus text-format or OpenMetrics page
 * @returns {{ms: number, metric: string}|null}
 */
export function compileTimeMs(text) {
  if (typeof text !== 'string') return null;
  for (const { name, toMs } of COUNTERS) {
    let sum = 0;
    let found = false;
    for (const line of text.split('\n')) {
      if (!line.startsWith(name)) continue;
      const rest = line.slice(name.length);
      // the exact name: a label set or a space follows, not more letters (e.g. a _created sample)
      if (rest[0] !== '{' && rest[0] !== ' ') continue;
      const value = Number(rest.replace(/^\{[^}]*\}/, '').trim().split(/\s+/)[0]);
      if (!Number.isFinite(value)) continue;
      sum += value;
      found = true;
    }
    if (found) return { ms: sum * toMs, metric: name };
  }
  return null;
}
