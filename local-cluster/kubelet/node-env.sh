# shellcheck shell=bash disable=SC2034,SC2154 # sourced after cluster-env.sh; the variables are used by the node scripts
# node-env.sh - settings of the nodes of a local-cluster instance (real kubelets); sourced by
# the node scripts after cluster-env.sh. `node_env K` sets the variables of node K (1..CLUSTER_NODES).
#
# Each node has its own containerd (root, state, socket, CNI config under nodes/nK/), its own
# kubelet (root dir, ports, cgroup root, client certificate) and its own bridge and /24:
#   instance 0..31, node 1..8  ->  slot S = instance * 8 + node - 1  (0..255)
#   pods 198.19.S.0/24 on bridge dkrI-K (198.19.S.1, the node's InternalIP); the instance's own
#   bridge dankiI (198.18.I.1, cluster-env.sh) only carries the API server's address.
#   kubelet port 30000 + 100*I + 2*K (healthz on 127.0.0.1, one higher): above the ports of the
#   control planes of instances 0..197, and below the kernel's ephemeral ports (32768 up).
#   cgroups /danki-rI/nK (the kubelet's cgroupRoot, where its CPU budget is a CFS quota) and
#   /danki-rI/nK-daemons (its kubelet, containerd and shims, outside the budget), in every v1 hierarchy.
# Env: CLUSTER_NODES (default 3, at most 8), NODE_CPU (each node's CPU budget, millicores as
#      500m or cores as 0.5; default 500m), NODE_MEMORY (each node's memory budget as 512Mi or 2Gi;
#      default none: every node reports the host's memory), SYSTEM_NODE_CPU (default none: every
#      node is a worker; set, node 1 is the system node with that CPU budget, see NODE_ROLE_LABEL),
#      NODE_CFS_PERIOD (the period of every node's CFS quota, as 10ms or 100ms; default 10ms).

# shellcheck source=image-names.sh
source "$LC_HOME/kubelet/image-names.sh"

CLUSTER_NODES=${CLUSTER_NODES:-3}
NODE_CPU=${NODE_CPU:-500m}
NODES_DIR=$CLUSTER_DIR/nodes
# Machine-wide: the host sysctls the kubelet changes, saved by the first node up and restored when
# the last node of any instance goes down.
HOST_STATE_DIR=/run/danki-real-kubelet
CGROUP_FS=/sys/fs/cgroup
INSTANCE_CGROUP=danki-r$I
# CFS period of a node's budget. 10 ms, not the kernel's 100 ms: a node's pods share one quota, and a
# JVM that spends it in a burst (GC, the JIT's compiler threads) stalls every thread until the next
# period. At 350m over 100 ms that stall reached 65 ms, which a real node of several cores never shows
# (bench/results/warmup-notes.md); at 10 ms it is at most 6.5 ms. NODE_CFS_PERIOD=100ms gives the old one.
NODE_CFS_PERIOD=${NODE_CFS_PERIOD:-10ms}
# The instance's net agent (local-cluster/net-agent, dev.danki.cluster.net): NetworkPolicy through
# the danki-net CNI plugin, and Service routing in its own host nftables table (kube-proxy's table
# name is fixed, so two instances' kube-proxies would share it). Its port is on loopback, above the
# kubelets' (30000 + 100*I + 2..17).
NET_AGENT=net-agent
NET_AGENT_JAR=$LC_HOME/net-agent/target/net-agent-all.jar
NET_AGENT_PORT=$((30000 + 100 * I + 90))
NET_TABLE=danki-r$I
NET_STATE=$CLUSTER_DIR/net-agent/attachments.json

if ! [[ $CLUSTER_NODES =~ ^[1-8]$ ]]; then
  echo "CLUSTER_NODES must be 1 to 8, got '$CLUSTER_NODES'" >&2
  exit 2
fi

# cpu_millis 500m|0.5|1: the budget in millicores
cpu_millis() {
  case $1 in
    *m) echo "${1%m}" ;;
    *) awk -v c="$1" 'BEGIN { printf "%d", c * 1000 + 0.5 }' ;;
  esac
}
NODE_CPU_MILLIS=$(cpu_millis "$NODE_CPU")
# The kernel takes a quota of at least 1 ms: from 10 ms up, every NODE_CPU of 100m or more has one.
if ! [[ $NODE_CFS_PERIOD =~ ^[0-9]+ms$ ]] || ((${NODE_CFS_PERIOD%ms} < 10 || ${NODE_CFS_PERIOD%ms} > 1000)); then
  echo "NODE_CFS_PERIOD must be whole milliseconds from 10ms to 1000ms, got '$NODE_CFS_PERIOD'" >&2
  exit 2
fi
CFS_PERIOD_US=$((${NODE_CFS_PERIOD%ms} * 1000))
if ! [[ $NODE_CPU_MILLIS =~ ^[0-9]+$ ]] || ((NODE_CPU_MILLIS < 100)); then
  echo "NODE_CPU must be at least 100m (or 0.1), got '$NODE_CPU'" >&2
  exit 2
fi

# Every node is labelled with its role. A system node (SYSTEM_NODE_CPU set: node 1) is also tainted,
# so only pods that tolerate it run there: what must stay outside the budgets of the nodes that run
# the workload, as the benchmark's operator and its k6 do on a real cluster's system pool.
NODE_ROLE_LABEL=danki.dev/local-role
SYSTEM_NODE_CPU=${SYSTEM_NODE_CPU:-}
SYSTEM_NODE_CPU_MILLIS=
if [[ -n $SYSTEM_NODE_CPU ]]; then
  SYSTEM_NODE_CPU_MILLIS=$(cpu_millis "$SYSTEM_NODE_CPU")
  if ! [[ $SYSTEM_NODE_CPU_MILLIS =~ ^[0-9]+$ ]] || ((SYSTEM_NODE_CPU_MILLIS < 100)); then
    echo "SYSTEM_NODE_CPU must be at least 100m (or 0.1), got '$SYSTEM_NODE_CPU'" >&2
    exit 2
  fi
  if ((CLUSTER_NODES < 2)); then
    echo "SYSTEM_NODE_CPU needs CLUSTER_NODES of 2 or more (node 1 is the system node), got $CLUSTER_NODES" >&2
    exit 2
  fi
