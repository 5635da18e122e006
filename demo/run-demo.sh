#!/usr/bin/env bash
# run-demo.sh - `make demo`: the pre-exam scale-up, once with danki and once without.
#
#  1. build the tools and jars          5. print the per-pod WarmupRun table (cold vs warm)
#  2. start the cluster, install danki  6. exam-start load on each new pod, tables side by side
#  3. deploy exam-warm and exam-cold    7. write demo-report.html
#  4. scale both 1 -> 3, show progress  8. tear down (unless KEEP=1); exit non-zero on any failure
#
# Env: KEEP=1 keeps the cluster and the demo namespace; DEMO_REPLICAS (3: one pod per node), DEMO_WARM_TIMEOUT (s, 600),
#      DEMO_AOT_TIMEOUT (s, 600: exam-warm's AOT cache trained before the scale-up),
#      CLUSTER_INSTANCE (local cluster instance, default 0), SKIP_BUILD=1 skips step 1;
#      CLUSTER_NODES (4), SYSTEM_NODE_CPU (500m), NODE_CPU (500m) shape the real kubelet's nodes, which run
#      the images built from the Dockerfile (make images): node 1 is a system node for danki, the rest
#      workers for the exams (an empty SYSTEM_NODE_CPU makes every node a worker).
# Set by the Makefile: REPO, VERSION (the chart's), KUBECTL, K6, HELM, MAKE.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${K6:?}" "${HELM:?}" "${VERSION:?the chart version; make demo passes it}" "${MAKE:=make}"

NS=danki-demo OPERATOR_NS=danki-system RELEASE=danki
REPLICAS=${DEMO_REPLICAS:-3} WARM_TIMEOUT=${DEMO_WARM_TIMEOUT:-600} AOT_TIMEOUT=${DEMO_AOT_TIMEOUT:-600} POLL_S=2
# JDK 25, so exam-warm's pods can start from danki's AOT cache; exam-cold runs the same image
EXAM_IMAGE=danki/sample-service-jdk25:dev
KEEP=${KEEP:-0}
# A system node for danki and its k6 children, as on a real cluster's system pool (and in the bench): a
# warm-up's load never takes the CPU of the node whose pod it warms, nor of a cold pod beside it. In one
# run without it, the warmed pod beside the leader warmed at 43 requests/s, the others at 68 and 79.
export CLUSTER_NODES=${CLUSTER_NODES:-4} SYSTEM_NODE_CPU=${SYSTEM_NODE_CPU-500m}
use_cluster
OUT=$REPO/.work/demo REPORT=$REPO/demo-report.html
EXAM_START=$REPO/k6-scripts/exam-start.js
STARTED_CLUSTER=0 INSTALLED_CHART=0 FAILURES=() K6_PIDS=()
T_DEMO=$(now_s)

fail_later() { FAILURES+=("$*"); warn "$*"; }

teardown() {
  local rc=$?
  trap - EXIT INT TERM
  for p in "${K6_PIDS[@]}"; do kill "${p%%:*}" 2>/dev/null || true; done
  if [[ $KEEP == 1 ]]; then
    step 8/8 "KEEP=1: leaving everything running"
    info "export KUBECONFIG=$KUBECONFIG"
    info "$K -n $NS get deploy,pods,warmupruns   # then: $MAKE cluster-down"
    exit "$rc"
  fi
  step 8/8 "tearing down"
  if cluster_running; then
    $K delete namespace "$NS" --ignore-not-found --wait=true --timeout=60s >/dev/null 2>&1 || warn "namespace $NS not deleted"
    if ((INSTALLED_CHART)); then
      if $HELM status "$RELEASE" -n "$OPERATOR_NS" >/dev/null 2>&1; then
        $HELM uninstall "$RELEASE" -n "$OPERATOR_NS" --wait --timeout 60s >/dev/null 2>&1 || warn "helm uninstall failed"
      fi
      $K delete namespace "$OPERATOR_NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true
    fi
  fi
  if ((STARTED_CLUSTER)); then $MAKE -C "$REPO" --no-print-directory cluster-down || warn "cluster-down failed"; fi
  info "done in $(elapsed "$T_DEMO") s"
  exit "$rc"
}
trap teardown EXIT
trap 'warn "interrupted"; exit 130' INT TERM

rm -rf "$OUT" && mkdir -p "$OUT/load"
{
  echo "started=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine=$(machine_description)"
  echo "replicas=$REPLICAS"
  echo "image=$EXAM_IMAGE"
  echo "poll_s=$POLL_S"
} >"$OUT/meta.env"

