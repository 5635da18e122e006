#!/usr/bin/env bash
# run-bench.sh - `make bench`: how well danki warms, what it costs, and how that grows.
# Writes bench/results/warmup.md (with this machine's description) from one run, every comparison
# side by side. Raw data stays in .work/bench. About 15-25 minutes on 2 cores.
#
#   quality  P95 of the first 100 real requests to a freshly scaled pod per warm-up strategy, as a
#            ratio to the same pod's fully warm P95; time from ContainersReady to Ready; danki's
#            overhead split into reaction time, k6 start-up and the finishing status patch
#   scale    time until N new pods are all warmed (N in BENCH_SCALE_N) per operator concurrency
#            (BENCH_CONCURRENCY); operator CPU seconds per warmed pod
#   cache    operator RSS and CPU with BENCH_FAKE_PODS opted-in pods in its informer cache
#
# Env: BENCH_SECTIONS ("quality scale cache"), BENCH_STRATEGIES ("none fixed3 fixed100 danki"),
#      BENCH_SCALE_N ("4 8 16"), BENCH_CONCURRENCY ("2 4 8": below, at and above the default 4),
#      BENCH_FAKE_PODS (1000), FULL_WARM (2000 requests) at FULL_WARM_RATE (200/s) to reach the fully
#      warm state, measured STEADY_PASSES (3) times,
#      BENCH_POLL=1 times warm-up requests from outside by polling each pod's /metrics (off: it warms
#      the HTTP stack too), CLUSTER_INSTANCE (local cluster instance, default 0), KEEP=1 keeps the cluster.
# Set by the Makefile: REPO, KUBECTL, K6, HELM, MAKE.
set -euo pipefail
: "${REPO:?set by the Makefile}"
OUT=$REPO/.work/bench
rm -rf "$OUT" && mkdir -p "$OUT"
source "$REPO/bench/warmup/common.sh"
source "$BENCH_DIR/quality.sh"
source "$BENCH_DIR/scale.sh"

BENCH_SECTIONS=${BENCH_SECTIONS:-quality scale cache}
BENCH_STRATEGIES=${BENCH_STRATEGIES:-none fixed3 fixed100 danki}
BENCH_SCALE_N=${BENCH_SCALE_N:-4 8 16}
BENCH_CONCURRENCY=${BENCH_CONCURRENCY:-2 4 8}
BENCH_FAKE_PODS=${BENCH_FAKE_PODS:-1000}
FULL_WARM=${FULL_WARM:-2000} FULL_WARM_RATE=${FULL_WARM_RATE:-200} STEADY_PASSES=${STEADY_PASSES:-3}
SCALE_TIMEOUT=${SCALE_TIMEOUT:-900} CACHE_SAMPLE_S=${CACHE_SAMPLE_S:-30}
EXAM_START=$REPO/k6-scripts/exam-start.js
RESULTS=${BENCH_RESULTS:-$REPO/bench/results/warmup.md}
T_BENCH=$(now_s)

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  jobs -p | xargs -r kill 2>/dev/null || true
  if ((rc != 0)) && [[ -s $RECORDS ]]; then
    warn "the bench stopped early (exit $rc): writing what it measured so far to $RESULTS"
    { "$PY" "$BENCH_DIR/results.py" "$RECORDS"
      printf '\n**Incomplete run:** the bench stopped early (exit %s); sections missing above were not measured.\n' "$rc"
    } >"$RESULTS" || true
  fi
  if [[ ${KEEP:-0} != 1 ]] && cluster_running; then
    $K delete namespace danki-bench danki-bench-cache --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1 || true
    $K delete node bench-fake-node --ignore-not-found >/dev/null 2>&1 || true
    ((INSTALLED_CHART)) && { $HELM uninstall "$RELEASE" -n "$OPERATOR_NS" --wait --timeout 60s >/dev/null 2>&1 || true; }
  fi
  if [[ ${KEEP:-0} != 1 ]] && ((STARTED_CLUSTER)); then "${MAKE:-make}" -C "$REPO" --no-print-directory cluster-down || true; fi
  info "bench finished in $(elapsed "$T_BENCH") s (exit $rc)"
  exit "$rc"
}
STARTED_CLUSTER=0 INSTALLED_CHART=0
trap cleanup EXIT
trap 'warn "interrupted"; exit 130' INT TERM

step setup "cluster and operator"
for t in "$K" "$K6" "$HELM" "$EXAM_START"; do [[ -e $t ]] || die "missing $t (make tools build)"; done
use_cluster
ensure_cluster
$HELM status "$RELEASE" -n "$OPERATOR_NS" >/dev/null 2>&1 || INSTALLED_CHART=1
install_operator 4
$K create namespace danki-bench --dry-run=client -o yaml | $K apply -f - >/dev/null
record section=machine description="\"$(machine_description)\"" date="\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"" \
  k6="\"$($K6 version 2>/dev/null | head -1)\"" commit="\"$(git -C "$REPO" rev-parse --short HEAD)\"" \
  full_warm="$FULL_WARM" full_warm_rate="$FULL_WARM_RATE" steady_passes="$STEADY_PASSES"

for section in $BENCH_SECTIONS; do "bench_$section"; done

step results "writing $RESULTS"
"$PY" "$BENCH_DIR/results.py" "$RECORDS" >"$RESULTS"
cat "$RESULTS"
