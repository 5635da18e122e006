#!/usr/bin/env bash
# acceptance.sh - acceptance test of the local cluster (issue 2, items 1-5), on its own instance
# (CLUSTER_INSTANCE, default 9) so the shared default cluster is never touched.
#  1. cluster-up from cold: the Node is Ready; a second cluster-up says so and does nothing.
#  2. 2 replicas of danki/http-status get distinct 198.18.x.x IPs, answer curl, and both are
#     ready endpoints in their Service's EndpointSlice.
#  3. Pods with a readiness gate stay not-ready (no ready endpoint, rollout stuck) until the test
#     patches the gate True; the agent keeps the gate condition; then they join.
#  4. Deleting a pod kills its processes and removes its netns; scaling to 0 leaves no process;
#     cluster-down leaves no process, netns, veth or bridge.
#  5. An image missing from the catalog gives ErrImagePull with a message naming the catalog.
#  Also: a pod reaches the API server with its service-account token; a failing liveness probe
#  restarts its container; timings (cold/warm cluster-up, pod start) are printed.
# Prints `N passed, N failed` last; exits non-zero on any failure. Every wait is bounded.
set -uo pipefail
export CLUSTER_INSTANCE=${CLUSTER_INSTANCE:-9}
((CLUSTER_INSTANCE != 0)) || { echo "refusing to run on the shared default instance 0" >&2; exit 2; }
# shellcheck disable=SC1091 # sourced relative to this script
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-env.sh"
export CLUSTER_DIR KUBECONFIG=$KUBECONFIG_PATH
K=("$KUBECTL" --request-timeout=10s)
NS=acceptance
CATALOG_NAME=images.yaml

