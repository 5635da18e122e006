#!/usr/bin/env bash
# cluster-up.sh - start the local cluster in the background and return once it is usable:
# the instance's OCI registry with the images built here pushed into it (registry/), etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler (all on 127.0.0.1 except the API
# server, see below), CoreDNS on the bridge address (cluster-dns.sh) and CLUSTER_NODES real
# kubelets on containerd with the net agent (kubelet/node-up.sh), then the storage class
# danki-local and its pool of hostPath volumes (cluster-storage.sh).
# Prints `KUBECONFIG=<path>` last. A second run on a running cluster says so and does nothing.
#
# The API server binds 0.0.0.0 so that pods can reach it on the bridge address ($BRIDGE_IP), as
# in-cluster clients expect; it only accepts client certificates and service-account tokens.
# Env: CLUSTER_INSTANCE, CLUSTER_DIR (see cluster-env.sh), KEEP_ETCD_DATA=1 keeps the etcd data
#      of the previous run (default: every cluster-up starts from an empty etcd).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cluster-env.sh"
source "$LC_HOME/cluster-components.sh"
source "$LC_HOME/cluster-storage.sh"
source "$LC_HOME/cluster-dns.sh"
# shellcheck source=registry/config.sh
source "$LC_HOME/registry/config.sh"
refuse_node_agent_leftover

T0=$(date +%s%N)
elapsed() { local ms=$((($(date +%s%N) - T0) / 1000000)); printf '%d.%02d' $((ms / 1000)) $((ms % 1000 / 10)); }
log() { printf '[%6ss] %s\n' "$(elapsed)" "$*" >&2; }
die() { echo "cluster-up: $*" >&2; exit 1; }

