#!/usr/bin/env bash
# node-restart.sh - restart the kubelet or containerd of one node of a running real-kubelet
# instance, with the command line node-up gave it, and return once it is healthy again, as the
# fault suite does. Called by cluster-restart.sh for nK-kubelet and nK-containerd. Pods keep
# running across either restart: containerd finds its shims again, the kubelet its pods.
# Also the instance's net agent: it reloads the rules of the pods it had attached (its state file).
# Usage: node-restart.sh nK-kubelet|nK-containerd|net-agent
# Env: SIGNAL=TERM (default) or KILL (a crash); CLUSTER_INSTANCE, CLUSTER_DIR (see cluster-env.sh).
set -euo pipefail
# shellcheck source=../cluster-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-env.sh"
# shellcheck source=../cluster-components.sh
source "$LC_HOME/cluster-components.sh"
# shellcheck source=node-env.sh
source "$LC_HOME/kubelet/node-env.sh"

T0=$(date +%s%N)
elapsed() { local ms=$((($(date +%s%N) - T0) / 1000000)); printf '%d.%02d' $((ms / 1000)) $((ms % 1000 / 10)); }
log() { printf '[%6ss] %s\n' "$(elapsed)" "$*" >&2; }
die() { echo "node-restart: $*" >&2; exit 1; }

c=${1:-}
if [[ $c =~ ^n([1-8])-(kubelet|containerd)$ ]]; then
  node_env "${BASH_REMATCH[1]}"
elif [[ $c != "$NET_AGENT" ]]; then
  die "usage: node-restart.sh nK-kubelet|nK-containerd|$NET_AGENT"
fi
SIGNAL=${SIGNAL:-TERM}
SIGNAL=${SIGNAL#SIG}
[[ $SIGNAL == TERM || $SIGNAL == KILL ]] || die "SIGNAL must be TERM or KILL, got '$SIGNAL'"
is_running "$c" || die "$c of instance $I is not running"
[[ -s $PIDS_DIR/$c.cmd ]] || die "no recorded command line $PIDS_DIR/$c.cmd"

old=$(pid_of "$c")
stop_component "$c" 15 "$SIGNAL" 2>/dev/null
stopped_at=$(date +%s)
log "stopped $c (pid $old, SIG$SIGNAL)"
echo "--- cluster-restart: SIG$SIGNAL to pid $old at $(date -Is) ---" >>"$LOGS/$c.log"
if [[ $c == *-kubelet ]]; then start_kubelet_locked launch_component "$c" append; else launch_component "$c" append; fi
is_running "$c" || die "$c did not start again (log: $LOGS/$c.log)"
[[ $c == "$NET_AGENT" ]] || move_to_cgroup "$(pid_of "$c")" "$NODE_DAEMON_CGROUP"
log "started $c (pid $(pid_of "$c"))"

lease_renewed() {
  local t
  t=$("$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" --request-timeout=2s -n kube-node-lease get lease "$NODE_NAME_K" \
    -o jsonpath='{.spec.renewTime}' 2>/dev/null) || return 1
  [[ -n $t ]] && (($(date -d "$t" +%s) >= stopped_at))
}
# The kubelet is healthy again once its healthz answers and it renewed its Node's Lease.
check() {
  if [[ $c == "$NET_AGENT" ]]; then
    [[ $(curl -s --max-time 1 "http://127.0.0.1:$NET_AGENT_PORT/healthz") == ok ]]
  elif [[ $c == "${KUBELET_COMPONENT:-}" ]]; then
    [[ $(curl -s --max-time 1 "http://127.0.0.1:$KUBELET_HEALTHZ_PORT/healthz") == ok ]] && lease_renewed
  else
    timeout 2 ctr --address "$CONTAINERD_SOCK" version >/dev/null 2>&1
  fi
}
for ((n = 0; n < 300; n++)); do
  if check; then log "$c healthy again"; exit 0; fi
  is_running "$c" || { tail -20 "$LOGS/$c.log" >&2; die "$c exited after its restart (log: $LOGS/$c.log)"; }
  sleep 0.2
done
die "$c not healthy 60 s after its restart (log: $LOGS/$c.log)"
