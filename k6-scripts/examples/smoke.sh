#!/usr/bin/env bash
# smoke.sh: does every custom-flow example warm the sample service through runner.js, as a runner pod
# would run it? Starts the sample service on loopback (sample-service/scripts/service.sh), lays each
# example out as danki mounts it (its ConfigMap's keys as files in one directory, the Secret's in
# another), runs runner.js with a short warm-up and checks each summary: stop reason not Aborted or
# OutOfTime, cold and warm P25..P95 present, no failed flow, at most 4096 bytes. Then two runs that must
# fail: a flow that always throws (Aborted, naming the flow's error) and a flow that calls another
# address (Aborted: runner.js reaches only BASE_URL's host). Prints one line per run; exits non-zero
# when any check fails.
#   k6-scripts/examples/smoke.sh   (needs bin/k6 and sample-service/target/sample-service-all.jar)
# Env: K6 (default bin/k6), SMOKE_DIR (default .work/custom-flows-smoke).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
K6=${K6:-$REPO/bin/k6}
OUT=${SMOKE_DIR:-$REPO/.work/custom-flows-smoke}
source "$REPO/sample-service/scripts/service.sh"
rm -rf "$OUT" && mkdir -p "$OUT"
trap sample_stop EXIT

USERNAME=warmer
PASSWORD="smoke-$RANDOM-$RANDOM"
sample_start "$OUT/service.log" AUTH_USERNAME="$USERNAME" AUTH_PASSWORD="$PASSWORD"
echo "smoke: sample-service at $SAMPLE_URL, gRPC on port $SAMPLE_GRPC_PORT (log $OUT/service.log)"

# flow_dir NAME KEY=FILE...: a directory laid out as the runner pod's /var/run/danki/flow/
flow_dir() {
  local dir="$OUT/$1/flow"; shift
  mkdir -p "$dir"
  local pair
  for pair in "$@"; do cp "${pair#*=}" "$dir/${pair%%=*}"; done
  echo "$dir"
}
SECRET_DIR="$OUT/secret"
mkdir -p "$SECRET_DIR"
printf '%s\n' "$USERNAME" >"$SECRET_DIR/username"
printf '%s' "$PASSWORD" >"$SECRET_DIR/password"

failed=0
passed=0
# run NAME FLOW_PATH EXPECT [VAR=value...]: runner.js with a short warm-up; EXPECT is "ok" or "abort:<text>"
run() {
  local name=$1 flow=$2 expect=$3; shift 3
  local summary="$OUT/$name.summary.json"
  env BASE_URL="$SAMPLE_URL" FLOW_PATH="$flow" SECRET_DIR="$SECRET_DIR" SUMMARY_PATH="$summary" \
    GRPC_PORT="$SAMPLE_GRPC_PORT" REQUESTS=20 RATE=20 MIN_WARMUP_REQUESTS=200 MAX_WARMUP_REQUESTS=600 \
    TIME_BUDGET_S=90 "$@" timeout 120 "$K6" run --no-usage-report -q --address '' "$REPO/k6-scripts/runner.js" \
    >"$OUT/$name.log" 2>&1 || true
  if python3 "$HERE/check-summary.py" "$name" "$summary" "$expect"; then
    passed=$((passed + 1))
  else
    echo "smoke: $name FAILED; k6 log $OUT/$name.log" >&2
    tail -n 15 "$OUT/$name.log" >&2
    failed=$((failed + 1))
  fi
}

EXAMPLES=$HERE
run exam-flow "$(flow_dir exam-flow flow.js="$EXAMPLES/exam-flow.js" exam.js="$REPO/k6-scripts/lib/exam.js")/flow.js" ok
run login-flow "$(flow_dir login-flow flow.js="$EXAMPLES/login-flow.js")/flow.js" ok
run grpc-flow "$(flow_dir grpc-flow flow.js="$EXAMPLES/grpc-flow.js" exam.js="$REPO/k6-scripts/lib/exam.js" \
  exam.proto="$EXAMPLES/exam.proto")/flow.js" ok
# the same example straight from the repository, as docs/custom-flows.md runs it on a laptop
run exam-flow-from-repo "$EXAMPLES/exam-flow.js" ok

cat >"$OUT/throws.js" <<'JS'
export async function flow(baseUrl, vars, i) {
  throw new Error(`the flow broke on purpose at ${i}`);
}
JS
run flow-throws "$OUT/throws.js" 'abort:flow threw Error: the flow broke on purpose'
cat >"$OUT/elsewhere.js" <<'JS'
import http from 'k6/http';
export async function flow(baseUrl) {
  const port = baseUrl.split(':').pop();
  const res = await http.asyncRequest('GET', `http://127.0.0.2:${port}/healthz`, null, { timeout: '2s' });
  if (res.status !== 200) throw new Error(`127.0.0.2 answered ${res.status}: ${res.error}`);
}
JS
run flow-elsewhere "$OUT/elsewhere.js" 'abort:ip is blacklisted'

echo "smoke: $passed passed, $failed failed"
exit $((failed > 0))