fi

NODE_MEMORY=${NODE_MEMORY:-}
# The kubelet's hard eviction threshold (memory.available), which allocatable memory leaves out.
EVICTION_MEMORY_MIB=100
NODE_MEMORY_MIB=
if [[ -n $NODE_MEMORY ]]; then
  case $NODE_MEMORY in
    *Gi) NODE_MEMORY_MIB=$((${NODE_MEMORY%Gi} * 1024)) ;;
    *Mi) NODE_MEMORY_MIB=${NODE_MEMORY%Mi} ;;
  esac
  if ! [[ $NODE_MEMORY_MIB =~ ^[0-9]+$ ]] || ((NODE_MEMORY_MIB < 256)); then
    echo "NODE_MEMORY must be at least 256Mi, as 512Mi or 2Gi, got '$NODE_MEMORY'" >&2
    exit 2
  fi
fi

node_env() {
  NODE_K=$1
  NODE_NAME_K=danki$I-n$NODE_K
  NODE_DIR=$NODES_DIR/n$NODE_K
  local slot=$((I * 8 + NODE_K - 1))
  NODE_POD_CIDR=198.19.$slot.0/24
  NODE_IP=198.19.$slot.1
  NODE_BRIDGE=dkr$I-$NODE_K
  NODE_CGROUP=$INSTANCE_CGROUP/n$NODE_K
  NODE_DAEMON_CGROUP=$INSTANCE_CGROUP/n$NODE_K-daemons
  KUBELET_PORT=$((30000 + 100 * I + 2 * NODE_K))
  KUBELET_HEALTHZ_PORT=$((KUBELET_PORT + 1))
  CONTAINERD_DIR=$NODE_DIR/containerd
  CONTAINERD_SOCK=$CONTAINERD_DIR/containerd.sock
  KUBELET_DIR=$NODE_DIR/kubelet
  CNI_CONF_DIR=$NODE_DIR/cni/net.d
  CNI_BIN_DIR=$NODE_DIR/cni/bin
  CONTAINERD_COMPONENT=n$NODE_K-containerd
  KUBELET_COMPONENT=n$NODE_K-kubelet
  if [[ -n $SYSTEM_NODE_CPU_MILLIS && $NODE_K == 1 ]]; then
    NODE_ROLE=system NODE_CPU_MILLIS_K=$SYSTEM_NODE_CPU_MILLIS
  else
    NODE_ROLE=worker NODE_CPU_MILLIS_K=$NODE_CPU_MILLIS
  fi
}

# cgroup_hierarchies: the mounted cgroup v1 hierarchies (cpu, cpuacct, memory, ..., systemd)
cgroup_hierarchies() {
  local h
  for h in "$CGROUP_FS"/*; do
    [[ -f $h/cgroup.procs && $(stat -f -c %T "$h") == cgroupfs ]] && echo "$h"
  done
}

# cgroup_trees: the v1 hierarchies and the v2 one (unified, hugetlb only here), where runc
# creates each container's cgroup too: node-down removes the node's cgroups from all of them.
cgroup_trees() {
  cgroup_hierarchies
  [[ $(stat -f -c %T "$CGROUP_FS/unified" 2>/dev/null) == cgroup2fs ]] && echo "$CGROUP_FS/unified"
  return 0
}

# move_to_cgroup pid path: the process joins path in every v1 hierarchy
move_to_cgroup() {
  local h
  while read -r h; do echo "$1" >"$h/$2/cgroup.procs"; done < <(cgroup_hierarchies)
}

# Every kubelet binds /var/lib/kubelet/device-plugins/kubelet.sock, whatever its --root-dir (a constant
# of its device manager): it removes the file, then binds the path. Two kubelets starting at once, of one
# instance or of two (make test's lanes), can both remove it before either binds; the later bind fails
# ("address already in use") and that kubelet exits at start ("Failed to start ContainerManager"), as
# one of five did in a bench's cluster-up. So one kubelet starts at a time on the host, each holding a
# lock until its socket is bound.
KUBELET_DEVICE_SOCK=/var/lib/kubelet/device-plugins/kubelet.sock
KUBELET_START_LOCK=/var/lib/kubelet/.danki-start.lock

# start_kubelet_locked COMMAND...: runs COMMAND, which starts the kubelet KUBELET_COMPONENT, under the
# host-wide lock, held until that kubelet's socket is bound, it exited, or 20 s passed.
start_kubelet_locked() {
  local marker n
  mkdir -p "$(dirname "$KUBELET_START_LOCK")"
  (
    flock -w 120 9 || { echo "waited 120 s for $KUBELET_START_LOCK" >&2; exit 1; }
    marker=$(mktemp)
    trap 'rm -f "$marker"' EXIT
    "$@" 9>&- # the kubelet must not inherit the lock
    for ((n = 0; n < 200; n++)); do
      [[ -S $KUBELET_DEVICE_SOCK && $KUBELET_DEVICE_SOCK -nt $marker ]] && break
      is_running "$KUBELET_COMPONENT" || break
      sleep 0.1
    done
  ) 9>"$KUBELET_START_LOCK"
}
