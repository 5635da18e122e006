#!/usr/bin/env bash
# cluster-down.sh - stop a local cluster instance by its recorded PIDs, in reverse start order
# (the node agent first, so it stops its pods while the API server still answers; etcd last).
# Then removes whatever the node agent may have left: network namespaces and veths with this
# instance's name prefix (and every process inside those namespaces), and the bridge.
# Env: CLUSTER_INSTANCE, CLUSTER_DIR (see cluster-env.sh). Keeps certificates and logs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cluster-env.sh"
source "$LC_HOME/cluster-components.sh"

log() { printf '%s\n' "$*" >&2; }

# Real-kubelet nodes go first, while the API server still answers (the kubelets stop their pods).
nodes_rc=0
if [[ $CLUSTER_KUBELET == real ]]; then "$LC_HOME/kubelet/node-down.sh" || nodes_rc=$?; fi

for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
  c=${COMPONENTS[i]}
  stop_component "$c" "$(stop_seconds "$c")"
  rm -f "$PIDS_DIR/$c.cmd"
done

# Anything the agent left behind: its namespaces (and their processes), veths, then the bridge.
leftovers=0
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^danki$I-" || true); do
  for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
  ip netns delete "$ns" 2>/dev/null || true
  leftovers=$((leftovers + 1))
done
for v in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^dk${I}v" || true); do
  ip link delete "$v" 2>/dev/null || true
  leftovers=$((leftovers + 1))
done
((leftovers == 0)) || log "removed $leftovers network namespaces/veths the node agent left behind"
if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link delete "$BRIDGE"; fi
if [[ $CLUSTER_KUBELET == real ]]; then
  ((nodes_rc == 0)) || { log "cluster instance $I down, but its nodes left something behind (see above)"; exit 1; }
fi
rm -f "$CLUSTER_DIR/kubelet-mode"
log "cluster instance $I down"
