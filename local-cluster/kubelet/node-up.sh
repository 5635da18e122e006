#!/usr/bin/env bash
# node-up.sh - start the nodes of a real-kubelet instance next to its running control plane:
# for each of CLUSTER_NODES nodes a containerd and a kubelet, each node with its own bridge, /24,
# cgroup root and CPU budget (NODE_CPU, a CFS quota; allocatable CPU says the same). Each containerd
# pulls from the instance's registry (node-config.sh, write_registry_hosts) and has only the pause
# image imported. Called by cluster-up.sh, after the registry; returns once every Node is Ready.
# Env: CLUSTER_INSTANCE (0..31), CLUSTER_DIR, CLUSTER_NODES (1..8), NODE_CPU, NODE_MEMORY (see
#      node-env.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-env.sh"
# shellcheck source=../cluster-components.sh
source "$LC_HOME/cluster-components.sh"
# shellcheck source=../cluster-pki.sh
source "$LC_HOME/cluster-pki.sh"
# shellcheck source=node-env.sh
source "$LC_HOME/kubelet/node-env.sh"
# shellcheck source=node-config.sh
source "$LC_HOME/kubelet/node-config.sh"
# shellcheck source=host-sysctls.sh
source "$LC_HOME/kubelet/host-sysctls.sh"

T0=$(date +%s%N)
elapsed() { local ms=$((($(date +%s%N) - T0) / 1000000)); printf '%d.%02d' $((ms / 1000)) $((ms % 1000 / 10)); }
log() { printf '[%6ss] %s\n' "$(elapsed)" "$*" >&2; }
die() { echo "node-up: $*" >&2; exit 1; }
K=("$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" --request-timeout=10s)

# ---- prerequisites --------------------------------------------------------------
((EUID == 0)) || die "must run as root (cgroups, bridges, containerd)"
[[ -x $BIN/kubelet ]] || die "missing $BIN/kubelet (run: make tool-kubelet)"
for t in containerd containerd-shim-runc-v2 runc ctr; do
  command -v "$t" >/dev/null || die "$t is missing (run: make node-deps)"
done
for p in bridge host-local loopback; do [[ -x /usr/lib/cni/$p ]] || die "CNI plugin /usr/lib/cni/$p is missing (run: make node-deps)"; done
IMAGES_DIR=${IMAGES_DIR:-$REPO/.build/node-images}
[[ -f $IMAGES_DIR/pause.tar ]] || die "missing $IMAGES_DIR/pause.tar (run: make node-images)"
[[ -f $NET_AGENT_JAR ]] || die "missing $NET_AGENT_JAR, the net agent (run: make net-agent)"
for t in java nsenter python3; do command -v "$t" >/dev/null || die "$t is missing (the net agent and its CNI plugin need it)"; done
command -v nft >/dev/null || [[ -x /usr/sbin/nft ]] || die "nft is missing (run: make node-deps)"
# Replies between two pods of one bridge to a Service's DNAT pass the host's conntrack only with it.
[[ -f /proc/sys/net/bridge/bridge-nf-call-iptables ]] ||
  die "the kernel's br_netfilter is not loaded (Service traffic between pods of one node needs it)"
healthy kube-apiserver || die "the API server of instance $I does not answer (cluster-up starts it first)"
healthy registry || die "the registry of instance $I does not answer on $REGISTRY_ADDR (cluster-up starts it first)"
HOST_MILLIS=$(($(nproc) * 1000))
HOST_KIB=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo) # what the kubelet reports as capacity
((NODE_CPU_MILLIS <= HOST_MILLIS)) || die "NODE_CPU=$NODE_CPU is more than the host's ${HOST_MILLIS}m"
((${SYSTEM_NODE_CPU_MILLIS:-0} <= HOST_MILLIS)) || die "SYSTEM_NODE_CPU=$SYSTEM_NODE_CPU is more than the host's ${HOST_MILLIS}m"
[[ -z $NODE_MEMORY_MIB ]] || (((NODE_MEMORY_MIB + EVICTION_MEMORY_MIB) * 1024 < HOST_KIB)) ||
  die "NODE_MEMORY=$NODE_MEMORY is more than the host's $((HOST_KIB / 1024))Mi"

# Every node starts from an empty folder (images are pulled again, as etcd starts empty).
if grep -q " $NODES_DIR/" /proc/self/mountinfo; then
  die "$NODES_DIR still has mounts from an earlier run; run cluster-down first"
