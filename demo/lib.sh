# lib.sh - shell functions shared by demo/run-demo.sh and the bench/warmup drivers.
# Sourced, never run. Expects REPO, KUBECTL and K6 in the environment (the Makefile sets them).

: "${REPO:?set by the Makefile}" "${KUBECTL:?set by the Makefile}"
K=$KUBECTL
PY=${PYTHON:-python3}
DEMO_DIR=$REPO/demo

# Colour only on a terminal, so logs stay plain.
if [[ -t 1 ]]; then BOLD=$'\e[1m'; DIM=$'\e[2m'; RED=$'\e[31m'; GREEN=$'\e[32m'; RESET=$'\e[0m'
else BOLD='' DIM='' RED='' GREEN='' RESET=''; fi

step() { printf '\n%s==> [%s] %s%s\n' "$BOLD" "$1" "$2" "$RESET"; }
info() { printf '    %s\n' "$*"; }
warn() { printf '    %sWARNING:%s %s\n' "$RED" "$RESET" "$*" >&2; }
die() { printf '%sFAILED:%s %s\n' "$RED" "$RESET" "$*" >&2; exit 1; }
now_s() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'; }

# wait_for SECONDS DESCRIPTION CMD...: run CMD every second until it succeeds, or fail.
wait_for() {
  local limit=$1 what=$2 t0; shift 2
  t0=$(date +%s)
  until "$@" >/dev/null 2>&1; do
    (($(date +%s) - t0 < limit)) || die "timed out after ${limit}s waiting for $what"
    sleep 1
  done
}

# The local cluster's node role label (local-cluster/kubelet/node-env.sh): worker, or system (tainted).
NODE_ROLE_LABEL=danki.dev/local-role

# system_pool_values: helm's arguments, one a line, that put danki on the cluster's system node when it has
# one (SYSTEM_NODE_CPU): its nodeSelector and the toleration of the node's taint; nothing otherwise.
system_pool_values() {
  [[ -n $($K get nodes -l "$NODE_ROLE_LABEL=system" -o name) ]] || return 0
  printf '%s\n' --set-json "nodeSelector={\"$NODE_ROLE_LABEL\":\"system\"}" \
    --set-json "tolerations=[{\"key\":\"$NODE_ROLE_LABEL\",\"value\":\"system\",\"effect\":\"NoSchedule\"}]"
}

# cluster_running: true when the API server of $KUBECONFIG answers.
cluster_running() { [[ -f ${KUBECONFIG:-/nonexistent} ]] && $K get --raw=/readyz >/dev/null 2>&1; }

