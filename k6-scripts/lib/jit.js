// Reads a JVM's cumulative JIT compile time, and its process CPU time, from its Prometheus metrics page. No
// k6 imports, so node can test it (operator/src/test/js/jit.test.mjs).
//
// The JIT counter has two common names:
//   jvm_compilation_time_ms_total       Micrometer's JvmCompilationMetrics (Spring Boot Actuator, Ktor), in ms
//   jvm_compilation_time_seconds_total  the Prometheus Java client's JVM metrics and the JMX exporter, in s
// Both come from the JVM's CompilationMXBean: the time its compiler threads spent compiling, summed.
//
// The process CPU counter, which the warm-up's CPU rule reads beside it, has two as well:
//   process_cpu_time_ns_total           Micrometer's ProcessorMetrics, in ns
//   process_cpu_seconds_total           the Prometheus clients' process metrics and the JMX exporter, in s
// Both are the CPU the whole process used: request threads, GC and the JIT compiler threads alike.

const JIT_COUNTERS = [
  { name: 'jvm_compilation_time_ms_total', toMs: 1 },
  { name: 'jvm_compilation_time_seconds_total', toMs: 1000 },
];

const CPU_COUNTERS = [
  { name: 'process_cpu_time_ns_total', toMs: 1e-6 },
  { name: 'process_cpu_seconds_total', toMs: 1000 },
];

/** Names of the JIT counters danki looks for, for messages. */
export const JIT_COUNTER_NAMES = JIT_COUNTERS.map((c) => c.name);

/** Names of the process CPU counters danki looks for, for messages. */
export const CPU_COUNTER_NAMES = CPU_COUNTERS.map((c) => c.name);

/**
 * The cumulative JIT compile time in ms on a Prometheus text page, and the counter it came from;
 * null when the page has neither counter. Series of one counter (e.g. per compiler label) are summed.
 *
 * @param {string} text  a Prometheus text-format or OpenMetrics page
 * @returns {{ms: number, metric: string}|null}
 */
export function compileTimeMs(text) {
  return firstCounter(text, JIT_COUNTERS);
}

/**
 * The process's cumulative CPU time in ms on a Prometheus text page, and the counter it came from; null
 * when the page has neither counter.
 *
 * @param {string} text  a Prometheus text-format or OpenMetrics page
 * @returns {{ms: number, metric: string}|null}
 */
export function processCpuMs(text) {
  return firstCounter(text, CPU_COUNTERS);
}

/**
 * What one scrape of the page says: the JIT counter ({ms, metric}) and, when the page has one, the process
 * CPU counter (cpuMs, cpuMetric; null without); null when the page has no JIT counter.
 */
export function readPage(text) {
  const jit = compileTimeMs(text);
  if (!jit) return null;
  const cpu = processCpuMs(text);
  return { ...jit, cpuMs: cpu ? cpu.ms : null, cpuMetric: cpu ? cpu.metric : null };
}

/** The first of `counters` on the page, its series summed, in ms. */
function firstCounter(text, counters) {
  if (typeof text !== 'string') return null;
  const lines = text.split('\n');
  for (const { name, toMs } of counters) {
    let sum = 0;
    let found = false;
    for (const line of lines) {
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
