#!/usr/bin/env bash
# make bench-experiments: reproduce the five published experiments against sample-service on real
# PostgreSQL, one fresh JVM per experiment, and write bench/results/experiments.md from this run.
# Takes about 6 minutes. Env: K6 (k6 binary). The raw k6 summaries stay in .work/experiments.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../../sample-service/scripts/service.sh"
REPO="$SAMPLE_REPO"
K6="${K6:-$REPO/bin/k6}"
OUT="$REPO/.work/experiments"
RESULTS="$REPO/bench/results/experiments.md"
SCRIPTS="$REPO/k6-scripts"
export PG_WORK_DIR="$REPO/.work/postgres-bench"

[[ -x "$K6" ]] || { echo "run.sh: k6 not found at $K6 (make tool-k6)" >&2; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"

cleanup() {
  sample_stop
  "$REPO/tools/postgres.sh" down >/dev/null 2>&1 || true
}
trap cleanup EXIT

"$REPO/tools/postgres.sh" up
DATABASE_URL="$("$REPO/tools/postgres.sh" url)"
# the published runs had 8 request threads; 64 pooled connections keep the pool from being the limit
SERVICE_ENV=(DATABASE_URL="$DATABASE_URL" CALL_GROUP_SIZE=8 DB_POOL_SIZE=64)

machine() {
  {
    echo "nproc=$(nproc)"
    echo "memory=$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
    echo "cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
    echo "jdk=$(java -version 2>&1 | head -n 1)"
    echo "k6=$("$K6" version 2>/dev/null | head -n 1)"
    echo "postgresql=$(psql --version 2>/dev/null || echo unknown)"
    echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "commit=$(git -C "$REPO" rev-parse --short HEAD)"
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } >"$OUT/machine.env"
}

k6_run() {
  local summary="$1" script="$2"; shift 2
  echo "run.sh: k6 $script ($summary)"
  # thresholds state what should reproduce; a miss is recorded in the report, not fatal here
  env BASE_URL="$SAMPLE_URL" SUMMARY_PATH="$OUT/$summary.json" "$@" \
    timeout 600 "$K6" run --no-usage-report -q "$SCRIPTS/$script" >"$OUT/$summary.log" 2>&1 || true
  [[ -s "$OUT/$summary.json" ]] || { echo "run.sh: k6 wrote no summary for $summary, see $OUT/$summary.log" >&2; exit 1; }
}

fresh_service() {
  sample_stop
  sample_start "$OUT/service-$1.log" "${SERVICE_ENV[@]}"
  echo "run.sh: fresh sample-service for $1 at $SAMPLE_URL"
}

machine

# 1. head-of-line blocking: one 20 s query, then 50 concurrent 0.1 s requests, sync then async
fresh_service 1
k6_run exp1-head-of-line head-of-line.js SLOW_SECONDS=20 FAST_SECONDS=0.1 FAST_REQUESTS=50

# 2. runBlocking vs withContext: 100 parallel 3 s requests on each route
fresh_service 2
k6_run exp2-runblocking runblocking-vs-withcontext.js SECONDS=3 CONCURRENCY=100

# 3. blocking vs non-blocking client I/O: 200 concurrent calls to a 3 s downstream (the service's own /slow)
fresh_service 3
downstream="$(printf '%s/slow?ms=3000' "$SAMPLE_URL" | jq -sRr @uri)"
# one small call per mode first, so the measured ones do not pay the clients' class loading
curl -sf --max-time 30 "$SAMPLE_URL/fanout?n=4&mode=nonblocking" >/dev/null
curl -sf --max-time 30 "$SAMPLE_URL/fanout?n=4&mode=blocking" >/dev/null
sleep 2
for mode in nonblocking blocking; do
  echo "run.sh: /fanout n=200 mode=$mode"
  curl -sf --max-time 120 "$SAMPLE_URL/fanout?n=200&mode=$mode&downstream=$downstream" >"$OUT/exp3-fanout-$mode.json"
done

# 4. thread-per-request vs event loop: 200 req/s for 5 s to a 1 s downstream, /threads sampled
fresh_service 4
# a short pass of both modes first, so neither measured mode pays the JVM's own warm-up (class
# loading, JIT) and the latencies compare like with like; then the warm-up's threads idle out (2 s)
k6_run exp4-jvm-warmup threads-under-load.js RATE=50 DURATION=3 DOWNSTREAM_MS=1000
sleep 5
k6_run exp4-threads threads-under-load.js RATE=200 DURATION=5 DOWNSTREAM_MS=1000

# 5. JVM warm-up of the exam flow: 100 flows at 20 rps on a fresh JVM, then after 1, 10, 20 and 40
#    warm-up rounds of 100 flows each (sent with X-Danki-Warmup: 1, so they leave no rows)
fresh_service 5
WARMUP_HEADERS='{"X-Danki-Warmup":"1"}'
k6_run exp5-cold exam-start.js PHASE=cold RATE=20 DURATION=5
k6_run exp5-warmup-1 exam-start.js PHASE=warmup RATE=50 DURATION=2 HEADERS="$WARMUP_HEADERS"
k6_run exp5-after-1 exam-start.js PHASE=after-1 RATE=20 DURATION=5
k6_run exp5-warmup-10 exam-start.js PHASE=warmup RATE=50 DURATION=18 HEADERS="$WARMUP_HEADERS"
k6_run exp5-after-10 exam-start.js PHASE=after-10 RATE=20 DURATION=5
k6_run exp5-warmup-20 exam-start.js PHASE=warmup RATE=50 DURATION=20 HEADERS="$WARMUP_HEADERS"
k6_run exp5-after-20 exam-start.js PHASE=after-20 RATE=20 DURATION=5
k6_run exp5-warmup-40 exam-start.js PHASE=warmup RATE=50 DURATION=40 HEADERS="$WARMUP_HEADERS"
k6_run exp5-warm exam-start.js PHASE=warm RATE=20 DURATION=5
sample_stop

echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.env"
python3 "$HERE/report.py" "$OUT" >"$RESULTS"
echo "run.sh: wrote $RESULTS"
