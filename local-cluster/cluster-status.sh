#!/usr/bin/env bash
# cluster-status.sh - one line per component of a local cluster instance: running or not, PID,
# RSS, health; then the nodes (kubelet/node-status.sh) and the Nodes. Exits 0 only when everything is up.
# Env: CLUSTER_INSTANCE, CLUSTER_DIR (see cluster-env.sh).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cluster-env.sh"
source "$LC_HOME/cluster-components.sh"
refuse_node_agent_leftover

echo "cluster instance $I  state $CLUSTER_DIR  API $API_URL  DNS $DNS_IP:53  registry http://$REGISTRY_ADDR  bridge $BRIDGE ($BRIDGE_IP)"
up=0
for c in "${COMPONENTS[@]}"; do
  pid=$(pid_of "$c")
  if is_running "$c"; then
    rss=$(awk '/VmRSS/{printf "%d MiB", $2/1024}' "/proc/$pid/status" 2>/dev/null)
    if healthy "$c"; then state=healthy; up=$((up + 1)); else state=unhealthy; fi
    printf '  %-24s %-9s pid %-8s rss %s\n' "$c" "$state" "$pid" "$rss"
  else
    printf '  %-24s %s\n' "$c" "stopped"
  fi
done
nodes_ok=1
"$LC_HOME/kubelet/node-status.sh" || nodes_ok=0
if ((up == ${#COMPONENTS[@]} && nodes_ok)); then
  "$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" get nodes -o wide
  echo "KUBECONFIG=$KUBECONFIG_PATH"
  exit 0
fi
exit 1
