#!/usr/bin/env bash
# cluster-down.sh - stop a local cluster instance: its nodes first, while the API server still
# answers (kubelet/node-down.sh stops their pods and removes everything they made), then the
# control plane by its recorded PIDs in reverse start order (etcd, then the registry last), then the
# instance's bridge, then its volumes' folders (cluster-storage.sh). The registry's storage stays,
# garbage-collected (registry/config.sh).
# An instance an older checkout started with the node agent (since removed) is taken down too: its
# agent, then the network namespaces and veths its pods had (and every process inside them).
# Env: CLUSTER_INSTANCE, CLUSTER_DIR (see cluster-env.sh). Keeps certificates and logs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cluster-env.sh"
source "$LC_HOME/cluster-components.sh"
source "$LC_HOME/cluster-storage.sh"
# shellcheck source=registry/config.sh
source "$LC_HOME/registry/config.sh"

log() { printf '%s\n' "$*" >&2; }

nodes_rc=0
legacy_agent=0
if node_agent_leftover; then
  legacy_agent=1
  # It stops its pods on SIGTERM (their grace periods, capped at 20 s) while the API server answers.
  stop_component node-agent 45
  rm -f "$PIDS_DIR/node-agent.cmd"
else
  "$LC_HOME/kubelet/node-down.sh" || nodes_rc=$?
fi

for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
  c=${COMPONENTS[i]}
  stop_component "$c" 15
  rm -f "$PIDS_DIR/$c.cmd"
done
collect_registry_garbage || log "the registry's garbage collection failed (log: $LOGS/registry.log)"

if ((legacy_agent)); then
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
fi
if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link delete "$BRIDGE"; fi
# The volumes' folders go with the cluster, as their PersistentVolumes go with its etcd at the next cluster-up.
if ((nodes_rc == 0)); then storage_remove; else log "kept $VOLUMES_DIR: the nodes left something behind"; fi
rm -f "$CLUSTER_DIR/kubelet-mode" "$CLUSTER_DIR/node-agent.jar"
((nodes_rc == 0)) || { log "cluster instance $I down, but its nodes left something behind (see above)"; exit 1; }
log "cluster instance $I down"