fi
rm -rf "$NODES_DIR"
save_host_sysctls "instance-$I"
# Bridged packets pass the host's netfilter hooks: a pod's reply to another pod of its bridge that
# reached it through a Service is un-DNAT'ed there (saved above, restored by the last node down).
sysctl -qw net.bridge.bridge-nf-call-iptables=1
mkdir -p "$NODES_DIR"
# The API server's client certificate for the kubelets (logs, exec) is made by cluster-up.

# ---- cgroups: /danki-rI/nK (pods, with the budget) and /danki-rI/nK-daemons, in every hierarchy ----
make_cgroup() { # path: create it in every v1 hierarchy; cpuset children need cpus and mems first
  local path=$1 h dir parent
  while read -r h; do
    dir=$h
    for parent in ${path//\// }; do
      dir=$dir/$parent
      [[ -d $dir ]] && continue
      mkdir "$dir"
      if [[ -f $dir/cpuset.cpus ]]; then
        cat "$(dirname "$dir")/cpuset.cpus" >"$dir/cpuset.cpus"
        cat "$(dirname "$dir")/cpuset.mems" >"$dir/cpuset.mems"
      fi
    done
  done < <(cgroup_hierarchies)
}

# ---- one node --------------------------------------------------------------------
# start_node K: bridge, cgroups, containerd (with the pause image), then the kubelet
start_node() {
  node_env "$1"
  mkdir -p "$NODE_DIR"

  make_cgroup "$NODE_CGROUP"
  make_cgroup "$NODE_DAEMON_CGROUP"
  echo "$CFS_PERIOD_US" >"$CGROUP_FS/cpu/$NODE_CGROUP/cpu.cfs_period_us"
  echo $((NODE_CPU_MILLIS_K * CFS_PERIOD_US / 1000)) >"$CGROUP_FS/cpu/$NODE_CGROUP/cpu.cfs_quota_us"
  # The same limit the kubelet puts on kubepods (allocatable plus the eviction threshold).
  if [[ -n $NODE_MEMORY_MIB ]]; then
    echo $(((NODE_MEMORY_MIB + EVICTION_MEMORY_MIB) * 1024 * 1024)) >"$CGROUP_FS/memory/$NODE_CGROUP/memory.limit_in_bytes"
  fi

  ip link show "$NODE_BRIDGE" >/dev/null 2>&1 || ip link add "$NODE_BRIDGE" type bridge
  # A fixed MAC: a bridge without one takes its lowest port's, which changes as pods come and go.
  ip link set "$NODE_BRIDGE" address "$(printf '02:64:6b:72:%02x:%02x' "$I" "$NODE_K")"
  ip addr show dev "$NODE_BRIDGE" | grep -q "inet $NODE_IP/" || ip addr add "$NODE_IP/24" dev "$NODE_BRIDGE"
  ip link set "$NODE_BRIDGE" up

  write_containerd_config
  write_registry_hosts
  write_cni_config
  # The instance's registry serves docker.io, localhost and itself (hosts.toml), on 127.0.0.1, which no
  # proxy takes. A pull from any other registry goes to a proxy on a closed loopback port and fails at
  # once (ErrImagePull, "proxyconnect ... connection refused"), without a DNS lookup or a connection
  # leaving the machine.
  start_component "$CONTAINERD_COMPONENT" env HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 \
    NO_PROXY=127.0.0.1,localhost containerd --config "$CONTAINERD_DIR/config.toml"
  move_to_cgroup "$(pid_of "$CONTAINERD_COMPONENT")" "$NODE_DAEMON_CGROUP"
  local n
  for ((n = 0; n < 100; n++)); do
    ctr --address "$CONTAINERD_SOCK" version >/dev/null 2>&1 && break
    is_running "$CONTAINERD_COMPONENT" || { tail -20 "$LOGS/$CONTAINERD_COMPONENT.log" >&2; die "containerd of $NODE_NAME_K exited"; }
    sleep 0.1
  done
  ((n < 100)) || die "containerd of $NODE_NAME_K did not answer within 10 s (log: $LOGS/$CONTAINERD_COMPONENT.log)"
  log "$NODE_NAME_K: containerd up (pid $(pid_of "$CONTAINERD_COMPONENT"))"
  "$LC_HOME/kubelet/node-images.sh" import "$CONTAINERD_SOCK"
  log "$NODE_NAME_K: pause image imported"

  write_kubelet_config "$HOST_MILLIS" "$HOST_KIB"
  start_kubelet_locked start_component "$KUBELET_COMPONENT" "$BIN/kubelet" --config="$KUBELET_DIR/config.yaml" \
    --kubeconfig="$CLUSTER_DIR/node-$NODE_NAME_K.kubeconfig" --root-dir="$KUBELET_DIR/root" \
    --cert-dir="$KUBELET_DIR/pki" --hostname-override="$NODE_NAME_K" --node-ip="$NODE_IP" \
    --node-labels="danki.dev/local-node=n$NODE_K,$NODE_ROLE_LABEL=$NODE_ROLE"
  move_to_cgroup "$(pid_of "$KUBELET_COMPONENT")" "$NODE_DAEMON_CGROUP"
  log "$NODE_NAME_K: kubelet started (pid $(pid_of "$KUBELET_COMPONENT"), port $KUBELET_PORT, pods $NODE_POD_CIDR, cpu ${NODE_CPU_MILLIS_K}m, $NODE_ROLE)"
}

node_ready() {
  [[ $("${K[@]}" get node "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null) == True ]]
}

# Sequential first: openssl's serial file and the shared cgroup parent take one writer at a time.
for ((k = 1; k <= CLUSTER_NODES; k++)); do
  node_env "$k"
  cert "node-$NODE_NAME_K" "system:node:$NODE_NAME_K" system:nodes
  kubeconfig "node-$NODE_NAME_K"
done
make_cgroup "$INSTANCE_CGROUP"
log "node certificates ready"

# ---- the net agent: NetworkPolicy (the CNI plugin calls it) and Services; its JVM starts meanwhile ----
mkdir -p "$(dirname "$NET_STATE")"
rm -f "$NET_STATE"
start_component "$NET_AGENT" java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  -cp "$NET_AGENT_JAR" dev.danki.cluster.net.NetAgentMainKt --kubeconfig="$KUBECONFIG_PATH" --instance="$I" \
  --port="$NET_AGENT_PORT" --state-file="$NET_STATE" --api-endpoint="$BRIDGE_IP:$API_PORT" \
  --service-cidr="$SERVICE_CIDR"
net_agent_healthy() { [[ $(curl -s --max-time 1 "http://127.0.0.1:$NET_AGENT_PORT/healthz") == ok ]]; }
# Then the nodes side by side.
starts=()
for ((k = 1; k <= CLUSTER_NODES; k++)); do start_node "$k" & starts+=($!); done
failed=0
for p in "${starts[@]}"; do wait "$p" || failed=1; done
((failed == 0)) || die "a node did not start (see above; logs in $LOGS)"
for ((n = 0; n < 300; n++)); do
  net_agent_healthy && break
  is_running "$NET_AGENT" || { tail -20 "$LOGS/$NET_AGENT.log" >&2; die "the net agent exited"; }
  sleep 0.2
done
((n < 300)) || die "the net agent did not answer within 60 s (log: $LOGS/$NET_AGENT.log)"
log "net agent up (pid $(pid_of "$NET_AGENT"), port $NET_AGENT_PORT, table ip $NET_TABLE)"

for ((k = 1; k <= CLUSTER_NODES; k++)); do
  node_env "$k"
  for ((n = 0; n < 300; n++)); do
    node_ready "$NODE_NAME_K" && break
    is_running "$KUBELET_COMPONENT" || { tail -20 "$LOGS/$KUBELET_COMPONENT.log" >&2; die "the kubelet of $NODE_NAME_K exited"; }
    sleep 0.2
  done
  ((n < 300)) || die "node $NODE_NAME_K not Ready within 60 s (log: $LOGS/$KUBELET_COMPONENT.log)"
  log "node $NODE_NAME_K Ready"
done

rss() { awk '/VmRSS/{printf "%d MiB", $2/1024}' "/proc/$1/status" 2>/dev/null; }
for ((k = 1; k <= CLUSTER_NODES; k++)); do
  node_env "$k"
  log "  RSS $NODE_NAME_K: kubelet $(rss "$(pid_of "$KUBELET_COMPONENT")"), containerd $(rss "$(pid_of "$CONTAINERD_COMPONENT")")"
done
log "  RSS $NET_AGENT: $(rss "$(pid_of "$NET_AGENT")")"
log "$CLUSTER_NODES node(s) of instance $I Ready, ${NODE_CPU_MILLIS}m CPU (CFS period $NODE_CFS_PERIOD)${NODE_MEMORY:+ and $NODE_MEMORY memory} each${SYSTEM_NODE_CPU:+ (node 1, the system node: ${SYSTEM_NODE_CPU_MILLIS}m)}"
