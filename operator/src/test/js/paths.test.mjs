// Unit tests of the request list parser in k6-scripts/lib/paths.js (run: make test-unit-operator-js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePaths } from '../../../../k6-scripts/lib/paths.js';

test('entries separated by ; or by lines, bodies kept', () => {
  assert.deepEqual(parsePaths('GET /a; post /b {"x":1}'), [
    { method: 'GET', path: '/a', body: null }, { method: 'POST', path: '/b', body: '{"x":1}' }]);
  assert.deepEqual(parsePaths('GET /a\nPOST /b {"x":";"}\n'), [
    { method: 'GET', path: '/a', body: null }, { method: 'POST', path: '/b', body: '{"x":";"}' }]);
});

test('the operator\'s JSON form', () => {
  assert.deepEqual(parsePaths('[{"method":"get","path":"/x","body":null}]'), [{ method: 'GET', path: '/x', body: null }]);
});

test('bad entries are named', () => {
  assert.throws(() => parsePaths('GET'), /PATHS entry 'GET'/);
  assert.throws(() => parsePaths('GET a'), /path starting with \//);
  assert.throws(() => parsePaths('[]'), /non-empty array/);
  assert.throws(() => parsePaths(' ; '), /no entry/);
});