# ---- 1. build ------------------------------------------------------------------------------
step 1/8 "building what is missing: the pinned tools the demo runs into bin/, the jars, the demo's images"
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  info "(a first run builds Kubernetes, k6, helm and CoreDNS from source: about 11 minutes on 2 cores)"
  # only what the demo runs: the cluster's tools and helm 4, not helm 3 (the chart suites' second helm) nor
  # the release and lint tools (syft, actionlint); the operator's, sample-service-jdk25's and the runner's
  # images, not spring-shop's, sample-service on JDK 17 or the test images
  $MAKE -C "$REPO" --no-print-directory tools-cluster tool-helm4 build demo-images
fi
for t in "$K" "$K6" "$HELM"; do [[ -x $t ]] || die "missing $t"; done
[[ -f $EXAM_START ]] || die "missing $EXAM_START"

# ---- 2. cluster and operator ----------------------------------------------------------------
step 2/8 "starting the local cluster and installing danki with its Helm chart"
ensure_cluster demo-images # only the images the demo runs, not every suite's
if $HELM status "$RELEASE" -n "$OPERATOR_NS" >/dev/null 2>&1; then
  info "release $RELEASE already installed in $OPERATOR_NS: using it"
else
  # As a user installs a release: the chart packaged and pushed to an OCI registry (here the local
  # cluster's, where make images pushed the images), then installed from it by version.
  chart_ref=$(HELM=$HELM "$REPO/charts/scripts/chart-push.sh" | tail -n 1) ||
    die "could not push the chart to the local cluster's registry (charts/scripts/chart-push.sh)"
  info "chart $VERSION pushed to $chart_ref; installing it as the README's quick start does"
  # webhook mode, the chart's default: opting in rolls nothing. The AOT cache as docs/aot-cache.md turns
  # it on (its runner image seals each cache; danki-local is the local cluster's storage class); the CPU
  # boost from admission is the chart's default on this cluster (Kubernetes 1.33 or later).
  mapfile -t system_pool < <(system_pool_values)
  INSTALLED_CHART=1  # set first, so a half-installed release is uninstalled too
  watch_pods "$OPERATOR_NS" "helm install" "$HELM" install "$RELEASE" "$chart_ref" --version "$VERSION" --plain-http \
    -n "$OPERATOR_NS" --create-namespace --wait --timeout 180s \
    --set runner.enabled=true --set aotCache.enabled=true --set aotCache.storageClassName=danki-local \
    "${system_pool[@]}"
fi
wait_for 30 "the WarmupRun CRD" $K wait --for=condition=Established crd/warmupruns.danki.dev --timeout=5s
$K -n "$OPERATOR_NS" get pods -o wide

# ---- 3. the two Deployments -------------------------------------------------------------------
step 3/8 "deploying exam-warm and exam-cold: same image ($EXAM_IMAGE) and settings, 1 replica each; only exam-warm is annotated"
$K create namespace "$NS" --dry-run=client -o yaml | $K apply -f - >/dev/null
render_exam exam-cold 0 1 "$EXAM_IMAGE" | $K -n "$NS" apply -f -
render_exam exam-warm aot 1 "$EXAM_IMAGE" | $K -n "$NS" apply -f -
info "danki's webhook gates exam-warm's pod as it is created (the Deployment is not changed); the pod is warmed first"
wait_for 60 "danki's readiness gate on exam-warm's pod" bash -c \
  "$K -n $NS get pods -l app=exam-warm -o jsonpath='{.items[*].spec.readinessGates[*].conditionType}' | grep -q danki.dev/warmed"
for d in exam-cold exam-warm; do
  watch_pods "$NS" "the rollout of $d" "$K" -n "$NS" rollout status "deploy/$d" --timeout="${WARM_TIMEOUT}s"
done
# Every lever on: exam-warm's new pods start from the AOT cache danki trains on its warm-up plan (a
# training pod of its own, alongside the first pod's warm-up), so the scale-up waits for it.
info "danki trains exam-warm's AOT cache on its warm-up plan (docs/aot-cache.md); the scale-up waits for it"
if ! $K -n "$NS" wait --for=jsonpath='{.status.phase}'=Ready aotcache/exam-warm --timeout="${AOT_TIMEOUT}s" >/dev/null; then
  $K -n "$NS" get aotcache exam-warm -o wide >&2 || true
  die "exam-warm's AotCache is not Ready after ${AOT_TIMEOUT}s (its phase and reason above; docs/aot-cache.md)"
fi
$K -n "$NS" get aotcache exam-warm
mapfile -t OLD_PODS < <(pods_of "$NS" exam-warm; pods_of "$NS" exam-cold)
info "running: ${OLD_PODS[*]}"
echo "old_pods=${OLD_PODS[*]}" >>"$OUT/meta.env"