# render_exam NAME ANNOTATE REPLICAS [IMAGE]: the manifest of one exam Deployment and its Service, named
# NAME, labelled and selected by app: NAME, with REPLICAS replicas. Every one comes from the kustomize base
# demo/manifests/exam; ANNOTATE=1 adds the component demo/manifests/warmup (danki's annotations), and
# ANNOTATE=aot the component demo/manifests/aot-cache as well (danki's AOT cache, for a JDK 25 IMAGE).
# IMAGE replaces the base's (danki/sample-service:dev).
render_exam() {
  local name=$1 annotate=$2 replicas=$3 image=${4:-} dir manifests rc=0
  # The Service's name must be a DNS-1035 label, the stricter of the two kinds' rules.
  [[ $name =~ ^[a-z]([-a-z0-9]*[a-z0-9])?$ && ${#name} -le 63 ]] ||
    die "render_exam: NAME '$name' is not a DNS-1035 label (a-z, 0-9 and '-', a letter first, at most 63)"
  [[ $annotate =~ ^(0|1|aot)$ ]] || die "render_exam: ANNOTATE '$annotate' is not 0, 1 or aot"
  [[ -z $image || $image =~ ^[a-z0-9][-a-z0-9./_:@]*$ ]] || die "render_exam: IMAGE '$image' is not an image reference"
  [[ $replicas =~ ^[0-9]+$ ]] || die "render_exam: REPLICAS '$replicas' is not a non-negative integer"
  dir=$(mktemp -d) || die "render_exam: mktemp -d failed"
  # kustomize's load restrictor lets a kustomization load a directory with its own kustomization from
  # anywhere, but no loose file outside its root: so the base and the component are directories.
  # It refuses an absolute path to one ("new root cannot be absolute"): they are named relative to dir.
  manifests=$(realpath --relative-to="$dir" "$DEMO_DIR/manifests")
  # The patch renames the base's Deployment and Service, both named exam.
  cat >"$dir/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: ["$manifests/exam"]
patches:
  - target: {name: exam}
    patch: '[{"op": "replace", "path": "/metadata/name", "value": "$name"}]'
labels:
  - pairs: {app: $name}
    includeSelectors: true
    includeTemplates: true
replicas:
  - {name: $name, count: $replicas}
EOF
  case $annotate in
    1) printf 'components: ["%s"]\n' "$manifests/warmup" >>"$dir/kustomization.yaml" ;;
    aot) printf 'components: ["%s", "%s"]\n' "$manifests/warmup" "$manifests/aot-cache" >>"$dir/kustomization.yaml" ;;
  esac
  [[ -z $image ]] || printf 'images:\n  - {name: danki/sample-service:dev, newName: %s, newTag: %s}\n' \
    "${image%:*}" "${image##*:}" >>"$dir/kustomization.yaml"
  $K kustomize "$dir" || rc=$?
  rm -rf "$dir"
  return "$rc"
}

# pods_of NS APP: names of the pods with label app=APP, one a line, oldest first.
pods_of() {
  $K -n "$1" get pods -l "app=$2" --sort-by=.metadata.creationTimestamp \
    -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'
}

# ready_endpoints NS SERVICE: "podName podIP" for every ready address in the Service's EndpointSlices.
# There is no kube-proxy here, so clients talk to these addresses directly.
ready_endpoints() {
  $K -n "$1" get endpointslices -l "kubernetes.io/service-name=$2" -o json | "$PY" -c '
import json, sys
for s in json.load(sys.stdin)["items"]:
    for e in s.get("endpoints") or []:
        if (e.get("conditions") or {}).get("ready") and e.get("targetRef"):
            print(e["targetRef"]["name"], e["addresses"][0])'
}

# use_cluster: point KUBECONFIG at local cluster instance CLUSTER_INSTANCE (default 0, the shared
# one), where the local cluster's own scripts keep it; CLUSTER_DIR is that instance's folder.
use_cluster() {
  export CLUSTER_INSTANCE=${CLUSTER_INSTANCE:-0}
  CLUSTER_DIR=$(REPO=$REPO bash -c 'source "$REPO/local-cluster/cluster-env.sh" && echo "$CLUSTER_DIR"') ||
    die "bad CLUSTER_INSTANCE=$CLUSTER_INSTANCE"
  export KUBECONFIG=$CLUSTER_DIR/admin.kubeconfig
}

# pod_log_tail NS POD CONTAINER RESTARTS: the container's last 20 log lines, of its previous run
# when it has restarted. Prints nothing for a container that never ran.
pod_log_tail() {
  local ns=$1 pod=$2 container=$3 restarts=$4 previous=()
  ((restarts > 0)) && previous=(--previous)
  $K -n "$ns" logs "$pod" -c "$container" --tail=20 "${previous[@]}" 2>/dev/null || true
}

# show_pod_trouble NS: for every pod of NS that cannot start, its reason and message, its last
# Events and its last log lines, on stderr; true when there was one.
show_pod_trouble() {
  local ns=$1 rows pod container restarts reason message log
  rows=$($K -n "$ns" get pods -o json 2>/dev/null | "$PY" "$DEMO_DIR/pod_trouble.py") && return 1
  [[ -n $rows ]] || return 1
  while IFS=$'\t' read -r _ pod container restarts reason message; do
    printf '%spod %s/%s: %s%s%s\n' "$RED" "$ns" "$pod" "$reason" "${message:+: $message}" "$RESET" >&2
    [[ $container == - ]] || printf '    container %s, %s restarts\n' "$container" "$restarts" >&2
    $K -n "$ns" get events --field-selector "involvedObject.name=$pod" --sort-by=.lastTimestamp 2>/dev/null |
      tail -n 5 | sed 's/^/    /' >&2
    [[ $container == - ]] && continue
    log=$(pod_log_tail "$ns" "$pod" "$container" "$restarts")
    [[ -z $log ]] || printf '    last log lines of %s:\n%s\n' "$container" "$(sed 's/^/    | /' <<<"$log")" >&2
  done <<<"$rows"
  return 0
}

# show_pods_and_warnings NS: the pods of NS and its last Warning Events, on stderr: what there is to
# see when a wait failed on no pod that pod_trouble.py knows (a slow pull, a sandbox still retried).
show_pods_and_warnings() {
  local ns=$1
  $K -n "$ns" get pods -o wide >&2 || true
  $K -n "$ns" get events --field-selector type=Warning --sort-by=.lastTimestamp 2>/dev/null | tail -n 10 | sed 's/^/    /' >&2 || true
}

# watch_pods NS WHAT CMD...: run CMD (for example helm install --wait) while watching the pods of NS;
# a pod that cannot start (pod_trouble.py) stops CMD at once and the demo with its reason and last
# log lines. When CMD fails on its own, the pods of NS are shown as well.
watch_pods() {
  local ns=$1 what=$2 pid rc=0; shift 2
  "$@" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if show_pod_trouble "$ns"; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      die "$what: a pod in $ns cannot start (above)"
    fi
    sleep 2
  done
  wait "$pid" || rc=$?
  ((rc == 0)) && return 0
  show_pod_trouble "$ns" || show_pods_and_warnings "$ns"
  die "$what failed (exit $rc)"
}

# ensure_cluster [IMAGES]: start the local cluster unless one answers; sets STARTED_CLUSTER=1 if it started
# it. IMAGES: the make target of the images cluster-up builds first (default images, every one).
ensure_cluster() {
  local images=${1:-images}
  STARTED_CLUSTER=0
  if cluster_running; then
    info "a cluster is already running at $KUBECONFIG: using it, and leaving it running"
  else
    STARTED_CLUSTER=1  # set first, so a half-started cluster is torn down too
    "${MAKE:-make}" -C "$REPO" --no-print-directory cluster-up CLUSTER_IMAGES="$images"
  fi
  wait_for 60 "a Ready node" bash -c "$K get nodes --no-headers | grep -q ' Ready'"
}

# machine_description: one line for result files.
machine_description() {
  printf '%s cores (%s), %s RAM, %s' "$(nproc)" "$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)" \
    "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)" "$(uname -sr)"
}
