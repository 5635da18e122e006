// Unit tests of runner.js's fence around BASE_URL's host, k6-scripts/lib/egress.js (run: make test-unit-operator-js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { egressOptions, hostOf } from '../../../../k6-scripts/lib/egress.js';

/** An address as a bit string, and whether a CIDR holds it: enough of Go's net.IPNet for the test. */
function bitsOf(address) {
  if (address.includes('.')) return address.split('.').map((o) => Number(o).toString(2).padStart(8, '0')).join('');
  return address.split(':').map((g) => parseInt(g, 16).toString(2).padStart(16, '0')).join('');
}
function holds(cidr, address) {
  const [net, length] = cidr.split('/');
  if (net.includes('.') !== address.includes('.')) return false;
  return bitsOf(net).slice(0, Number(length)) === bitsOf(address).slice(0, Number(length));
}
function randomV4() {
  return Array.from({ length: 4 }, () => Math.floor(Math.random() * 256)).join('.');
}

test('an IPv4 pod: every other address is blocked exactly once, the pod never, and every host name', () => {
  const { blacklistIPs, blockHostnames } = egressOptions('http://198.18.0.12:8080');
  assert.deepEqual(blockHostnames, ['*']);
  assert.equal(blacklistIPs.length, 33);
  assert.ok(blacklistIPs.includes('::/0'));
  const v4 = blacklistIPs.filter((c) => c.includes('.'));
  assert.equal(v4.filter((c) => holds(c, '198.18.0.12')).length, 0);
  for (const other of ['198.18.0.13', '198.18.0.11', '127.0.0.1', '10.0.0.1', '0.0.0.0', '255.255.255.255', '198.19.0.12']) {
    assert.equal(v4.filter((c) => holds(c, other)).length, 1, other);
  }
  for (let i = 0; i < 2000; i++) {
    const other = randomV4();
    if (other !== '198.18.0.12') assert.equal(v4.filter((c) => holds(c, other)).length, 1, other);
  }
  assert.ok(v4.includes('0.0.0.0/1'));
  assert.ok(v4.includes('198.18.0.13/32'));
});

test('an IPv6 pod is fenced the same way, IPv4 wholly', () => {
  const { blacklistIPs } = egressOptions('http://[fd00:10:244::1a]:8080/');
  assert.equal(blacklistIPs.length, 129);
  assert.ok(blacklistIPs.includes('0.0.0.0/0'));
  const pod = 'fd00:10:244:0:0:0:0:1a';
  const v6 = blacklistIPs.filter((c) => !c.includes('.'));
  assert.equal(v6.filter((c) => holds(c, pod)).length, 0);
  for (const other of ['fd00:10:244:0:0:0:0:1b', '0:0:0:0:0:0:0:1', 'fe80:0:0:0:0:0:0:1', 'fd00:10:244:0:0:0:0:0']) {
    assert.equal(v6.filter((c) => holds(c, other)).length, 1, other);
  }
});

test('a host name is not fenced (it would have to be resolved); a bad URL is named', () => {
  assert.deepEqual(egressOptions('http://localhost:8080'), {});
  assert.deepEqual(egressOptions('http://exam.shop.svc:8080'), {});
  assert.deepEqual(egressOptions('http://999.1.1.1:80'), {});
  assert.equal(hostOf('http://user:pw@10.1.2.3:80/x'), '10.1.2.3');
  assert.equal(hostOf('http://[::1]:80'), '[::1]');
  assert.throws(() => hostOf('198.18.0.12:8080'), /BASE_URL=198.18.0.12:8080: expected http/);
});
