#!/usr/bin/env bash
# run-bench.sh - `make bench`: how soon danki's pods are Ready, how warm they are then, what it
# costs, and how that grows. Writes bench/results/warmup.md and warmup.json from one run, every
# comparison side by side. Raw data stays in .work/bench.
#
#   single   per target (bench/targets/targets.py) and strategy: one new pod (0 -> 1), ContainersReady
#            -> Ready, and the P95 of its first 100 user requests over its own fully warm P95
#   scaleup  the same for a 1 -> SCALEUP_TO scale-up: time until all new pods are Ready, and their
#            median first-100 ratio; danki against the harness's simple serial warmer (cluster_bench.py)
#   scale    time until N new pods are all warmed (N in BENCH_SCALE_N) per operator concurrency
#            (BENCH_CONCURRENCY); operator CPU seconds per warmed pod
#   cache    operator RSS and CPU with BENCH_FAKE_PODS opted-in pods in its informer cache
#   aot      (not by default) per JDK 25 target, BENCH_AOT_PODS new pods at once (0 -> N, a worker node
#            each) warmed by danki without and with its AOT cache: start -> ContainersReady,
#            ContainersReady -> Ready, cold P95, first-100 quality (medians over the pods), and the
#            cache's training. It reinstalls the operator with the AOT chart values, so it runs last.
#            Not in the default list: 4 more scale-ups (about 2.5 min each, as single's) and 2 trainings
#            add some 10-25 min to a run whose single and scaleup took 38 min, and it needs the JDK 25
#            images (danki/sample-service-jdk25, danki/spring-shop-jdk25).
#            BENCH_SECTIONS=aot runs it alone; the other sections in warmup.md and .json are kept from the
#            run that measured them (bench/results/warmup-records.jsonl).
#   boost    (not by default) per target, BENCH_BOOST_PODS new pods at once whose CPU limit
#            (BENCH_BOOST_OWN_CPU, 150m) is below their node's budget, warmed by danki at that limit and
#            with danki.dev/warmup-cpu at the node's budget (an in-place resize while gated, restored
#            before the gate): ContainersReady -> Ready, first-100 quality, medians over the pods. It
#            reinstalls the operator with cpuBoost.enabled. BENCH_SECTIONS=boost runs it alone.
#   speed    (not by default) "warm at the speed of cold": per JDK 25 target, SPEED_PODS (3) new pods at once
#            whose CPU limit (BENCH_BOOST_OWN_CPU, 150m) is below their node's budget: no warm-up; danki with
#            every lever on (the boost from admission at the chart's default, the AOT cache, the JVM told its
#            declared CPU, the stop rule's defaults); danki at the pod's own limit without a cache; every lever
#            with the target's metrics page (danki_all_cpu: the cpu rule); and every lever but one, each in turn (the last reinstalls the operator with
#            cpuBoost.activeProcessorCount=false). Time from `kubectl scale` to Ready per pod, first-100 quality
#            against the pooled fully warm passes of the first two. Reinstalls the operator with the AOT chart
#            values, so it runs last. BENCH_SECTIONS=speed runs it alone (about 45 min).
#
# Env: BENCH_SECTIONS ("single scaleup scale cache"; add aot, or aot alone), BENCH_TARGETS ("sample spring-shop"),
#      BENCH_AOT_TARGETS ("sample-jdk25 spring-shop-jdk25"), BENCH_AOT_STRATEGIES ("danki danki_aot"; add
#      danki_aot_jit for the cache with danki.dev/jit-metrics), BENCH_AOT_PODS (3: one pod per side was
#      too noisy to judge a 0.6x goal by), AOT_TRAIN_TIMEOUT (900 s per training),
#      BENCH_BOOST_PODS (3), BENCH_BOOST_OWN_CPU (150m), BENCH_BOOST_TARGETS (BENCH_TARGETS),
#      BENCH_SINGLE_STRATEGIES ("none serial_fixed100 danki danki_jit"),
#      BENCH_SCALEUP_STRATEGIES ("none serial_fixed100 danki danki_jit"), BENCH_SCALE_N ("4 8": 100m each on the workers),
#      BENCH_CONCURRENCY ("4 16": the old default and the new one), BENCH_FAKE_PODS (1000),
#      BENCH_OPERATOR_SET (extra chart values, e.g. "nodeConcurrency=1"), BENCH_EXTRA_ANNOTATIONS (more
#      danki.dev/ annotations on every danki strategy's Deployment, e.g. "danki.dev/min-warmup-requests=600"), BENCH_RESULTS (the .md to
#      write, default bench/results/warmup.md; the .json beside it),
#      SCALEUP_TO (default: the worker nodes, BENCH_WORKERS), CLUSTER_INSTANCE (the Makefile's
#      BENCH_CLUSTER_INSTANCE), KEEP=1 keeps the cluster.
# The cluster (bench.mk): BENCH_WORKERS worker nodes, where each pod of a strategy runs on a node of
# its own, and a tainted system node for the operator and its k6; control plane, kubelets and
# containerd outside every node's budget. A running cluster of another shape is refused.
# Set by the Makefile: REPO, KUBECTL, K6, HELM, MAKE.
set -euo pipefail
: "${REPO:?set by the Makefile}"
OUT=$REPO/.work/bench
rm -rf "$OUT" && mkdir -p "$OUT"
source "$REPO/bench/warmup/common.sh"
source "$BENCH_DIR/scale.sh"

