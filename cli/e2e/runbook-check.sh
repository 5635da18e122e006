#!/usr/bin/env bash
# runbook-check.sh - runs the commands of docs/runbook-pre-exam-scale-up.md, as the document writes
# them, against the running local cluster (KUBECONFIG), so the runbook cannot rot silently.
#
# Setup (what a real cluster would already have): the danki chart installed as a user would, in
# webhook mode (release "danki" in its own namespace), and the sample service as the exam service,
# opted in, 2 replicas, with a Service. Then every ```sh block of the runbook runs, in order, in one
# bash shell with `set -euo pipefail`: a command that fails fails the check. The document's own
# Variables block runs first and is then pointed at this cluster (namespace, 3 replicas, a ceiling
# a 2-core machine meets). After the blocks, the outputs that carry the go/no-go are asserted:
# the prewarm said GO, every replica is ready, the Service has that many ready endpoints, every pod
# is WarmedUp, no pod was admitted ungated.
#
# Env (set by the Makefile): REPO, VERSION (the chart's), KUBECTL, HELM, KUBECONFIG, CLUSTER_INSTANCE;
# bin/ holds danki and kubectl.
# Bounded: every wait has a deadline; the namespaces and the release are removed at the end.
set -euo pipefail
: "${REPO:?}" "${VERSION:?}" "${KUBECTL:?}" "${HELM:?}" "${KUBECONFIG:?}"
K=$KUBECTL
DOC=$REPO/docs/runbook-pre-exam-scale-up.md
OUT=$REPO/cli/target/runbook-check
APP_NS=runbook-exams
DANKI_NS=runbook-danki
T0=$(date +%s)
mkdir -p "$OUT"

say() { printf '==> [%3ss] %s\n' "$(($(date +%s) - T0))" "$*"; }
fail() { printf 'runbook-check FAILED: %s\n' "$*" >&2; exit 1; }
cleanup() {
  local rc=$?
  "$HELM" uninstall danki -n "$DANKI_NS" --wait --timeout 60s >/dev/null 2>&1 || true
  $K delete namespace "$APP_NS" "$DANKI_NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  say "done (exit $rc); the runbook's output: $OUT/runbook.log"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The ```sh blocks of the document, in order, each ending in a marker line for the log.
blocks() {
  awk '/^ *```sh$/ {inside=1; n++; next} /^ *```/ && inside {inside=0; print "echo \"--- end of block " n "\""; next} inside {sub(/^   /, ""); print}' "$DOC"
}

[[ -x $REPO/bin/danki ]] || fail "bin/danki missing (make cli)"
[[ $(blocks | grep -c '^echo "--- end of block') -ge 10 ]] || fail "found fewer than 10 sh blocks in $DOC"

say "installing danki (webhook mode) in $DANKI_NS and the exam service in $APP_NS"
"$HELM" uninstall danki -n "$DANKI_NS" --wait --timeout 60s >/dev/null 2>&1 || true
# from the local cluster's OCI registry, as a user installs a release
chart_ref=$(HELM=$HELM "$REPO/charts/scripts/chart-push.sh" | tail -n 1) || fail "charts/scripts/chart-push.sh failed"
"$HELM" install danki "$chart_ref" --version "$VERSION" --plain-http -n "$DANKI_NS" --create-namespace \
  --set concurrency=4 --wait --timeout 180s >/dev/null
$K create namespace "$APP_NS" >/dev/null
$K -n "$APP_NS" apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Service
metadata: {name: exam-server}
spec:
  selector: {app: exam-server}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: exam-server
  annotations:
    danki.dev/warmup: enabled
    danki.dev/port: http
    danki.dev/paths: "GET /exams/1"
    danki.dev/min-warmup-requests: "300"
    danki.dev/max-warmup-requests: "1500"
spec:
  replicas: 2
  selector: {matchLabels: {app: exam-server}}
  template:
    metadata: {labels: {app: exam-server}}
    spec:
      terminationGracePeriodSeconds: 5
      containers:
        - name: app
          image: danki/sample-service:dev
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /readyz, port: http}, periodSeconds: 1, timeoutSeconds: 5, failureThreshold: 10}
YAML
$K -n "$APP_NS" rollout status deploy/exam-server --timeout=240s >/dev/null || fail "the exam service did not become ready"

say "running the runbook's commands ($(blocks | grep -c '^echo "--- end of block') blocks)"
script=$OUT/runbook.sh
{
  echo 'set -euo pipefail'
  echo "export PATH='$REPO/bin':\"\$PATH\""
  # the document's Variables block runs as written (it is block 1); these point it at this cluster after it
  blocks | awk -v ns="$APP_NS" -v dns="$DANKI_NS" '
    {print}
    /^echo "--- end of block 1"$/ {print "NS=" ns " DANKI_NS=" dns " REPLICAS=3 MAX_WARM_P95=2s"}'
} >"$script"
timeout 900 bash "$script" >"$OUT/runbook.log" 2>&1 || {
  tail -30 "$OUT/runbook.log" >&2
  fail "a runbook command failed (above: the end of $OUT/runbook.log)"
}

say "checking what the go/no-go commands printed"
log=$OUT/runbook.log
expect() { # expect DESCRIPTION PATTERN: a line of the log matches PATTERN
  grep -qE "$2" "$log" || fail "$1: no line matches /$2/ in $log"
  say "ok   $1"
}
expect "operator health names a leader" '^leader: runbook-danki|^leader: danki-'
expect "the leader reports danki_leader 1" '^danki_leader 1(\.0)?$'
expect "prewarm says GO" '^GO: '
expect "every replica is ready" '^3/3$'
expect "the Service has 3 ready endpoints" '^3$'
expect "every pod is WarmedUp" '^ +3 WarmedUp$'
! grep -qE 'WarmupFailedOpen' "$log" || fail "a pod joined cold (WarmupFailedOpen)"
! grep -qE '^[^ ]+ +Warning +PodNotGated' "$log" || fail "a pod was admitted without the gate"
say "the runbook's commands run and its go/no-go holds"