PASSED=0 FAILED=0
pass() { PASSED=$((PASSED + 1)); printf 'PASS  %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL  %s\n' "$*"; }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
note() { printf '      %s\n' "$*"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
secs() { local ms=$1; printf '%d.%02d' $((ms / 1000)) $((ms % 1000 / 10)); }
# until_true seconds cmd...: polls every 0.25 s, at most the given seconds
until_true() { local limit=$1 n; shift; for ((n = 0; n < limit * 4; n++)); do "$@" && return 0; sleep 0.25; done; return 1; }

netns_of_instance() { ip netns list 2>/dev/null | awk '{print $1}' | grep -c "^danki$I-" || true; }
veths_of_instance() { ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -c "^dk${I}v" || true; }
# processes inside this instance's pod namespaces
pod_processes() {
  local ns n=0
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^danki$I-"); do
    n=$((n + $(ip netns pids "$ns" 2>/dev/null | wc -l)))
  done
  echo $n
}
# every process of the cluster itself: its control plane and agent are started from its state dir
cluster_processes() { pgrep -f -- "$CLUSTER_DIR/|--state-dir=$CLUSTER_DIR" | wc -l; }
# processes started for this instance's pods, wherever they are now: the agent gives every
# container KUBERNETES_SERVICE_HOST=<this instance's bridge address>, and children inherit it
# (and HOSTNAME=<pod name>); `instance_pod_processes web-` counts only pods named web-*
instance_pod_processes() {
  local f n=0
  # shellcheck disable=SC2013 # file names under /proc have no spaces
  for f in $(grep -lsxz "KUBERNETES_SERVICE_HOST=$BRIDGE_IP" /proc/[0-9]*/environ 2>/dev/null); do
    [[ -z ${1:-} ]] || grep -qsxz "HOSTNAME=$1.*" "$f" || continue
    n=$((n + 1))
  done
  echo $n
}

cleanup() { "$LC_HOME/cluster-down.sh" >/dev/null 2>&1 || true; }
trap cleanup EXIT

echo "== local-cluster acceptance test on instance $I (state $CLUSTER_DIR)"
"$LC_HOME/cluster-down.sh" >/dev/null 2>&1 || true
rm -rf "$CLUSTER_DIR"

# ---- 1. cold cluster-up, node Ready, second cluster-up is a no-op -------------------------
t=$(now_ms)
UP_ERR=$(mktemp)
up_out=$("$LC_HOME/cluster-up.sh" 2>"$UP_ERR"; echo "rc=$?") || true
COLD_MS=$(($(now_ms) - t))
check "1. cold cluster-up succeeds and prints KUBECONFIG=$KUBECONFIG_PATH" \
  grep -qx "KUBECONFIG=$KUBECONFIG_PATH" <<<"$up_out"
if ! grep -q "rc=0" <<<"$up_out"; then
  tail -30 "$UP_ERR"
  rm -f "$UP_ERR"
  echo "$PASSED passed, $FAILED failed"
  exit 1
fi
rm -f "$UP_ERR"
note "cold cluster-up: $(secs $COLD_MS) s (new certificates, empty etcd)"
node_ready() { [[ $("${K[@]}" get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
check "1. kubectl get nodes shows $NODE_NAME Ready" node_ready
"${K[@]}" get nodes
t=$(now_ms)
again=$("$LC_HOME/cluster-up.sh" 2>&1)
check "1. a second cluster-up says the cluster is running and does nothing ($(secs $(($(now_ms) - t))) s)" \
  grep -q "already running" <<<"$again"
check "1. cluster-status reports every component healthy" "$LC_HOME/cluster-status.sh" >/dev/null

"${K[@]}" create namespace $NS >/dev/null
until_true 30 "${K[@]}" -n $NS get serviceaccount default >/dev/null 2>&1

# ---- 2. two replicas of http-status, distinct pod IPs, curl, EndpointSlice -----------------
cat <<EOF | "${K[@]}" -n $NS apply -f - >/dev/null
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 5
      containers:
      - name: app
        image: danki/http-status:dev
        env:
        - {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
        - {name: PORT, value: "8080"}
        ports: [{containerPort: 8080, name: http}]
        readinessProbe: {httpGet: {path: /ready, port: http}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
EOF
t=$(now_ms)
check "2. deployment web (2 replicas of danki/http-status:dev) rolls out within 60 s" \
  "${K[@]}" -n $NS rollout status deploy/web --timeout=60s
note "http-status pods: apply to rollout complete $(secs $(($(now_ms) - t))) s"
mapfile -t IPS < <("${K[@]}" -n $NS get pods -l app=web -o jsonpath='{range .items[*]}{.status.podIP}{"\n"}{end}')
note "pod IPs: ${IPS[*]}"
distinct_ips() { ((${#IPS[@]} == 2)) && [[ ${IPS[0]} != "${IPS[1]}" ]] && [[ ${IPS[0]} == 198.18.* && ${IPS[1]} == 198.18.* ]]; }
check "2. the two pods have distinct 198.18.x.x IPs" distinct_ips
for ip in "${IPS[@]}"; do
  body=$(curl -s --max-time 3 "http://$ip:8080/")
  check "2. curl http://$ip:8080/ answers 200 from its pod ('${body%$'\n'}')" grep -q "^200 from web-" <<<"$body"
done
slice_ready_ips() { # service -> sorted ready endpoint addresses
  "${K[@]}" -n $NS get endpointslices -l "kubernetes.io/service-name=$1" \
    -o jsonpath='{range .items[*].endpoints[?(@.conditions.ready==true)]}{.addresses[0]}{"\n"}{end}' | sort
}
both_in_slice() { [[ $(slice_ready_ips web) == "$(printf '%s\n' "${IPS[@]}" | sort)" ]]; }
check "2. the Service's EndpointSlice lists both pod IPs as ready" until_true 30 both_in_slice

# ---- 3. readiness gate holds pods back until the gate condition is True --------------------
GATE=danki.dev/acceptance-gate
cat <<EOF | "${K[@]}" -n $NS apply -f - >/dev/null
apiVersion: apps/v1
kind: Deployment
metadata: {name: gated}
spec:
  replicas: 2
  selector: {matchLabels: {app: gated}}
  template:
    metadata: {labels: {app: gated}}
    spec:
      terminationGracePeriodSeconds: 5
      readinessGates: [{conditionType: "$GATE"}]
      containers:
      - name: app
        image: danki/http-status:dev
        ports: [{containerPort: 8080, name: http}]
        readinessProbe: {tcpSocket: {port: http}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: gated}
spec:
  selector: {app: gated}
  ports: [{port: 80, targetPort: http}]
EOF
containers_ready_count() {
  "${K[@]}" -n $NS get pods -l app=gated \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="ContainersReady")].status}{"\n"}{end}' | grep -c True
}
two_containers_ready() { [[ $(containers_ready_count) == 2 ]]; }
check "3. gated pods run and their containers become ready" until_true 60 two_containers_ready
sleep 2 # give the endpoint and deployment controllers time to (wrongly) move on
ready_pods() { "${K[@]}" -n $NS get pods -l app=gated -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True; }
check "3. with the gate missing, no gated pod is Ready" test "$(ready_pods)" == 0
check "3. the gated Service's EndpointSlice has no ready endpoint" test -z "$(slice_ready_ips gated)"
check "3. the gated rollout does not progress (rollout status times out)" \
  bash -c "! '${K[0]}' --kubeconfig '$KUBECONFIG' -n $NS rollout status deploy/gated --timeout=3s >/dev/null 2>&1"
reason=$("${K[@]}" -n $NS get pods -l app=gated -o jsonpath='{.items[0].status.conditions[?(@.type=="Ready")].reason}')
check "3. Ready says why: reason ReadinessGatesNotReady (got $reason)" test "$reason" == ReadinessGatesNotReady
mapfile -t GATED < <("${K[@]}" -n $NS get pods -l app=gated -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
t=$(now_ms)
for p in "${GATED[@]}"; do
  "${K[@]}" -n $NS patch pod "$p" --subresource=status --type=strategic \
    -p "{\"status\":{\"conditions\":[{\"type\":\"$GATE\",\"status\":\"True\",\"lastTransitionTime\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"}]}}" >/dev/null
done
two_ready() { [[ $(ready_pods) == 2 ]]; }
check "3. after the test patches the gate True, both pods turn Ready" until_true 20 two_ready
note "gate True to both pods Ready: $(secs $(($(now_ms) - t))) s"
check "3. then the gated rollout completes" "${K[@]}" -n $NS rollout status deploy/gated --timeout=30s
gated_in_slice() { [[ $(slice_ready_ips gated | wc -l) == 2 ]]; }
check "3. and both pods are ready endpoints of the gated Service" until_true 30 gated_in_slice
# The agent writes status every 15 s at least; the gate must survive its writes.
sleep 1
gate_kept() { [[ $("${K[@]}" -n $NS get pod "${GATED[0]}" -o jsonpath="{.status.conditions[?(@.type==\"$GATE\")].status}") == True ]]; }
check "3. the agent keeps the gate condition it does not own" gate_kept

# ---- 5. image missing from the catalog ------------------------------------------------------
"${K[@]}" -n $NS run missing-image --image=danki/not-in-catalog:1 --restart=Never >/dev/null
waiting_reason() { "${K[@]}" -n $NS get pod missing-image -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}'; }
err_image_pull() { [[ $(waiting_reason) == ErrImagePull ]]; }
check "5. an image missing from the catalog gives waiting reason ErrImagePull" until_true 20 err_image_pull
msg=$("${K[@]}" -n $NS get pod missing-image -o jsonpath='{.status.containerStatuses[0].state.waiting.message}')
note "message: $msg"
check "5. the message names the catalog file ($CATALOG_NAME)" grep -q "local-cluster/$CATALOG_NAME" <<<"$msg"
check "5. the node agent is still running" is_running node-agent

# ---- extra: service-account token, liveness restarts -----------------------------------------
cat <<EOF | "${K[@]}" -n $NS apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: whoami}
spec:
  restartPolicy: Never
  containers:
  - name: kubectl
    image: danki/http-status:dev
    command: [bin/kubectl, auth, whoami, -o, "jsonpath={.status.userInfo.username}"]
---
apiVersion: v1
kind: Pod
metadata: {name: unhealthy}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: danki/http-status:dev
    env: [{name: STATUS, value: "500"}]
    livenessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1, failureThreshold: 2}
EOF
whoami_done() { [[ $("${K[@]}" -n $NS get pod whoami -o jsonpath='{.status.phase}') == Succeeded ]]; }
check "in-cluster: a pod's kubectl reaches the API server and the pod Succeeds" until_true 30 whoami_done
who=$(cat "$CLUSTER_DIR"/agent/pods/${NS}_whoami_*/kubectl.log 2>/dev/null)
check "in-cluster: it is authenticated as its service account (got '$who')" test "$who" == "system:serviceaccount:$NS:default"
restarted() { (($("${K[@]}" -n $NS get pod unhealthy -o jsonpath='{.status.containerStatuses[0].restartCount}') >= 1)); }
check "probes: a failing liveness probe restarts the container" until_true 30 restarted
event_reasons() { "${K[@]}" -n $NS get events --field-selector "involvedObject.name=$1" -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}' | sort -u | tr '\n' ' '; }
has_events() { local got; got=$(event_reasons "$1"); shift; local r; for r; do [[ " $got" == *" $r "* ]] || return 1; done; }
check "events: the restarted pod has Started, Unhealthy and Killing events ($(event_reasons unhealthy))" \
  until_true 10 has_events unhealthy Started Unhealthy Killing
check "events: the missing image has a Failed event ($(event_reasons missing-image))" has_events missing-image Failed

# ---- JVM pod start time (needs the sample-service jar; measured, not asserted) ----------------
if [[ -f $REPO/sample-service/target/sample-service-all.jar ]]; then
  t=$(now_ms)
  cat <<EOF | "${K[@]}" -n $NS apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: jvm}
spec:
  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: danki/sample-service:dev
    readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}
EOF
  if "${K[@]}" -n $NS wait pod/jvm --for=condition=Ready --timeout=90s >/dev/null 2>&1; then
    note "JVM pod (danki/sample-service:dev): apply to Ready $(secs $(($(now_ms) - t))) s"
  else
    note "JVM pod did not become Ready within 90 s (log: $(ls "$CLUSTER_DIR"/agent/pods/${NS}_jvm_*/app.log 2>/dev/null))"
  fi
  "${K[@]}" -n $NS delete pod jvm --wait=false >/dev/null
else
  note "sample-service jar not built: JVM pod start time not measured"
fi

# ---- 4. deletion kills processes and removes the netns; scale to 0; cluster-down ----------------
victim=$("${K[@]}" -n $NS get pods -l app=web -o jsonpath='{.items[0].metadata.name}')
uid=$("${K[@]}" -n $NS get pod "$victim" -o jsonpath='{.metadata.uid}')
victim_ns=danki$I-$(tr -d - <<<"$uid" | cut -c1-8)
mapfile -t victim_pids < <(ip netns pids "$victim_ns" 2>/dev/null)
check "4. pod $victim has processes in its netns $victim_ns (${#victim_pids[@]})" test "${#victim_pids[@]}" -ge 1
"${K[@]}" -n $NS delete pod "$victim" --timeout=30s >/dev/null
alive=0
for p in "${victim_pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
check "4. after deleting the pod its processes are gone ($alive alive)" test $alive == 0
check "4. and its netns is removed" bash -c "! ip netns list | grep -q '^$victim_ns\b'"
"${K[@]}" -n $NS scale deploy/web --replicas=0 >/dev/null
web_gone() { [[ -z $("${K[@]}" -n $NS get pods -l app=web -o name) ]]; }
check "4. scaling web to 0 removes its pods" until_true 30 web_gone
check "4. scaling web to 0 leaves no process of its pods ($(instance_pod_processes web-) left)" \
  test "$(instance_pod_processes web-)" == 0

# warm restart: down and up again with certificates kept, then the final cluster-down
note "before cluster-down: $(pod_processes) pod processes, $(netns_of_instance) netns, $(cluster_processes) cluster processes"
"$LC_HOME/cluster-down.sh" >/dev/null 2>&1
t=$(now_ms)
"$LC_HOME/cluster-up.sh" >/dev/null 2>"$LOGS/cluster-up-warm.err"
WARM_MS=$(($(now_ms) - t))
check "warm cluster-up (certificates kept) succeeds" node_ready
note "warm cluster-up: $(secs $WARM_MS) s"
for c in "${COMPONENTS[@]}"; do
  note "RSS $c: $(awk '/VmRSS/{printf "%d MiB", $2/1024}' "/proc/$(pid_of "$c")/status" 2>/dev/null)"
done
"${K[@]}" create namespace $NS >/dev/null
until_true 30 "${K[@]}" -n $NS get serviceaccount default >/dev/null 2>&1
"${K[@]}" -n $NS create deployment left --image=danki/http-status:dev --replicas=2 >/dev/null
left_running() { [[ $(instance_pod_processes left-) -ge 2 ]]; }
until_true 30 left_running
note "with 2 pods running: $(pod_processes) pod processes, $(netns_of_instance) netns, $(veths_of_instance) veths"

# ---- 4. a crashed agent, started again, removes its orphans and runs its pods again ------------
pod_ips() { "${K[@]}" -n $NS get pods -l app=left -o jsonpath='{range .items[*]}{.status.podIP}{"\n"}{end}' | sort; }
ips_before=$(pod_ips)
mapfile -t old_pids < <(for ns in $(ip netns list | awk '{print $1}' | grep "^danki$I-"); do ip netns pids "$ns"; done)
agent_pid=$(pid_of node-agent)
mapfile -d '' agent_argv <"/proc/$agent_pid/cmdline"
kill -KILL "$agent_pid"
until_true 10 bash -c "! kill -0 $agent_pid 2>/dev/null"
# shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
(cd "$REPO" && setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PIDS_DIR/node-agent.pid" "${agent_argv[@]}" \
  >>"$LOGS/node-agent.log" 2>&1 </dev/null &)
old_gone() { local p; for p in "${old_pids[@]}"; do kill -0 "$p" 2>/dev/null && return 1; done; return 0; }
check "4. after an agent crash (SIGKILL) and restart, the orphaned processes (${#old_pids[@]}) are gone" until_true 60 old_gone
check "4. and its pods run again" until_true 60 left_running
check "4. with the same pod IPs ($(tr '\n' ' ' <<<"$ips_before"))" test "$(pod_ips)" == "$ips_before"
check "4. with one netns each ($(netns_of_instance))" test "$(netns_of_instance)" == 2
t=$(now_ms)
"$LC_HOME/cluster-down.sh" >/dev/null 2>&1
note "cluster-down with 2 pods: $(secs $(($(now_ms) - t))) s"
check "4. after cluster-down no cluster process is left ($(cluster_processes))" test "$(cluster_processes)" == 0
check "4. after cluster-down no pod process is left ($(instance_pod_processes))" test "$(instance_pod_processes)" == 0
check "4. after cluster-down no netns of the instance is left ($(netns_of_instance))" test "$(netns_of_instance)" == 0
check "4. after cluster-down no veth of the instance is left ($(veths_of_instance))" test "$(veths_of_instance)" == 0
check "4. after cluster-down the bridge $BRIDGE is gone" bash -c "! ip link show $BRIDGE >/dev/null 2>&1"

echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
