#!/usr/bin/env bash
# node-down.sh - stop every node of a real-kubelet instance and remove all it made: processes
# (kubelet, containerd, shims, containers), mounts under the node's folder (the kubelet's root bind
# mount, secret tmpfs, container root file systems), pod network namespaces, veths, bridges and
# cgroups, and the net agent with its nftables table; then restore the host sysctls if no other node runs. Called by cluster-down.sh first,
# while the API server still answers. Prints what it had to remove by force, and exits 1 if
# anything is still left after that.
# Env: CLUSTER_INSTANCE, CLUSTER_DIR (see cluster-env.sh). Keeps logs (pod logs in logs/pods-nK)
# and certificates; removes each node's folder (containerd's images and state).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-env.sh"
# shellcheck source=../cluster-components.sh
source "$LC_HOME/cluster-components.sh"
# shellcheck source=node-env.sh
source "$LC_HOME/kubelet/node-env.sh"
# shellcheck source=host-sysctls.sh
source "$LC_HOME/kubelet/host-sysctls.sh"

T0=$(date +%s%N)
log() { local ms=$((($(date +%s%N) - T0) / 1000000)); printf '[%3d.%02ds] %s\n' $((ms / 1000)) $((ms % 1000 / 10)) "$*" >&2; }
K=("$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" --request-timeout=5s)

# cgroup_pids path: every process in path and below it (any hierarchy has them all; pids does)
cgroup_pids() { [[ -d $CGROUP_FS/pids/$1 ]] && find "$CGROUP_FS/pids/$1" -name cgroup.procs -exec cat {} + 2>/dev/null; }

# alive component: its process runs (a killed one can stay a zombie here until PID 1 reaps it)
alive() { local p; p=$(pid_of "$1"); [[ -n $p && $(ps -o stat= -p "$p" 2>/dev/null) == [!Z]* ]]; }

# stop_pods: ask the API to delete the node's pods, so the kubelet stops them through CRI (which
# also runs CNI DEL, removing veths, addresses and network namespaces); wait until none runs.
stop_pods() {
  local node=$1 n
  "${K[@]}" delete pods --all-namespaces --field-selector "spec.nodeName=$node" --grace-period=1 --wait=false >/dev/null 2>&1 || return 0
  for ((n = 0; n < 150; n++)); do
    [[ -z $(cgroup_pids "$NODE_CGROUP/kubepods") ]] && return 0
    sleep 0.2
  done
  log "$node: pods still running after 30 s; they are killed below"
}

# kill_cgroup path: SIGKILL every process in path until none is left (bounded)
kill_cgroup() {
  local n p
  for ((n = 0; n < 50; n++)); do
    local pids; pids=$(cgroup_pids "$1")
    [[ -z $pids ]] && return 0
    for p in $pids; do kill -KILL "$p" 2>/dev/null || true; done
    sleep 0.1
  done
}

# remove_shim_sockets: the sockets of shims killed by kill_cgroup, which only a clean shim exit
# removes: /run/containerd/s/<sha256 of "<containerd address>/<namespace>/<task id>"> (containerd
# 1.6, runtime/v2/shim SocketAddress); the task ids are the folders of the node's state dir
remove_shim_sockets() {
  local d id ns h n=0
  for d in "$CONTAINERD_DIR"/state/io.containerd.runtime.v2.task/*/*/; do
    [[ -d $d ]] || continue
    id=$(basename "$d") ns=$(basename "$(dirname "$d")")
    h=$(printf '%s' "$CONTAINERD_SOCK/$ns/$id" | sha256sum | cut -d' ' -f1)
    if [[ -S /run/containerd/s/$h ]]; then rm -f "/run/containerd/s/$h"; n=$((n + 1)); fi
  done
  ((n == 0)) || log "$NODE_NAME_K: removed $n socket(s) of killed shims"
}

