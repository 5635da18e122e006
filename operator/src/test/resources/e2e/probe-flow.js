// A custom flow for the runner-pod E2E (OperatorE2E): it warms the sample service like any flow, and
// on the side looks for what a tenant's flow must never reach; notes() reports what it found.
import http from 'k6/http';

// open() works only while the module loads; the runner pod has no service-account token mounted
let token;
try {
  token = open('/var/run/secrets/kubernetes.io/serviceaccount/token').length > 0 ? 'readable' : 'empty';
} catch (e) {
  token = 'absent';
}

// the operator's own variables (DANKI_*) or a kubeconfig; KUBERNETES_SERVICE_* are not the operator's:
// every pod gets them, whatever enableServiceLinks says, and the runner cannot reach that address
const leaked = Object.keys(__ENV).filter((k) => /^(DANKI_|KUBECONFIG)/.test(k)).sort();

let otherAddress = 'not tried';

export async function flow(baseUrl, vars, i) {
  const res = await http.asyncRequest('GET', `${baseUrl}/exams/${1 + (i % 2)}`, null, { headers: vars.headers });
  if (res.status !== 200) throw new Error(`GET /exams answered ${res.status}`);
  if (i === 0 && otherAddress === 'not tried') {
    // the node's bridge address (x.y.z.1 on the local cluster): any address but the pod's must fail
    const node = baseUrl.replace(/^http:\/\/(\d+\.\d+\.\d+)\.\d+:\d+$/, 'http://$1.1:80/');
    const other = await http.asyncRequest('GET', node, null, { timeout: '2s' });
    otherAddress = other.status === 0 ? `blocked (${other.error_code})` : `answered ${other.status}`;
  }
}

export function notes() {
  return [`token: ${token}`, `operator env: ${leaked.join(',') || 'none'}`, `other address: ${otherAddress}`];
}
