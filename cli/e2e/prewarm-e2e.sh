#!/usr/bin/env bash
# prewarm-e2e.sh - `danki prewarm` end to end on the running local cluster (KUBECONFIG), with the
# operator jar running on this machine (no leader election, watching only the test namespace), the
# sample service as real JVM pods, and real k6. Then the chart's dashboard and alert queries are
# checked against that operator's /metrics (charts/danki/tests/metrics_check.py).
#
#  1. a Deployment that is not opted in: prewarm exits 7 with the exact annotate command
#  2. exam (opted in, 1 replica) rolls out warmed; prewarm --replicas 2 exits 0 with GO and the table
#  3. report -o json lists the warmed pods; a Deployment warmed on a missing path fails its warm-up
#  4. the operator's /metrics, with those series, is the truth for metrics_check.py
#
# Env (set by cli/cli.mk): REPO, KUBECTL, K6, OPERATOR_JAR; KUBECONFIG. Bounded: every wait has a deadline.
set -euo pipefail
: "${REPO:?}" "${KUBECTL:?}" "${K6:?}" "${OPERATOR_JAR:?}" "${KUBECONFIG:?}"
K=$KUBECTL
DANKI=$REPO/bin/danki
NS=danki-cli-e2e-$$
OUT=$REPO/cli/target/e2e
mkdir -p "$OUT"
T0=$(date +%s)
OPERATOR_PID=

say() { printf '==> [%3ss] %s\n' "$(($(date +%s) - T0))" "$*"; }
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }
cleanup() {
  local rc=$?
  if [[ -n $OPERATOR_PID ]]; then kill "$OPERATOR_PID" 2>/dev/null || true; wait "$OPERATOR_PID" 2>/dev/null || true; fi
  $K delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  say "done (exit $rc); operator log: $OUT/operator.log"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# deployment NAME OPTED_IN REPLICAS PATH [TIMEOUT]: a sample-service Deployment warmed on PATH
deployment() {
  local annotations="{}"
  if [[ $2 == 1 ]]; then
    annotations="{danki.dev/warmup: enabled, danki.dev/port: http, danki.dev/paths: 'GET $4', danki.dev/failure-policy: open,
      danki.dev/min-warmup-requests: '300', danki.dev/max-warmup-requests: '1500', danki.dev/timeout: ${5:-4m}}"
  fi
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, annotations: $annotations}
spec:
  replicas: $3
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      terminationGracePeriodSeconds: 5
      containers:
        - name: app
          image: danki/sample-service:dev
          env: [{name: PORT, value: "8080"}]
          ports: [{name: http, containerPort: 8080}]
          resources: {requests: {cpu: 100m, memory: 256Mi}}
          readinessProbe: {httpGet: {path: /readyz, port: http}, periodSeconds: 1, timeoutSeconds: 5, failureThreshold: 10}
YAML
}

say "namespace $NS, danki CRDs, operator on this machine"
$K apply -f "$REPO/charts/danki/crds/" >/dev/null
$K create namespace "$NS" >/dev/null
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
DANKI_WATCH_NAMESPACES=$NS DANKI_LEADER_ELECTION=false DANKI_HTTP_PORT=$PORT DANKI_LOG_FORMAT=text \
  DANKI_K6_BINARY=$K6 DANKI_K6_SCRIPT=$REPO/k6-scripts/warmup.js java -Xmx256m -jar "$OPERATOR_JAR" >"$OUT/operator.log" 2>&1 &
OPERATOR_PID=$!

say "1. not opted in: exit 7 and the annotate command"
deployment cold 0 0 / | $K -n "$NS" apply -f - >/dev/null
rc=0; "$DANKI" prewarm deployment/cold -n "$NS" --replicas 2 >"$OUT/not-opted-in.out" 2>&1 || rc=$?
cat "$OUT/not-opted-in.out"
[[ $rc == 7 ]] || fail "prewarm of a Deployment not opted in exited $rc, expected 7"
grep -q "kubectl annotate deployment/cold -n $NS danki.dev/warmup=enabled --overwrite" "$OUT/not-opted-in.out" ||
  fail "no annotate command in the output"

