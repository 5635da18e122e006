// k6 options that let runner.js reach only BASE_URL's host: a tenant's flow runs in danki's runner pod,
// and must not be a way to send traffic anywhere else. The runner pod's NetworkPolicy is the real fence;
// this is the second one, and it names the rule in k6's error ("ip is blacklisted", k6 error 1110).
// No k6 imports, so node can test it (operator/src/test/js/egress.test.mjs).

/**
 * {blacklistIPs, blockHostnames} blocking every address but BASE_URL's IP literal (IPv4 or IPv6), and
 * every host name; {} when BASE_URL names a host (e.g. http://localhost:8080 on a laptop), which
 * would have to be resolved to be fenced.
 */
export function egressOptions(baseUrl) {
  const host = hostOf(baseUrl);
  const v4 = ipv4Bits(host);
  if (v4) return { blacklistIPs: [...complement(v4).map((c) => cidr(c, formatV4)), '::/0'], blockHostnames: ['*'] };
  const v6 = host.startsWith('[') ? ipv6Bits(host.slice(1, -1)) : null;
  if (v6) return { blacklistIPs: [...complement(v6).map((c) => cidr(c, formatV6)), '0.0.0.0/0'], blockHostnames: ['*'] };
  return {};
}

/** The host of an http(s) URL, IPv6 literals with their brackets. */
export function hostOf(url) {
  const m = String(url).match(/^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^/:?#]*)/i);
  if (!m) throw new Error(`BASE_URL=${url}: expected http://<host>:<port>`);
  return m[1].toLowerCase();
}

/**
 * Every network outside the single address `bits`, as the fewest prefixes: for each bit, the
 * addresses that share the bits before it and differ in it.
 */
function complement(bits) {
  const prefixes = [];
  for (let k = 0; k < bits.length; k++) {
    const network = bits.slice(0, k).concat([1 - bits[k]]);
    while (network.length < bits.length) network.push(0);
    prefixes.push({ bits: network, length: k + 1 });
  }
  return prefixes;
}

function cidr(prefix, format) {
  return `${format(prefix.bits)}/${prefix.length}`;
}

function ipv4Bits(host) {
  const m = host.match(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
  if (!m) return null;
  const octets = m.slice(1).map(Number);
  if (octets.some((o) => o > 255)) return null;
  return octets.flatMap((o) => toBits(o, 8));
}

function ipv6Bits(text) {
  if (!/^[0-9a-f:]+$/.test(text) || text.split('::').length > 2) return null;
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const groups = (part) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  if (tail === null ? missing !== 0 : missing < 1) return null;
  const all = [...groups(head), ...Array(tail === null ? 0 : missing).fill('0'), ...groups(tail)];
  if (all.some((g) => g.length === 0 || g.length > 4)) return null;
  return all.flatMap((g) => toBits(parseInt(g, 16), 16));
}

function toBits(value, width) {
  const bits = [];
  for (let i = width - 1; i >= 0; i--) bits.push((value >> i) & 1);
  return bits;
}

function fromBits(bits) {
  return bits.reduce((value, bit) => value * 2 + bit, 0);
}

function formatV4(bits) {
  return [0, 8, 16, 24].map((i) => fromBits(bits.slice(i, i + 8))).join('.');
}

function formatV6(bits) {
  return [0, 1, 2, 3, 4, 5, 6, 7].map((i) => fromBits(bits.slice(i * 16, i * 16 + 16)).toString(16)).join(':');
}
