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
  local concurrency=${1:-} pods holder t0 value digest extra=() system_pool
  for value in ${BENCH_OPERATOR_SET:-}; do extra+=(--set "$value"); done
  mapfile -t system_pool < <(system_pool_values)
  ((${#system_pool[@]})) || die "no system node ($NODE_ROLE_LABEL=system) for the operator: see check_layout"
  # pinned by digest: a node keeps the image it pulled for a tag (IfNotPresent), so a rebuilt operator, or
  # BENCH_OPERATOR_TAG=baseline (an earlier build kept under its own tag), runs only if named by digest
  digest=$(registry_digest danki/operator "${BENCH_OPERATOR_TAG:-dev}") ||
    die "danki/operator:${BENCH_OPERATOR_TAG:-dev} is not in the cluster's registry (make images)"
  # Helm installs a chart's CRDs once and never upgrades them: a status field the cluster's CRD lacks fails
  # the operator's whole status write. BENCH_CRDS: the CRDs of another build (an earlier one's, with its tag).
  # They are applied here, so Helm skips them (an install would conflict with this apply's field manager).
  $K apply --server-side --force-conflicts -f "${BENCH_CRDS:-$REPO/charts/danki/crds}" >/dev/null
  # On the system node, as on a real cluster's system pool: its k6 children never take the CPU of the
  # nodes that run the targets' pods.
  $HELM upgrade --install "$RELEASE" "$REPO/charts/danki" -n "$OPERATOR_NS" --create-namespace --skip-crds \
    --set image.tag="${BENCH_OPERATOR_TAG:-dev}" --set image.digest="$digest" --set replicaCount=1 \
    --set podDisruptionBudget.enabled=false \
    "${system_pool[@]}" \
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
  OPERATOR_PID=$(pid_in_pod "$OPERATOR_NS" "$OPERATOR_POD" /opt/danki/operator.jar) ||
    die "no operator process found in pod $OPERATOR_POD"
  info "operator $OPERATOR_POD (pid $OPERATOR_PID, $OPERATOR_IP), image ${BENCH_OPERATOR_TAG:-dev}@${digest:7:12}, concurrency ${concurrency:-of the chart}${BENCH_OPERATOR_SET:+, $BENCH_OPERATOR_SET}"
  record section=operator image="\"danki/operator:${BENCH_OPERATOR_TAG:-dev}@$digest\"" set="\"${BENCH_OPERATOR_SET:-}\""
}

# registry_digest REPOSITORY TAG: the digest the cluster's registry serves for REPOSITORY:TAG.
registry_digest() {
  local addr
  addr=$(REPO=$REPO CLUSTER_INSTANCE=$CLUSTER_INSTANCE bash -c 'source "$REPO/local-cluster/cluster-env.sh" && echo "$REGISTRY_ADDR"')
  curl -fsSI -H 'Accept: application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json' \
    "http://$addr/v2/$1/manifests/$2" | tr -d '\r' | awk 'tolower($1) == "docker-content-digest:" { print $2; found = 1 } END { exit !found }'
}

# pid_in_pod NS POD PATTERN: the host PID of the process of pod NS/POD whose command line matches
# PATTERN. The kubelet (cgroupfs driver) puts every container of a pod under a cgroup named pod<uid>.
pid_in_pod() {
  local uid f pid
  uid=$($K -n "$1" get pod "$2" -o jsonpath='{.metadata.uid}') && [[ -n $uid ]] || return 1
  for f in /proc/[0-9]*/cgroup; do
    grep -q "/pod$uid/" "$f" 2>/dev/null || continue
    pid=${f#/proc/} pid=${pid%/cgroup}
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$3" && { echo "$pid"; return 0; }
  done
  return 1
}

# check_layout: the cluster is shaped as the bench needs (BENCH_WORKERS worker nodes and a system
# node, each node's quota over a CFS period of NODE_CFS_PERIOD), and its layout is recorded: every node's
# role and allocatable CPU, and the period as the workers' cgroups have it.
check_layout() {
  local layout workers system period
  layout=$($K get nodes -o json | "$PY" -c '
import json, sys
label = sys.argv[1]
print(json.dumps([{"node": n["metadata"]["name"], "role": n["metadata"]["labels"].get(label, ""),
                   "cpu": n["status"]["allocatable"]["cpu"], "memory": n["status"]["allocatable"]["memory"]}
                  for n in json.load(sys.stdin)["items"]]))' "$NODE_ROLE_LABEL")
  workers=$(json_count "$layout" worker) system=$(json_count "$layout" system)
  ((workers >= SCALEUP_TO && system >= 1)) || die "the cluster at $KUBECONFIG has $workers worker and $system system nodes;" \
    "the bench needs $SCALEUP_TO workers and a system node (make cluster-down CLUSTER_INSTANCE=$CLUSTER_INSTANCE, then run it again)"
  period=$(PYTHONPATH=$REPO/bench/lib "$PY" -c '
import json, sys, podcpu
print(" ".join(sorted({"%g" % podcpu.cfs_period_ms(podcpu.node_cgroup(n["node"])) for n in json.loads(sys.argv[1])})))' "$layout") ||
    die "cannot read the nodes' CFS period from their cgroups"
  [[ $period == "${NODE_CFS_PERIOD%ms}" ]] || die "the cluster at $KUBECONFIG has a CFS period of $period ms;" \
    "the bench asks for $NODE_CFS_PERIOD (make cluster-down CLUSTER_INSTANCE=$CLUSTER_INSTANCE, then run it again)"
  record section=layout nodes="$layout" scaleup_to="$SCALEUP_TO" node_cfs_period_ms="$period"
  info "layout: $workers worker nodes, $system system node, CFS period $period ms ($(echo "$layout" | "$PY" -c '
import json, sys
print(", ".join("%s %s %s" % (n["node"], n["role"], n["cpu"]) for n in json.load(sys.stdin)))'))"
}
json_count() { "$PY" -c 'import json, sys; print(sum(1 for n in json.loads(sys.argv[1]) if n["role"] == sys.argv[2]))' "$1" "$2"; }

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
# In template mode danki puts its gate on the Deployment's template (one rollout), which is waited for;
# in webhook mode (the chart's default) it gates each pod at admission and the template never has it.
deploy_bench() {
  render_exam "$2" "$3" "$4" | $K -n "$1" apply -f - >/dev/null
  if [[ $3 == 1 ]] && ! gates_by_webhook; then
    wait_for 60 "danki's gate on $2" bash -c \
      "$K -n $1 get deploy $2 -o jsonpath='{.spec.template.spec.readinessGates[*].conditionType}' | grep -q danki.dev/warmed"
  fi
}

# gates_by_webhook: whether the installed operator gates pods at admission (its MutatingWebhookConfiguration).
gates_by_webhook() {
  [[ -n $($K get mutatingwebhookconfigurations -l app.kubernetes.io/name=danki -o name) ]]
}

# remove_bench NS NAME: delete a Deployment and wait until its pods are gone.
remove_bench() {
  $K -n "$1" delete deploy "$2" --ignore-not-found --wait=true >/dev/null
  $K -n "$1" delete svc "$2" --ignore-not-found >/dev/null
  # A busy machine can be slow to finish deletions: force after 120 s.
  if ! (wait_for 120 "pods of $2 to go" bash -c "[[ -z \$($K -n $1 get pods -l app=$2 -o name) ]]") 2>/dev/null; then
    warn "pods of $2 still terminating after 120 s: deleting them with --force"
    $K -n "$1" delete pods -l "app=$2" --force --grace-period=0 >/dev/null 2>&1 || true
  fi
}
