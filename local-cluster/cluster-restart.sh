#!/usr/bin/env bash
# cluster-restart.sh - restart one component of a running local cluster instance, with exactly
# the command line cluster-up gave it (pids/<component>.cmd), and return once it is healthy again.
# Usage: cluster-restart.sh etcd|kube-apiserver|kube-controller-manager|kube-scheduler|node-agent
#        (CLUSTER_KUBELET=real: nK-kubelet|nK-containerd|net-agent instead of node-agent, kubelet/node-restart.sh)
# Env: SIGNAL=TERM (default; the component's shutdown runs, the node agent stops its pods) or
#      KILL (a crash: nothing runs, the node agent's pods are orphaned until the new agent starts);
#      CLUSTER_INSTANCE, CLUSTER_DIR (see cluster-env.sh).
# etcd keeps its data (only cluster-up wipes it); the log of the new process is appended to the old.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cluster-env.sh"
source "$LC_HOME/cluster-components.sh"

T0=$(date +%s%N)
elapsed() { local ms=$((($(date +%s%N) - T0) / 1000000)); printf '%d.%02d' $((ms / 1000)) $((ms % 1000 / 10)); }
log() { printf '[%6ss] %s\n' "$(elapsed)" "$*" >&2; }
die() { echo "cluster-restart: $*" >&2; exit 1; }

c=${1:-}
# A real-kubelet node's kubelet or containerd: nK-kubelet, nK-containerd.
if [[ $CLUSTER_KUBELET == real && $c =~ ^(n[1-8]-(kubelet|containerd)|net-agent)$ ]]; then exec "$LC_HOME/kubelet/node-restart.sh" "$c"; fi
[[ " ${COMPONENTS[*]} " == *" $c "* ]] || die "usage: cluster-restart.sh <component>, one of: ${COMPONENTS[*]}"
SIGNAL=${SIGNAL:-TERM}
SIGNAL=${SIGNAL#SIG}
[[ $SIGNAL == TERM || $SIGNAL == KILL ]] || die "SIGNAL must be TERM or KILL, got '$SIGNAL'"
((EUID == 0)) || die "must run as root, as cluster-up"
is_running "$c" || die "$c of instance $I is not running (make cluster-up CLUSTER_INSTANCE=$I first)"
[[ -s $PIDS_DIR/$c.cmd ]] || die "no recorded command line $PIDS_DIR/$c.cmd (cluster started by an older cluster-up?)"

old=$(pid_of "$c")
stop_component "$c" "$(stop_seconds "$c")" "$SIGNAL" 2>/dev/null
stopped_at=$(date +%s) # after the old agent's last possible Lease renewal
log "stopped $c (pid $old, SIG$SIGNAL)"
echo "--- cluster-restart: SIG$SIGNAL to pid $old at $(date -Is) ---" >>"$LOGS/$c.log"
launch_component "$c" append
is_running "$c" || die "$c did not start again (log: $LOGS/$c.log)"
log "started $c (pid $(pid_of "$c"))"

# The same checks as cluster-up; a restarted agent must also have renewed its Node's Lease.
case $c in
  node-agent) check() { healthy node-agent && node_lease_renewed_since "$stopped_at"; } ;;
  *) check() { healthy "$c"; } ;;
esac
limit=120
for ((n = 0; n < limit * 5; n++)); do
  if check >/dev/null 2>&1; then
    log "$c healthy again"
    exit 0
  fi
  is_running "$c" || { tail -20 "$LOGS/$c.log" >&2; die "$c exited after its restart (log: $LOGS/$c.log)"; }
  sleep 0.2
done
die "$c not healthy ${limit}s after its restart (log: $LOGS/$c.log)"