# ---- 4. the pre-exam scale-up ---------------------------------------------------------------------
step 4/8 "pre-exam scale-up: both Deployments 1 -> $REPLICAS replicas at once"
T_SCALE=$(now_s)
$K -n "$NS" scale deploy exam-warm exam-cold --replicas="$REPLICAS"
info "new exam-cold pods join their Service as soon as they answer /readyz; new exam-warm pods stay gated until warmed"
deadline=$(($(date +%s) + WARM_TIMEOUT))
while :; do
  # progress.py exits 0 once every pod is Ready, 3 while some are not; anything else is its own failure
  rc=0
  { $K -n "$NS" get pods -o json; $K -n "$NS" get warmupruns -o json 2>/dev/null || true; } |
    "$PY" "$DEMO_DIR/progress.py" "$(elapsed "$T_SCALE")" "$REPLICAS" "$OUT/timeline.jsonl" exam-warm exam-cold || rc=$?
  ((rc == 0)) && break
  ((rc == 3)) || die "progress.py failed (exit $rc)"
  ! show_pod_trouble "$NS" || die "a new pod cannot start (above)"
  ! show_pod_trouble "$OPERATOR_NS" || die "danki's operator cannot start (above)"
  (($(date +%s) < deadline)) || { fail_later "not every pod was Ready after ${WARM_TIMEOUT}s"; break; }
  sleep "$POLL_S"
done
"$PY" "$DEMO_DIR/report.py" scale-times "$OUT"

# ---- 5. danki's record ----------------------------------------------------------------------------
step 5/8 "the per-pod WarmupRun table: the cold pass users would have met, and the warm pass they get (ms)"
$K -n "$NS" get warmupruns -o json >"$OUT/runs.json" || fail_later "could not list WarmupRuns"
"$PY" "$DEMO_DIR/report.py" runs-table "$OUT"
$K -n "$NS" get warmupruns 2>/dev/null || true
bad_runs=$("$PY" -c 'import json,sys; print(" ".join(r["metadata"]["name"] for r in json.load(open(sys.argv[1]))["items"]
  if (r.get("status") or {}).get("phase") != "Succeeded"))' "$OUT/runs.json" 2>/dev/null || echo "?")
[[ -z $bad_runs ]] || fail_later "WarmupRuns not Succeeded: $bad_runs"

# ---- 6. the exam-start load -------------------------------------------------------------------------
# run_load DEPLOYMENT: 20 requests/s for 5 s on each new pod, through the Service's EndpointSlice.
run_load() {
  local dep=$1 pod ip rc n=0
  mkdir -p "$OUT/load/$dep"
  K6_PIDS=()
  while read -r pod ip; do
    [[ " ${OLD_PODS[*]} " == *" $pod "* ]] && continue
    n=$((n + 1))
    info "$dep: $pod at http://$ip:8080"
    K6_CSV_TIME_FORMAT=unix_milli BASE_URL="http://$ip:8080" RATE=20 DURATION=5 PHASE="$dep" \
      SUMMARY_PATH="$OUT/load/$dep/$pod.json" \
      "$K6" run --no-usage-report --quiet --out "csv=$OUT/load/$dep/$pod.csv" "$EXAM_START" \
      >"$OUT/load/$dep/$pod.log" 2>&1 &
    K6_PIDS+=("$!:$pod")
  done < <(ready_endpoints "$NS" "$dep")
  ((n > 0)) || { fail_later "$dep: no new pod in its EndpointSlice"; return; }
  # an unequal count would make the two rows incomparable: say so rather than compare quietly
  ((n == REPLICAS - 1)) || fail_later "$dep: $n new pods in its EndpointSlice, expected $((REPLICAS - 1))"
  for entry in "${K6_PIDS[@]}"; do
    rc=0; wait "${entry%%:*}" || rc=$?
    # 99: thresholds crossed, which is the expected outcome on a cold pod, not a failure of the demo.
    if ((rc != 0 && rc != 99)); then fail_later "k6 on ${entry#*:} exited $rc (see $OUT/load/$dep/${entry#*:}.log)"; fi
  done
  K6_PIDS=()
}
step 6/8 "exam-start load on every new pod: 20 requests/s for 5 s, first exam-cold, then exam-warm"
echo "load_order=exam-cold first, then exam-warm" >>"$OUT/meta.env"
run_load exam-cold
run_load exam-warm
echo
"$PY" "$DEMO_DIR/report.py" load-table "$OUT"
echo
printf '%s%s%s\n' "$BOLD" "$("$PY" "$DEMO_DIR/report.py" verdict "$OUT")" "$RESET"

# ---- 7. the report ------------------------------------------------------------------------------------
step 7/8 "writing the report"
"$PY" "$DEMO_DIR/report.py" html "$OUT" "$REPORT"

if ((${#FAILURES[@]})); then
  printf '\n%sThe demo ran into %d problem(s):%s\n' "$RED" "${#FAILURES[@]}" "$RESET" >&2
  printf '  - %s\n' "${FAILURES[@]}" >&2
  exit 1
fi