BENCH_SECTIONS=${BENCH_SECTIONS:-single scaleup scale cache}
NODE_CFS_PERIOD=${NODE_CFS_PERIOD:-10ms}
BENCH_TARGETS=${BENCH_TARGETS:-sample spring-shop}
BENCH_SINGLE_STRATEGIES=${BENCH_SINGLE_STRATEGIES:-none peer_node100 danki}
BENCH_SCALEUP_STRATEGIES=${BENCH_SCALEUP_STRATEGIES:-none peer_node100 danki}
BENCH_SWEEP_FLOORS=${BENCH_SWEEP_FLOORS:-300 600 1000 2000}
BENCH_SCALE_N=${BENCH_SCALE_N:-4 8}
BENCH_CONCURRENCY=${BENCH_CONCURRENCY:-4 16}
BENCH_FAKE_PODS=${BENCH_FAKE_PODS:-1000}
BENCH_AOT_TARGETS=${BENCH_AOT_TARGETS:-sample-jdk25 spring-shop-jdk25}
BENCH_AOT_STRATEGIES=${BENCH_AOT_STRATEGIES:-danki danki_aot}
AOT_TRAIN_TIMEOUT=${AOT_TRAIN_TIMEOUT:-900}
# What the AOT cache needs of the chart (docs/aot-cache.md): the runner image (dev, as the operator's) hashes
# and checks each cache; danki-local is the local cluster's storage class.
AOT_CHART_SET="runner.enabled=true runner.image.tag=dev aotCache.enabled=true aotCache.storageClassName=danki-local"
SCALE_TIMEOUT=${SCALE_TIMEOUT:-900} CACHE_SAMPLE_S=${CACHE_SAMPLE_S:-30}
SCALEUP_TO=${SCALEUP_TO:-${BENCH_WORKERS:-4}}
[[ $SCALEUP_TO =~ ^[2-8]$ ]] || die "SCALEUP_TO must be 2 to 8 (one pod per worker node), got '$SCALEUP_TO'"
BOOST_PODS=${BENCH_BOOST_PODS:-3}
[[ $BOOST_PODS =~ ^[1-8]$ ]] && ((BOOST_PODS <= ${BENCH_WORKERS:-4})) ||
  die "BENCH_BOOST_PODS must be 1 to the worker nodes (${BENCH_WORKERS:-4}; one pod per node), got '$BOOST_PODS'"
