# common.sh - what every section of the warm-up benchmark shares. Sourced by run-bench.sh.
# Expects REPO, KUBECTL, K6, HELM (from the Makefile) and OUT (the run's work folder).

source "$REPO/demo/lib.sh"
BENCH_DIR=$REPO/bench/warmup
MEASURE=("$PY" "$BENCH_DIR/measure.py")
RECORDS=$OUT/records.jsonl
OPERATOR_NS=danki-system RELEASE=danki LEASE=danki-operator

record() { "${MEASURE[@]}" record "$RECORDS" "$@"; }
# json_get KEY...: the value at KEY... of the JSON on stdin ('' when missing).
json_get() {
  "$PY" -c 'import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1:]:
    v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)' "$@"
}

# install_operator [CONCURRENCY]: install or upgrade the chart with one replica (and the chart's default
# concurrency unless given) and wait until that replica holds the leader Lease, so the measured process
# is the one doing the work. BENCH_OPERATOR_SET, space-separated KEY=VALUE chart values, measures
# another setting (e.g. "nodeConcurrency=1") without editing the chart.
install_operator() {
  local concurrency=${1:-} pods holder t0 value extra=()
  for value in ${BENCH_OPERATOR_SET:-}; do extra+=(--set "$value"); done
  $HELM upgrade --install "$RELEASE" "$REPO/charts/danki" -n "$OPERATOR_NS" --create-namespace \
    --set image.tag=dev --set replicaCount=1 --set podDisruptionBudget.enabled=false \
    ${concurrency:+--set concurrency="$concurrency"} "${extra[@]}" --wait --timeout 180s >/dev/null
  t0=$(date +%s)
  while :; do
    pods=$($K -n "$OPERATOR_NS" get pods -l app.kubernetes.io/instance="$RELEASE" -o json | "$PY" -c '
import json, sys
print(" ".join(p["metadata"]["name"] for p in json.load(sys.stdin)["items"] if "deletionTimestamp" not in p["metadata"]))')
    holder=$($K -n "$OPERATOR_NS" get lease "$LEASE" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null || true)
    [[ -n $pods && $pods != *" "* && $pods == "$holder" ]] && break
    (($(date +%s) - t0 < 120)) || die "operator did not take the Lease (pods '$pods', holder '$holder')"
    sleep 1
  done
  OPERATOR_POD=$pods
  OPERATOR_IP=$($K -n "$OPERATOR_NS" get pod "$OPERATOR_POD" -o jsonpath='{.status.podIP}')
  OPERATOR_PID=$(pid_in_pod "$OPERATOR_IP" operator-all.jar) || die "no operator process found for $OPERATOR_IP"
  info "operator $OPERATOR_POD (pid $OPERATOR_PID, $OPERATOR_IP), concurrency ${concurrency:-of the chart}${BENCH_OPERATOR_SET:+, $BENCH_OPERATOR_SET}"
}

# pid_in_pod IP PATTERN: the host PID of the process whose command line matches PATTERN, inside the
# network namespace that holds IP (pods are processes in their own namespace here).
pid_in_pod() {
  local ip=$1 pattern=$2 ns pid
  for ns in $(ip netns list | awk '{ print $1 }'); do
    ip -n "$ns" -4 addr show 2>/dev/null | grep -q "inet $ip/" || continue
    for pid in $(ip netns pids "$ns"); do
      tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$pattern" && { echo "$pid"; return 0; }
    done
  done
  return 1
}

operator_proc() { "${MEASURE[@]}" proc "$OPERATOR_PID"; }

# start_watch NS SELECTOR LOG: timestamp every pod change (host clock) into LOG; sets WATCH_PID.
start_watch() {
  local ns=$1 selector=$2 log=$3
  # go-template, not jsonpath: kubectl's jsonpath {range} fails on the second object of a watch
  $K -n "$ns" get pods -l "$selector" -w \
    -o go-template='{{.metadata.name}} {{or .status.podIP "-"}} {{range .status.conditions}}{{.type}}={{.status}} {{end}}{{"\n"}}' |
    while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done >"$log" &
  WATCH_PID=$!
}
stop_watch() { kill "$WATCH_PID" 2>/dev/null || true; wait "$WATCH_PID" 2>/dev/null || true; }

# wait_pods LOG PREFIX COUNT WHAT TIMEOUT: until COUNT pods named PREFIX* were seen WHAT
# (containersReady or ready) in the watch log.
wait_pods() {
  local log=$1 prefix=$2 count=$3 what=$4 limit=$5 t0 seen
  t0=$(date +%s)
  while :; do
    seen=$("${MEASURE[@]}" pod-times "$log" "$prefix" |
      "$PY" -c "import json,sys; print(sum(1 for p in json.load(sys.stdin).values() if p['$what']))")
    ((seen >= count)) && return 0
    (($(date +%s) - t0 < limit)) || return 1
    sleep 0.2
  done
}

# deploy_bench NS NAME ANNOTATE REPLICAS: one exam Deployment and its Service, from the demo's render_exam.
deploy_bench() {
  render_exam "$2" "$3" "$4" | $K -n "$1" apply -f - >/dev/null
  if [[ $3 == 1 ]]; then
    wait_for 60 "danki's gate on $2" bash -c \
      "$K -n $1 get deploy $2 -o jsonpath='{.spec.template.spec.readinessGates[*].conditionType}' | grep -q danki.dev/warmed"
  fi
}

# remove_bench NS NAME: delete a Deployment and wait until its pods are gone.
remove_bench() {
  $K -n "$1" delete deploy "$2" --ignore-not-found --wait=true >/dev/null
  $K -n "$1" delete svc "$2" --ignore-not-found >/dev/null
  # The local node agent can be slow to finish deletions on a busy machine: force after 120 s.
  if ! (wait_for 120 "pods of $2 to go" bash -c "[[ -z \$($K -n $1 get pods -l app=$2 -o name) ]]") 2>/dev/null; then
    warn "pods of $2 still terminating after 120 s: deleting them with --force"
    $K -n "$1" delete pods -l "app=$2" --force --grace-period=0 >/dev/null 2>&1 || true
  fi
}
