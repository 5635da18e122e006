#!/usr/bin/env bash
# node-status.sh - one line per node process of a real-kubelet instance (containerd, kubelet), then
# the instance's net agent: PID, RSS, health (containerd answers, the kubelet's and the agent's
# healthz); exits 0 only when all are healthy.
# Called by cluster-status.sh. Env: CLUSTER_INSTANCE, CLUSTER_DIR (see cluster-env.sh).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-env.sh"
# shellcheck source=node-env.sh
source "$LC_HOME/kubelet/node-env.sh"

ok=1
for d in "$NODES_DIR"/n*; do
  [[ -d $d ]] || continue
  node_env "${d##*/n}"
  for c in "$CONTAINERD_COMPONENT" "$KUBELET_COMPONENT"; do
    if is_running "$c"; then
      pid=$(pid_of "$c")
      rss=$(awk '/VmRSS/{printf "%d MiB", $2/1024}' "/proc/$pid/status" 2>/dev/null)
      state=healthy
      if [[ $c == "$KUBELET_COMPONENT" ]]; then
        [[ $(curl -s --max-time 1 "http://127.0.0.1:$KUBELET_HEALTHZ_PORT/healthz") == ok ]] || state=unhealthy
      else
        timeout 2 ctr --address "$CONTAINERD_SOCK" version >/dev/null 2>&1 || state=unhealthy
      fi
      [[ $state == healthy ]] || ok=0
      printf '  %-24s %-9s pid %-8s rss %s\n' "$c" "$state" "$pid" "$rss"
    else
      printf '  %-24s %s\n' "$c" "stopped"; ok=0
    fi
  done
done
if is_running "$NET_AGENT"; then
  pid=$(pid_of "$NET_AGENT")
  rss=$(awk '/VmRSS/{printf "%d MiB", $2/1024}' "/proc/$pid/status" 2>/dev/null)
  state=healthy
  [[ $(curl -s --max-time 1 "http://127.0.0.1:$NET_AGENT_PORT/healthz") == ok ]] || { state=unhealthy; ok=0; }
  printf '  %-24s %-9s pid %-8s rss %s\n' "$NET_AGENT" "$state" "$pid" "$rss"
elif [[ -d $NODES_DIR ]]; then
  printf '  %-24s %s\n' "$NET_AGENT" "stopped"; ok=0
fi
((ok))