BOOST_OWN_CPU=${BENCH_BOOST_OWN_CPU:-150m}
SPEED_PODS=${BENCH_SPEED_PODS:-3}
[[ $SPEED_PODS =~ ^[1-8]$ ]] && ((SPEED_PODS <= ${BENCH_WORKERS:-4})) ||
  die "BENCH_SPEED_PODS must be 1 to the worker nodes (${BENCH_WORKERS:-4}; one pod per node), got '$SPEED_PODS'"
BENCH_SPEED_TARGETS=${BENCH_SPEED_TARGETS:-sample-jdk25 spring-shop-jdk25}
BENCH_SPEED_STRATEGIES=${BENCH_SPEED_STRATEGIES:-none danki_all danki_own danki_no_boost danki_no_aot danki_all_cpu}
# the boost is the node's whole budget: the local cluster's node is a CFS quota no pod may exceed
BOOST_CPU=${NODE_CPU:-350m}
BENCH_BOOST_TARGETS=${BENCH_BOOST_TARGETS:-$BENCH_TARGETS}
AOT_PODS=${BENCH_AOT_PODS:-3}
[[ $AOT_PODS =~ ^[1-8]$ ]] && ((AOT_PODS <= ${BENCH_WORKERS:-4})) ||
  die "BENCH_AOT_PODS must be 1 to the worker nodes (${BENCH_WORKERS:-4}; one pod per node), got '$AOT_PODS'"
RESULTS=${BENCH_RESULTS:-$REPO/bench/results/warmup.md}
RESULTS_JSON=${RESULTS%.md}.json
export OUT RECORDS SCALE_TIMEOUT SCALEUP_TO AOT_PODS AOT_TRAIN_TIMEOUT BOOST_PODS BOOST_OWN_CPU BOOST_CPU SPEED_PODS \
  KUBECTL="$K" K6 NAMESPACE=danki-bench