# ---- already running? -----------------------------------------------------------
running=() stopped=()
for c in "${COMPONENTS[@]}"; do if is_running "$c"; then running+=("$c"); else stopped+=("$c"); fi; done
if ((${#stopped[@]} == 0)); then
  echo "cluster instance $I is already running (state in $CLUSTER_DIR); nothing to do"
  echo "KUBECONFIG=$KUBECONFIG_PATH"
  exit 0
fi
if ((${#running[@]} > 0)); then
  die "instance $I is partly running (${running[*]} up, ${stopped[*]} down); run cluster-down first"
fi

# ---- prerequisites --------------------------------------------------------------
((EUID == 0)) || die "must run as root (bridges, cgroups and mounts need it)"
for b in "$BIN/etcd" "$BIN/kube-apiserver" "$BIN/kube-controller-manager" "$BIN/kube-scheduler" "$KUBECTL"; do
  [[ -x $b ]] || die "missing $b (run: make tool-kube)"
done
[[ -x $BIN/registry ]] || die "missing $BIN/registry (run: make tool-registry)"
[[ -x $BIN/coredns ]] || die "missing $BIN/coredns (run: make tool-coredns)"
command -v skopeo >/dev/null || die "skopeo is needed to push the images (run: make image-deps)"
# node-up.sh checks the kubelet, containerd, the images and the net agent.
for t in openssl curl ip setsid; do command -v "$t" >/dev/null || die "$t is needed"; done
for p in "$REGISTRY_PORT" "$ETCD_CLIENT_PORT" "$ETCD_PEER_PORT" "$ETCD_METRICS_PORT" "$API_PORT" "$KCM_PORT" "$SCHEDULER_PORT" "$DNS_READY_PORT"; do
  if (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then die "port $p is busy on 127.0.0.1 (another cluster instance?)"; fi
done
mkdir -p "$PKI" "$LOGS" "$PIDS_DIR"
rm -f "$PIDS_DIR"/*.pid "$PIDS_DIR"/*.cmd # stale, from a run that ended without cluster-down (none of them is running)

# ---- certificates and kubeconfigs (made once per CLUSTER_DIR, then reused) --------
source "$LC_HOME/cluster-pki.sh"
make_pki
dns_pki
# The API server's client certificate for the kubelets' API: kubectl logs, exec, port-forward.
cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
# InternalIP only: the default tries the Node's hostname first, which no DNS here resolves.
KUBELET_CLIENT_FLAGS=(--kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt"
  --kubelet-client-key="$PKI/apiserver-kubelet-client.key" --kubelet-preferred-address-types=InternalIP)
log "certificates and kubeconfigs ready in $CLUSTER_DIR"

# ---- host bridge: the API server's address for pods (the nodes have bridges of their own) ----
if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
  ip link add "$BRIDGE" type bridge
fi
ip link set "$BRIDGE" address "$BRIDGE_MAC"
ip addr show dev "$BRIDGE" | grep -q "inet $BRIDGE_IP/" || ip addr add "$BRIDGE_IP/24" dev "$BRIDGE"
ip link set "$BRIDGE" up

# ---- processes ---------------------------------------------------------------------
start() { # name cmd...   recorded in pids/<name>.cmd, so cluster-restart.sh can run it again
  start_component "$@"
  log "started $1 (pid $(pid_of "$1"))"
}
fail() { # tell which component failed, show its log, stop what was started
  echo "cluster-up: $*" >&2
  [[ -z ${push_pid:-} ]] || kill "$push_pid" 2>/dev/null || true
  "$LC_HOME/cluster-down.sh" >&2 || true
  exit 1
}
wait_for() { # what seconds check-command...   polls every 0.2 s; every started component must stay alive
  local what=$1 limit=$2 n; shift 2
  for ((n = 0; n < limit * 5; n++)); do
    if "$@" >/dev/null 2>&1; then log "$what"; return; fi
    local c
    for c in "${COMPONENTS[@]}"; do
      [[ -f $PIDS_DIR/$c.pid ]] || continue
      is_running "$c" || { tail -20 "$LOGS/$c.log" >&2; fail "$c exited while waiting for: $what (log: $LOGS/$c.log)"; }
    done
    sleep 0.2
  done
  fail "timed out after ${limit}s waiting for: $what (logs: $LOGS)"
}
default_sa() { "$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" -n default get serviceaccount default; }

# The registry first; the images go into it while the control plane and the nodes start, and cluster-up
# waits for that push at the end (pods pull from it only once the nodes are up). With an empty
# environment: it reads any REGISTRY_* variable as a setting. Its OpenTelemetry exporter off: by
# default it sends traces to an OTLP collector on localhost:4318.
write_registry_config
start registry env -i OTEL_TRACES_EXPORTER=none "$BIN/registry" serve "$REGISTRY_CONFIG"
wait_for "registry healthy on $REGISTRY_ADDR" 30 healthy registry
"$LC_HOME/registry/push.sh" >"$LOGS/registry-push.log" 2>&1 &
push_pid=$!

[[ ${KEEP_ETCD_DATA:-0} == 1 ]] || rm -rf "$CLUSTER_DIR/etcd"
start etcd "$BIN/etcd" --name local --data-dir "$CLUSTER_DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "local=http://127.0.0.1:$ETCD_PEER_PORT" --listen-metrics-urls "http://127.0.0.1:$ETCD_METRICS_PORT"
wait_for "etcd healthy" 60 healthy etcd

# --enable-aggregator-routing: the API server dials a Service's endpoint address, not its ClusterIP (no
# kube-proxy here), for aggregated APIs and admission webhooks alike, as a cluster with webhooks needs.
# --endpoint-reconciler-type=none: the default reconciler refuses a loopback advertise address and
# would publish the bridge address as the `kubernetes` Service's endpoint, which nothing routes to.
start kube-apiserver "$BIN/kube-apiserver" \
  --bind-address=0.0.0.0 --advertise-address="$BRIDGE_IP" --secure-port="$API_PORT" \
  --etcd-servers="http://127.0.0.1:$ETCD_CLIENT_PORT" \
  --service-cluster-ip-range=$SERVICE_CIDR --endpoint-reconciler-type=none \
  --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
  --client-ca-file="$PKI/ca.crt" \
  --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --authorization-mode=Node,RBAC --allow-privileged=true \
  --enable-aggregator-routing=true "${KUBELET_CLIENT_FLAGS[@]}"

wait_for "kube-apiserver ready" 120 healthy kube-apiserver
start kube-controller-manager "$BIN/kube-controller-manager" \
  --kubeconfig="$CLUSTER_DIR/kube-controller-manager.kubeconfig" \
  --authentication-kubeconfig="$CLUSTER_DIR/kube-controller-manager.kubeconfig" \
  --authorization-kubeconfig="$CLUSTER_DIR/kube-controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --leader-elect=false \
  --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
  --cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" \
  --use-service-account-credentials=true --service-cluster-ip-range=$SERVICE_CIDR
start kube-scheduler "$BIN/kube-scheduler" \
  --kubeconfig="$CLUSTER_DIR/kube-scheduler.kubeconfig" \
  --authentication-kubeconfig="$CLUSTER_DIR/kube-scheduler.kubeconfig" \
  --authorization-kubeconfig="$CLUSTER_DIR/kube-scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT" --leader-elect=false
# CoreDNS syncs with the API server while the nodes start; their first pods need it.
dns_rbac || fail "the cluster DNS's ClusterRole could not be applied"
write_corefile
start coredns "$BIN/coredns" -conf "$DNS_COREFILE"
wait_for "kube-controller-manager healthy" 60 healthy kube-controller-manager
wait_for "kube-scheduler healthy" 60 healthy kube-scheduler
"$LC_HOME/kubelet/node-up.sh" || fail "the nodes did not come up (logs: $LOGS)"
wait_for "cluster DNS ready on $DNS_IP:53 ($CLUSTER_DOMAIN)" 60 healthy coredns
wait_for "default service account exists" 60 default_sa
storage_up || fail "the storage class $STORAGE_CLASS and its volumes could not be made"
log "storage class $STORAGE_CLASS: $PV_POOL_SIZE hostPath volumes of $PV_CAPACITY in $VOLUMES_DIR"
if ! wait "$push_pid"; then
  push_pid=
  tail -5 "$LOGS/registry-push.log" >&2
  fail "pushing the images into the registry failed (log: $LOGS/registry-push.log)"
fi
push_pid=
log "images in the registry: $(tail -1 "$LOGS/registry-push.log" | sed 's/^\[ *[0-9.]*s\] //')"

rss() { awk '/VmRSS/{printf "%d MiB", $2/1024}' "/proc/$1/status" 2>/dev/null; }
for c in "${COMPONENTS[@]}"; do log "  RSS $c: $(rss "$(pid_of "$c")")"; done
log "cluster instance $I up (API $API_URL, also https://$BRIDGE_IP:$API_PORT for pods; DNS $DNS_IP:53; registry http://$REGISTRY_ADDR; logs in $LOGS)"
echo "KUBECONFIG=$KUBECONFIG_PATH"
