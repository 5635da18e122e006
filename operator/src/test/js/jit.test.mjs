// Unit tests of the JIT counter reader in k6-scripts/lib/jit.js (run: make test-unit-operator-js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTimeMs, processCpuMs, readPage } from '../../../../k6-scripts/lib/jit.js';

test('Micrometer counter in ms, summed over its series', () => {
  const page = [
    '# HELP jvm_compilation_time_ms_total The approximate accumulated elapsed time spent in compilation',
    '# TYPE jvm_compilation_time_ms_total counter',
    'jvm_compilation_time_ms_total{compiler="HotSpot 64-Bit Tiered Compilers"} 4821.0',
    'jvm_compilation_time_ms_total{compiler="other"} 9.0',
    'jvm_compilation_time_ms_created 1.7e9',
  ].join('\n');
  assert.deepEqual(compileTimeMs(page), { ms: 4830, metric: 'jvm_compilation_time_ms_total' });
});

test('Prometheus Java client counter in seconds, converted to ms', () => {
  const page = '# TYPE jvm_compilation_time_seconds counter\njvm_compilation_time_seconds_total 3.25\n';
  assert.deepEqual(compileTimeMs(page), { ms: 3250, metric: 'jvm_compilation_time_seconds_total' });
});

test('a look-alike name does not count', () => {
  assert.equal(compileTimeMs('jvm_compilation_time_ms_total_extra 5\njvm_gc_pause_seconds_count 3\n'), null);
});

test('a page without the counter, or no page, gives null', () => {
  assert.equal(compileTimeMs('process_cpu_usage 0.5\n'), null);
  assert.equal(compileTimeMs(''), null);
  assert.equal(compileTimeMs(undefined), null);
});

test('an OpenMetrics sample with a timestamp and exemplar reads its value', () => {
  assert.deepEqual(compileTimeMs('jvm_compilation_time_ms_total{compiler="c2"} 120 1700000000\n'),
    { ms: 120, metric: 'jvm_compilation_time_ms_total' });
});

test('the process CPU counter: Micrometer in ns, the Prometheus clients in s', () => {
  assert.deepEqual(processCpuMs('# TYPE process_cpu_time_ns_total counter\nprocess_cpu_time_ns_total{application="shop"} 4.06E9\n'),
    { ms: 4060, metric: 'process_cpu_time_ns_total' });
  assert.deepEqual(processCpuMs('process_cpu_seconds_total 12.5\n'), { ms: 12500, metric: 'process_cpu_seconds_total' });
  assert.equal(processCpuMs('process_cpu_usage 0.5\n'), null);
});

test('a page read: the JIT counter with the CPU counter when there is one, null without a JIT counter', () => {
  const page = 'jvm_compilation_time_ms_total 2688\nprocess_cpu_time_ns_total 3.46E9\n';
  assert.deepEqual(readPage(page),
    { ms: 2688, metric: 'jvm_compilation_time_ms_total', cpuMs: 3460, cpuMetric: 'process_cpu_time_ns_total' });
  assert.deepEqual(readPage('jvm_compilation_time_ms_total 2688\n'),
    { ms: 2688, metric: 'jvm_compilation_time_ms_total', cpuMs: null, cpuMetric: null });
  assert.equal(readPage('process_cpu_seconds_total 12.5\n'), null);
});
