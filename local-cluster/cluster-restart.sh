#!/usr/bin/env bash
# cluster-restart.sh - restart one component of a running local cluster instance, with exactly
# the command line cluster-up gave it (pids/<component>.cmd), and return once it is healthy again.
# Usage: cluster-restart.sh registry|etcd|kube-apiserver|kube-controller-manager|kube-scheduler|coredns
#        or nK-kubelet|nK-containerd|net-agent (the nodes' own, kubelet/node-restart.sh)
# Env: SIGNAL=TERM (default; the component's shutdown runs) or KILL (a crash: nothing runs);
#      CLUSTER_INSTANCE, CLUSTER_DIR (see cluster-env.sh).
# etcd keeps its data (only cluster-up wipes it), the registry its storage; the log of the new
# process is appended to the old.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cluster-env.sh"
source "$LC_HOME/cluster-components.sh"
refuse_node_agent_leftover

T0=$(date +%s%N)
elapsed() { local ms=$((($(date +%s%N) - T0) / 1000000)); printf '%d.%02d' $((ms / 1000)) $((ms % 1000 / 10)); }
log() { printf '[%6ss] %s\n' "$(elapsed)" "$*" >&2; }
die() { echo "cluster-restart: $*" >&2; exit 1; }

c=${1:-}
# A node's kubelet or containerd (nK-kubelet, nK-containerd), or the instance's net agent.
if [[ $c =~ ^(n[1-8]-(kubelet|containerd)|net-agent)$ ]]; then exec "$LC_HOME/kubelet/node-restart.sh" "$c"; fi
[[ " ${COMPONENTS[*]} " == *" $c "* ]] || die "usage: cluster-restart.sh <component>, one of: ${COMPONENTS[*]} nK-kubelet nK-containerd net-agent"
SIGNAL=${SIGNAL:-TERM}
SIGNAL=${SIGNAL#SIG}
[[ $SIGNAL == TERM || $SIGNAL == KILL ]] || die "SIGNAL must be TERM or KILL, got '$SIGNAL'"
((EUID == 0)) || die "must run as root, as cluster-up"
is_running "$c" || die "$c of instance $I is not running (make cluster-up CLUSTER_INSTANCE=$I first)"
[[ -s $PIDS_DIR/$c.cmd ]] || die "no recorded command line $PIDS_DIR/$c.cmd (cluster started by an older cluster-up?)"

old=$(pid_of "$c")
stop_component "$c" 15 "$SIGNAL" 2>/dev/null
log "stopped $c (pid $old, SIG$SIGNAL)"
echo "--- cluster-restart: SIG$SIGNAL to pid $old at $(date -Is) ---" >>"$LOGS/$c.log"
launch_component "$c" append
is_running "$c" || die "$c did not start again (log: $LOGS/$c.log)"
log "started $c (pid $(pid_of "$c"))"

# The same check as cluster-up.
limit=120
for ((n = 0; n < limit * 5; n++)); do
  if healthy "$c" >/dev/null 2>&1; then
    log "$c healthy again"
    exit 0
  fi
  is_running "$c" || { tail -20 "$LOGS/$c.log" >&2; die "$c exited after its restart (log: $LOGS/$c.log)"; }
  sleep 0.2
done
die "$c not healthy ${limit}s after its restart (log: $LOGS/$c.log)"