say "2. exam: one warmed replica, then prewarm to 2"
deployment exam 1 1 /exams/1 | $K -n "$NS" apply -f - >/dev/null
# a warm-up that fails (404s: TooManyErrors) and is released by policy open, while exam is prewarmed.
# Its timeout leaves room to wait for exam's warm-up first: on one node of the local cluster the two
# share that node's warm-up slot, and exam's took 35 s on a loaded host, past a 40 s timeout (QueueTimeout)
deployment broken 1 1 /no-such-page 90s | $K -n "$NS" apply -f - >/dev/null
for i in $(seq 1 90); do
  gates=$($K -n "$NS" get deploy exam -o jsonpath='{.spec.template.spec.readinessGates[*].conditionType}')
  [[ $gates == *danki.dev/warmed* ]] && break
  ((i < 90)) || fail "the operator did not add its readiness gate to exam in 90 s (see $OUT/operator.log)"
  sleep 1
done
$K -n "$NS" rollout status deploy/exam --timeout=240s
rc=0; "$DANKI" prewarm deployment/exam -n "$NS" --replicas 2 --timeout 4m --max-warm-p95 5s | tee "$OUT/prewarm.out" || rc=$?
[[ $rc == 0 ]] || fail "prewarm exited $rc, expected 0 (GO)"
grep -q "^GO: 1 new pods warmed" "$OUT/prewarm.out" || fail "no GO line"
grep -Eq "^deployment/exam +1/1 warmed" "$OUT/prewarm.out" || fail "no Deployment line in the table"

say "3. report, and a warm-up that fails"
"$DANKI" report deployment/exam -n "$NS" -o json >"$OUT/report.json"
python3 - "$OUT/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
warmed = [p for p in report["pods"] if p["phase"] == "Succeeded" and p["warmP95"] and p["coldP95"]]
assert len(warmed) >= 2, f"expected 2 warmed pods with cold and warm P95, got {report['pods']}"
print(f"report: {len(warmed)} warmed pods, deployment line {report['deployment']['phase']}")
PY
for i in $(seq 1 60); do
  phases=$($K -n "$NS" get warmupruns -o jsonpath='{range .items[?(@.spec.deployment=="broken")]}{.status.phase}{" "}{end}')
  [[ $phases == *Failed* ]] && break
  ((i < 60)) || fail "broken's warm-up did not fail in 120 s (phases: $phases)"
  sleep 2
done
"$DANKI" report deployment/broken -n "$NS"

say "4. the dashboard and alert queries against this operator's /metrics"
curl -fsS "http://127.0.0.1:$PORT/metrics" >"$OUT/operator-metrics.txt"
grep -c '^danki_' "$OUT/operator-metrics.txt" | xargs printf '    %s danki samples scraped\n'
grep -E '^danki_gated_pods\{deployment="exam",.*state="warmed"\} 2' "$OUT/operator-metrics.txt" ||
  fail "danki_gated_pods does not count exam's 2 warmed pods"
grep -E '^danki_gated_pods\{deployment="broken",.*state="failed"\} 1' "$OUT/operator-metrics.txt" ||
  fail "danki_gated_pods does not count broken's pod, released by policy open, as failed"
grep -E '^danki_warmup_failures_total\{deployment="broken",.*reason="TooManyErrors"\}' "$OUT/operator-metrics.txt" ||
  fail "danki_warmup_failures_total has no TooManyErrors for broken"
python3 "$REPO/charts/danki/tests/metrics_check.py" --metrics "$OUT/operator-metrics.txt" \
  --helm "$REPO/bin/helm3" "$REPO/charts/danki"
say "prewarm e2e passed"
