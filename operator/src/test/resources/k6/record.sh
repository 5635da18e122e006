#!/usr/bin/env bash
# record.sh - records the k6 summaries the parser tests read, from real runs of k6-scripts/warmup.js
# and of k6-scripts/runner.js (custom flows: summary-runner-*.json, compact, as a runner pod's
# termination message) against the sample service on loopback. Run it again whenever the summary
# format changes:
#   operator/src/test/resources/k6/record.sh   (needs bin/k6 and sample-service/target/sample-service-all.jar)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../../../.." && pwd)
K6=${K6:-$REPO/bin/k6}
source "$REPO/sample-service/scripts/service.sh"
trap sample_stop EXIT
sample_start "$(mktemp)"
closed_port=$(free_port)

record() { # NAME ENV... : one warmup.js run, its summary into summary-NAME.json
  local name=$1; shift
  env SUMMARY_PATH="$HERE/summary-$name.json" "$@" timeout 300 "$K6" run --no-usage-report -q \
    "$REPO/k6-scripts/warmup.js" >/dev/null 2>&1 || true
  echo "recorded summary-$name.json: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stopReason"])' "$HERE/summary-$name.json")"
}
EXAM='GET /exams/1; GET /exams/2'
record converged BASE_URL="$SAMPLE_URL" PATHS="$EXAM" MIN_WARMUP_REQUESTS=400
# the sample's page has the process CPU counter beside the JIT counter: the cpu rule. summary-jit-settled.json
# (the jit rule: the JIT counter alone) was recorded by warmup.js before it read that counter, and is kept
record cpu-settled BASE_URL="$SAMPLE_URL" PATHS="$EXAM" MIN_WARMUP_REQUESTS=400 JIT_METRICS_URL="$SAMPLE_URL/metrics"
record jit-missing BASE_URL="$SAMPLE_URL" PATHS="$EXAM" MIN_WARMUP_REQUESTS=400 JIT_METRICS_URL="$SAMPLE_URL/healthz"
record not-found BASE_URL="$SAMPLE_URL" PATHS='GET /exam/1' REQUESTS=20 RATE=50
# an open warm pass of 100 at 20/s outlasts a 3 s budget (a closed one on a warm JVM would not)
record out-of-time BASE_URL="$SAMPLE_URL" PATHS="$EXAM" TIME_BUDGET_S=3 COLD_PASS=open
record unreachable BASE_URL="http://127.0.0.1:$closed_port"
record cold-only BASE_URL="$SAMPLE_URL" PATHS="$EXAM" REQUESTS=20 RATE=50 PHASES=cold

record_runner() { # NAME FLOW ENV... : one runner.js run of a flow module, its summary into summary-runner-NAME.json
  local name=$1 flow=$2; shift 2
  env SUMMARY_PATH="$HERE/summary-runner-$name.json" BASE_URL="$SAMPLE_URL" FLOW_PATH="$flow" "$@" \
    timeout 300 "$K6" run --no-usage-report -q "$REPO/k6-scripts/runner.js" >/dev/null 2>&1 || true
  echo "recorded summary-runner-$name.json: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stopReason"])' "$HERE/summary-runner-$name.json")"
}
throwing_flow=$(mktemp --suffix=.js)
echo 'export async function flow() { throw new Error("login answered 401"); }' >"$throwing_flow"
record_runner exam-flow "$REPO/k6-scripts/examples/exam-flow.js" MIN_WARMUP_REQUESTS=400
record_runner flow-throws "$throwing_flow" REQUESTS=20
rm -f "$throwing_flow"