T_BENCH=$(now_s)

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  jobs -p | xargs -r kill 2>/dev/null || true
  if ((rc != 0)) && [[ -s $RECORDS ]]; then
    warn "the bench stopped early (exit $rc): writing what it measured so far to $RESULTS"
    { "$PY" "$BENCH_DIR/results.py" "$RECORDS" "$RESULTS_JSON"
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
for t in "$K" "$K6" "$HELM"; do [[ -e $t ]] || die "missing $t (make tools build)"; done
use_cluster
ensure_cluster
check_layout
$HELM status "$RELEASE" -n "$OPERATOR_NS" >/dev/null 2>&1 || INSTALLED_CHART=1
install_operator
$K create namespace danki-bench --dry-run=client -o yaml | $K apply -f - >/dev/null
record section=machine description="\"$(machine_description)\"" date="\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"" \
  k6="\"$($K6 version 2>/dev/null | head -1)\"" commit="\"$(git -C "$REPO" rev-parse --short HEAD)\""

# bench_single / bench_scaleup / bench_aot: every target (TARGETS, default BENCH_TARGETS) and strategy,
# one Deployment at a time
bench_strategies() {
  local section=$1 strategies=$2 targets=${3:-$BENCH_TARGETS} t s
  for t in $targets; do
    for s in $strategies; do
      info "$section: $t, $s"
      "$PY" "$BENCH_DIR/cluster_bench.py" "$section" "$t" "$s" || die "$section $t $s failed"
    done
  done
}
bench_single() { step single "one new pod per target and strategy"; bench_strategies single "$BENCH_SINGLE_STRATEGIES"; }
bench_scaleup() { step scaleup "1 -> $SCALEUP_TO per target and strategy"; bench_strategies scaleup "$BENCH_SCALEUP_STRATEGIES"; }
# danki on the same JDK 25 image is the fair other side: the cache is then the only difference.
bench_aot() {
  step aot "0 -> $AOT_PODS per JDK 25 target, danki without and with its AOT cache"
  BENCH_OPERATOR_SET="${BENCH_OPERATOR_SET:-} $AOT_CHART_SET" install_operator
  bench_strategies aot "$BENCH_AOT_STRATEGIES" "$BENCH_AOT_TARGETS"
}

# sweep: danki's floor (danki.dev/min-warmup-requests) at each of BENCH_SWEEP_FLOORS, SWEEP_PODS pods each
bench_sweep() {
  local t floor
  step sweep "danki's floor at ${BENCH_SWEEP_FLOORS// /, } requests, ${SWEEP_PODS:-5} pods each per target"
  for floor in $BENCH_SWEEP_FLOORS; do
    [[ $floor =~ ^[0-9]+$ ]] || die "BENCH_SWEEP_FLOORS: '$floor' is not a whole number"
    for t in $BENCH_TARGETS; do
      info "sweep: $t, floor $floor"
      BENCH_EXTRA_ANNOTATIONS="${BENCH_EXTRA_ANNOTATIONS:-} danki.dev/min-warmup-requests=$floor" \
        "$PY" "$BENCH_DIR/cluster_bench.py" sweep "$t" danki || die "sweep $t $floor failed"
    done
  done
}

# trace: what the JVM does while danki's warm-up loop feeds it, the evidence stop_rules.py judges rules by
bench_trace() {
  local t
  step trace "the JIT at work: ${TRACE_PODS:-5} pods per target under ${TRACE_REQUESTS:-8000} warm-up requests"
  for t in $BENCH_TARGETS; do "$PY" "$BENCH_DIR/trace.py" "$t" || die "trace $t failed"; done
}

bench_boost() {
  step boost "0 -> $BOOST_PODS per target at a CPU limit of $BOOST_OWN_CPU, danki without and with a boost to $BOOST_CPU"
  BENCH_OPERATOR_SET="${BENCH_OPERATOR_SET:-} cpuBoost.enabled=true" install_operator
  bench_strategies boost "danki_limited danki_boost" "$BENCH_BOOST_TARGETS"
}

# speed: the chart's own cpuBoost defaults (the boost from admission on this cluster) with the AOT cache's values;
# the JVM option's share needs an operator without it, so that side runs last, after a reinstall
bench_speed() {
  step speed "0 -> $SPEED_PODS per JDK 25 target at a CPU limit of $BOOST_OWN_CPU: no warm-up, danki with every lever, each lever off"
  BENCH_OPERATOR_SET="${BENCH_OPERATOR_SET:-} $AOT_CHART_SET" install_operator
  bench_strategies speed "$BENCH_SPEED_STRATEGIES" "$BENCH_SPEED_TARGETS"
  if [[ ${BENCH_SPEED_NO_APC:-1} == 1 ]]; then
    BENCH_OPERATOR_SET="${BENCH_OPERATOR_SET:-} $AOT_CHART_SET cpuBoost.activeProcessorCount=false" install_operator
    bench_strategies speed danki_no_apc "$BENCH_SPEED_TARGETS"
  fi
}

for section in $BENCH_SECTIONS; do
  [[ $section =~ ^(single|scaleup|sweep|scale|cache|trace|aot|boost|speed)$ ]] ||
    die "BENCH_SECTIONS: unknown section '$section' (single scaleup sweep scale cache trace aot boost speed)"
done
for section in $BENCH_SECTIONS; do [[ $section =~ ^(aot|boost|speed)$ ]] || "bench_$section"; done
# last, as their chart values would otherwise be under every section after them
if [[ " $BENCH_SECTIONS " == *" boost "* ]]; then bench_boost; fi
if [[ " $BENCH_SECTIONS " == *" aot "* ]]; then bench_aot; fi
if [[ " $BENCH_SECTIONS " == *" speed "* ]]; then bench_speed; fi

step results "writing $RESULTS"
"$PY" "$BENCH_DIR/results.py" "$RECORDS" "$RESULTS_JSON" >"$RESULTS"
cat "$RESULTS"
