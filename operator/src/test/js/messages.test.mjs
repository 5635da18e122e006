// Unit tests of the texts carried to handleSummary in check names, k6-scripts/lib/messages.js
// (run: make test-unit-operator-js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TEXT, messageName, messagesOf, noteKey, oneLine } from '../../../../k6-scripts/lib/messages.js';

const asData = (...names) => ({ root_group: { checks: names.map((name) => ({ name, passes: 1, fails: 0 })) } });

test('failures, the abort reason and notes come back from their check names', () => {
  const data = asData(
    messageName('failure:cold', '404 from GET /exam/1'),
    'a tenant\'s own check',
    messageName(noteKey(1), 'second'),
    messageName('abort', 'setup() failed: Error: 401'),
    messageName(noteKey(0), 'first'),
  );
  assert.deepEqual(messagesOf(data), {
    failures: { cold: '404 from GET /exam/1' }, abort: 'setup() failed: Error: 401', notes: ['first', 'second'],
  });
  assert.deepEqual(messagesOf({}), { failures: {}, abort: null, notes: [] });
});

test('a check name never holds "::", which k6 refuses', () => {
  for (const text of ['a::b', ':::', 'std::vector<int>::iterator', '::']) {
    const name = messageName('abort', text);
    assert.ok(!name.includes('::'), name);
  }
  assert.ok(!messageName('failure:cold', ':starts with a colon').includes('::'));
});

test('texts become one line of at most 200 characters', () => {
  assert.equal(oneLine('  Error: boom\n    at flow (file.js:3)\t '), 'Error: boom at flow (file.js:3)');
  const long = oneLine('x'.repeat(500));
  assert.equal([...long].length, MAX_TEXT);
  assert.ok(long.endsWith('…'));
  // emoji are one character each, and a lone surrogate is replaced rather than kept as invalid UTF-8
  assert.equal([...oneLine('😀'.repeat(300))].length, MAX_TEXT);
  assert.equal(oneLine('a\ud800b'), 'a\ufffdb');
});