# unmount_under dir: every mount point below dir, deepest first
unmount_under() {
  local m n=0
  while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "cannot unmount $m"
    n=$((n + 1))
  done < <(awk -v d="$1/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r)
  ((n == 0)) || log "unmounted $n mount(s) under $1"
}

# remove_cgroup path: rmdir path and every cgroup below it, in every hierarchy, children first
remove_cgroup() {
  local h
  while read -r h; do
    [[ -d $h/$1 ]] && find "$h/$1" -depth -type d -exec rmdir {} + 2>/dev/null
  done < <(cgroup_trees)
}

down_node() {
  local k=$1
  node_env "$k"
  if alive "$KUBELET_COMPONENT" && healthy kube-apiserver; then stop_pods "$NODE_NAME_K"; fi
  log "$NODE_NAME_K: pods stopped"
  stop_component "$KUBELET_COMPONENT" 15
  stop_component "$CONTAINERD_COMPONENT" 15
  log "$NODE_NAME_K: kubelet and containerd stopped"
  # Shims outlive containerd by design; they and any container left are in the node's cgroups.
  kill_cgroup "$NODE_CGROUP"
  kill_cgroup "$NODE_DAEMON_CGROUP"
  remove_shim_sockets
  unmount_under "$NODE_DIR"
  # containerd's root holds every image (about 170 MB a node); the logs are in $LOGS.
  grep -q " $NODE_DIR/" /proc/self/mountinfo || rm -rf "$NODE_DIR"
  remove_cgroup "$NODE_CGROUP"
  remove_cgroup "$NODE_DAEMON_CGROUP"
  if ip link show "$NODE_BRIDGE" >/dev/null 2>&1; then ip link delete "$NODE_BRIDGE"; fi
  "${K[@]}" delete node "$NODE_NAME_K" --wait=false >/dev/null 2>&1 || true
  rm -f "$PIDS_DIR/$KUBELET_COMPONENT.cmd" "$PIDS_DIR/$CONTAINERD_COMPONENT.cmd"
  log "$NODE_NAME_K: down"
}

# leftovers: print what is still there of this instance's nodes (empty when nothing)
leftovers() {
  local k
  for ((k = 1; k <= 8; k++)); do
    node_env "$k"
    alive "$KUBELET_COMPONENT" && echo "process: kubelet of $NODE_NAME_K"
    alive "$CONTAINERD_COMPONENT" && echo "process: containerd of $NODE_NAME_K"
    ip link show "$NODE_BRIDGE" >/dev/null 2>&1 && echo "link: $NODE_BRIDGE"
  done
  awk -v d="$NODES_DIR/" 'index($5, d) == 1 {print "mount: " $5}' /proc/self/mountinfo
  local h
  while read -r h; do [[ -d $h/$INSTANCE_CGROUP ]] && echo "cgroup: $h/$INSTANCE_CGROUP"; done < <(cgroup_trees)
  pgrep -f -- "-address $NODES_DIR/" | sed 's/^/process: shim /'
  alive "$NET_AGENT" && echo "process: net agent"
  nft list table ip "$NET_TABLE" >/dev/null 2>&1 && echo "nft table: ip $NET_TABLE"
}

# stop_net_agent: after the nodes (their CNI DELs go to it); it removes its table itself on SIGTERM,
# and a crashed agent's table is removed here.
stop_net_agent() {
  stop_component "$NET_AGENT" 15
  if nft list table ip "$NET_TABLE" >/dev/null 2>&1; then
    nft delete table ip "$NET_TABLE" && log "removed the table ip $NET_TABLE of a stopped net agent"
  fi
  rm -rf "$(dirname "$NET_STATE")"
  rm -f "$PIDS_DIR/$NET_AGENT.cmd"
}

[[ -d $NODES_DIR ]] || { stop_net_agent; restore_host_sysctls "instance-$I"; exit 0; }
# The nodes side by side: each waits for its kubelet to stop its pods, then for its own processes.
downs=()
for d in "$NODES_DIR"/n*; do
  [[ -d $d ]] || continue
  down_node "${d##*/n}" & downs+=($!)
done
for p in "${downs[@]}"; do wait "$p"; done
stop_net_agent
rmdir "$NODES_DIR" 2>/dev/null || true
remove_cgroup "$INSTANCE_CGROUP"
restore_host_sysctls "instance-$I"
# The shims' socket folder; containerd makes it again when a shim starts.
[[ -d $HOST_STATE_DIR ]] || rmdir /run/containerd/s /run/containerd 2>/dev/null || true
left=$(leftovers)
if [[ -n $left ]]; then
  log "node-down: left behind on instance $I:"$'\n'"$left"
  exit 1
fi
log "nodes of instance $I down"
