#!/usr/bin/env bash
# run.sh - `make bench-stop-rule`: which warm-up stop rule of k6-scripts/warmup.js stops soonest while
# still leaving the pod warm? Writes bench/results/stop-rule.md from one run.
#
# For each variant (a set of warmup.js env vars) and each of BENCH_REPEATS fresh JVMs of the sample
# service on loopback: one warmup.js run on the demo's exam flow (cold pass, warm-up, warm pass, at
# danki's defaults), then FULL_WARM more requests at 200/s, then one more pass of the same 100
# requests: the pod's fully warm P95. A good rule stops early (few warm-up requests) with a warm
# pass close to fully warm.
#
# Env: BENCH_REPEATS (3), FULL_WARM (3000), VARIANTS (one per line, env assignments; see below).
# Set by the Makefile: REPO, K6.
set -euo pipefail
: "${REPO:?set by the Makefile}" "${K6:?set by the Makefile}"
source "$REPO/sample-service/scripts/service.sh"
OUT=$REPO/.work/bench-stop-rule
RESULTS=${BENCH_RESULTS:-$REPO/bench/results/stop-rule.md}
REPEATS=${BENCH_REPEATS:-3} FULL_WARM=${FULL_WARM:-3000}
# Each variant names every setting it compares, so the table does not depend on warmup.js's defaults.
VARIANTS=${VARIANTS:-"ROLLING_WINDOWS=1 TOLERANCE=0.1 STABLE_WINDOWS=3
ROLLING_WINDOWS=3 TOLERANCE=0.1 STABLE_WINDOWS=3
ROLLING_WINDOWS=3 TOLERANCE=0.05 STABLE_WINDOWS=3
ROLLING_WINDOWS=3 TOLERANCE=0.1 STABLE_WINDOWS=5
ROLLING_WINDOWS=5 TOLERANCE=0.1 STABLE_WINDOWS=5"}
PATHS=$(sed -n '/^danki.dev\/paths: |$/,$p' "$REPO/demo/manifests/warmup-annotations.yaml" | tail -n +2 | sed 's/^  //')
rm -rf "$OUT" && mkdir -p "$OUT"
trap sample_stop EXIT

k6() { # NAME ENV... : warmup.js with the demo's paths, its summary in $OUT/NAME.json
  local name=$1; shift
  env BASE_URL="$SAMPLE_URL" PATHS="$PATHS" SUMMARY_PATH="$OUT/$name.json" "$@" \
    timeout 600 "$K6" run --no-usage-report -q "$REPO/k6-scripts/warmup.js" >"$OUT/$name.log" 2>&1
}

i=0
while IFS= read -r variant; do
  [[ -n $variant ]] || continue
  i=$((i + 1))
  echo "$variant" >"$OUT/v$i.variant"
  for ((r = 1; r <= REPEATS; r++)); do
    echo "stop-rule: variant $i ($variant), run $r of $REPEATS"
    sample_start "$OUT/v$i-r$r.service.log"
    # shellcheck disable=SC2086 # the variant is a list of assignments
    k6 "v$i-r$r" $variant
    env BASE_URL="$SAMPLE_URL" COUNT="$FULL_WARM" RATE=200 PATHS="$PATHS" \
      "$K6" run --no-usage-report -q "$REPO/bench/warmup/fixed-warmup.js" >"$OUT/v$i-r$r.full.log" 2>&1
    k6 "v$i-r$r-steady" MAX_WARMUP_REQUESTS=1 REQUESTS=100
    sample_stop
  done
done <<<"$VARIANTS"

{ echo "machine=$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit=$(git -C "$REPO" rev-parse --short HEAD)"
  echo "k6=$("$K6" version 2>/dev/null | head -1)"
  echo "repeats=$REPEATS"
  echo "full_warm=$FULL_WARM"
  echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/meta.env"
python3 "$REPO/bench/stop-rule/report.py" "$OUT" >"$RESULTS"
cat "$RESULTS"
