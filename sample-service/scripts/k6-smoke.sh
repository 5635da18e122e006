#!/usr/bin/env bash
# A short smoke run of every sample-service k6 script against a fresh service on loopback
# (a few seconds each). DATABASE_URL selects the database (the Makefile passes its PostgreSQL);
# K6 is the k6 binary. Exits non-zero when a script fails its checks or thresholds.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/service.sh"
K6="${K6:-$SAMPLE_REPO/bin/k6}"
OUT="${SMOKE_DIR:-$SAMPLE_REPO/.work/k6-smoke}"
SCRIPTS="$SAMPLE_REPO/k6-scripts"
mkdir -p "$OUT"
trap sample_stop EXIT

# 8 request threads, as in the published head-of-line and runBlocking runs
sample_start "$OUT/service.log" CALL_GROUP_SIZE=8 DB_POOL_SIZE=32 ${DATABASE_URL:+DATABASE_URL="$DATABASE_URL"}
echo "k6-smoke: sample-service at $SAMPLE_URL (log $OUT/service.log)"

failed=0
run() {
  local name="$1"; shift
  echo "k6-smoke: $name"
  if ! env BASE_URL="$SAMPLE_URL" SUMMARY_PATH="$OUT/$name.json" "$@" \
      timeout 120 "$K6" run --no-usage-report -q "$SCRIPTS/$name" >"$OUT/$name.log" 2>&1; then
    echo "k6-smoke: $name FAILED, see $OUT/$name.log" >&2
    tail -n 20 "$OUT/$name.log" >&2
    failed=$((failed + 1))
  fi
}

# check_warmup_summary: warmup.js wrote P25-P95 for each of its three phases.
check_warmup_summary() {
  if ! python3 - "$OUT/warmup.js.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for phase in ("cold", "warmup", "warm"):
    p = s["phases"][phase]
    missing = [k for k in ("p25", "p50", "p75", "p90", "p95") if p.get(k) is None]
    assert p["requests"] > 0 and not missing, f"{phase}: {p}"
PY
  then
    echo "k6-smoke: warmup.js summary lacks a phase's percentiles ($OUT/warmup.js.json)" >&2
    failed=$((failed + 1))
  fi
}

run head-of-line.js SLOW_SECONDS=3 FAST_REQUESTS=16
run runblocking-vs-withcontext.js SECONDS=0.5 CONCURRENCY=16 PHASE_GAP_SECONDS=4
run exam-start.js RATE=10 DURATION=2
run threads-under-load.js RATE=20 DURATION=2 DOWNSTREAM_MS=200
# the operator's script on the exam flow the demo annotates (its danki.dev/paths): cold, a short warm-up, warm
# (a YAML block scalar: the lines after the key that are indented deeper than it)
DEMO_PATHS=$(awk '
  /^ *danki\.dev\/paths: \|$/ { pad = sprintf("%*s", match($0, /[^ ]/) + 1, ""); next }
  pad != "" && index($0, pad) != 1 { exit }
  pad != "" { print substr($0, length(pad) + 1) }' "$SAMPLE_REPO/demo/manifests/warmup/warmup-annotations.yaml")
run warmup.js REQUESTS=20 RATE=20 WARMUP_RATE=50 MAX_WARMUP_REQUESTS=100 TIME_BUDGET_S=60 PATHS="$DEMO_PATHS"
check_warmup_summary

echo "k6-smoke: $((5 - failed)) passed, $failed failed"
exit $((failed > 0))
