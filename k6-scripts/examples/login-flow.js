// login-flow.js: a custom flow for danki's runner.js that warms a service behind a login: POST
// /auth/login with the credentials of a Secret, then GET /auth/me and GET /exams/{id} with the token it
// returned (`Authorization: Bearer <token>`). One flow = three requests, so the login path warms too.
// setup() logs in once before the cold pass: wrong credentials then abort the run with that message
// instead of failing every flow.
//
// Run locally (docs/custom-flows.md), with the Secret's keys as files in a directory:
//   mkdir -p /tmp/secret && printf demo > /tmp/secret/username && printf demo-password > /tmp/secret/password
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e FLOW_PATH=$PWD/k6-scripts/examples/login-flow.js \
//     -e SECRET_DIR=/tmp/secret -e SUMMARY_PATH=/tmp/s.json k6-scripts/runner.js
// For danki: this file as flow.js of a ConfigMap, and a Secret with the keys username and password:
//   kubectl create configmap login-flow --from-file=flow.js=k6-scripts/examples/login-flow.js
//   kubectl create secret generic warmup-login --from-literal=username=demo --from-literal=password=...
//   kubectl annotate deployment exam-server danki.dev/script=login-flow danki.dev/script-secret=warmup-login
import http from 'k6/http';

/** The Secret keys this flow reads with vars.secret(name); runner.js reads them before the run. */
export const secrets = ['username', 'password'];

const EXAMS = 20;
let logins = 0;

/** Logs in once before the cold pass; the user name it proved goes into vars. */
export async function setup(baseUrl, vars) {
  await login(baseUrl, vars);
  return { username: vars.secret('username') };
}

export async function flow(baseUrl, vars, i) {
  const token = await login(baseUrl, vars);
  const authorized = Object.assign({ Authorization: `Bearer ${token}` }, vars.headers);

  const me = await http.asyncRequest('GET', `${baseUrl}/auth/me`, null, { headers: authorized, tags: { name: 'GET /auth/me' } });
  if (me.status !== 200) throw new Error(`GET /auth/me answered ${me.status} with a fresh token`);
  if (me.json().username !== vars.username) throw new Error(`GET /auth/me named ${me.json().username}, not ${vars.username}`);

  const examId = (i % EXAMS) + 1;
  const exam = await http.asyncRequest('GET', `${baseUrl}/exams/${examId}`, null, {
    headers: authorized,
    tags: { name: 'GET /exams/{id}' },
    responseType: 'none',
  });
  if (exam.status !== 200) throw new Error(`GET /exams/${examId} answered ${exam.status}`);
}

/** POST /auth/login with the Secret's credentials; resolves to the token. */
async function login(baseUrl, vars) {
  const body = JSON.stringify({ username: vars.secret('username'), password: vars.secret('password') });
  const res = await http.asyncRequest('POST', `${baseUrl}/auth/login`, body, {
    headers: Object.assign({ 'Content-Type': 'application/json' }, vars.headers),
    tags: { name: 'POST /auth/login' },
  });
  if (res.status !== 200) throw new Error(`POST /auth/login as ${vars.secret('username')} answered ${res.status}`);
  const token = res.json().token;
  if (typeof token !== 'string' || token === '') throw new Error('POST /auth/login answered without a token');
  logins++;
  return token;
}

export function notes() {
  return [`${logins} logins, each token used for GET /auth/me and GET /exams/{id}`];
}
