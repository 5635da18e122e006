# shellcheck shell=bash disable=SC2154 # sourced after cluster-env.sh, which sets the paths and ports
# cluster-components.sh - start, stop and health-check one component of a local cluster instance;
# sourced by cluster-up.sh, cluster-down.sh, cluster-restart.sh and cluster-status.sh.
#
# start_component records the command line NUL-separated in pids/<name>.cmd next to pids/<name>.pid,
# so cluster-restart.sh runs a component again with exactly the command cluster-up gave it.

CURL_ADMIN=(--cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key")

# healthy name: the component answers its health check (what cluster-up waits for).
healthy() {
  case $1 in
    etcd) [[ $(curl -s --max-time 1 "http://127.0.0.1:$ETCD_CLIENT_PORT/health") == *'"health":"true"'* ]] ;;
    kube-apiserver) [[ $(curl -s --max-time 1 "${CURL_ADMIN[@]}" "$API_URL/readyz") == ok* ]] ;;
    kube-controller-manager) [[ $(curl -s --max-time 1 -k "https://127.0.0.1:$KCM_PORT/healthz") == ok* ]] ;;
    kube-scheduler) [[ $(curl -s --max-time 1 -k "https://127.0.0.1:$SCHEDULER_PORT/healthz") == ok* ]] ;;
    node-agent)
      [[ $("$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" --request-timeout=2s get node "$NODE_NAME" \
        -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null) == True ]] ;;
    *) return 1 ;;
  esac
}

# node_lease_renewed_since epoch-seconds: the agent renewed its Node's Lease after that time.
# A restarted agent is healthy only then: the Node stays Ready for 40 s after its agent is gone.
node_lease_renewed_since() {
  local renewed
  renewed=$("$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" --request-timeout=2s -n kube-node-lease get lease "$NODE_NAME" \
    -o jsonpath='{.spec.renewTime}' 2>/dev/null) || return 1
  [[ -n $renewed ]] && (($(date -d "$renewed" +%s) >= $1))
}

# start_component name cmd...: record the command line, then launch it (its log starts empty).
start_component() {
  local n=$1; shift
  printf '%s\0' "$@" >"$PIDS_DIR/$n.cmd"
  launch_component "$n" truncate
}

# launch_component name truncate|append: run the recorded command line detached from this shell
# (setsid, so it outlives make) in the repository, and wait for its pid file.
launch_component() {
  local n=$1 mode=$2 k
  local -a argv
  mapfile -d '' argv <"$PIDS_DIR/$n.cmd"
  ((${#argv[@]} > 0)) || { echo "no recorded command line in $PIDS_DIR/$n.cmd" >&2; return 1; }
  [[ $mode == append ]] || : >"$LOGS/$n.log"
  rm -f "$PIDS_DIR/$n.pid"
  # The process writes its own PID: with job control on, setsid forks and $! would be its parent.
  # The subshell execs setsid: no shell stays behind holding the caller's stdout (a pipe to a test).
  # shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
  (cd "$REPO" && exec setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PIDS_DIR/$n.pid" "${argv[@]}" \
    >>"$LOGS/$n.log" 2>&1 </dev/null) &
  for ((k = 0; k < 50; k++)); do [[ -s $PIDS_DIR/$n.pid ]] && break; sleep 0.02; done
}

# stop_component name seconds [TERM|KILL]: send the signal (default TERM), wait up to seconds,
# then SIGKILL the process group. KILL sends SIGKILL to the process alone, as a crash: the node
# agent's pods are left running, for the next agent to clean up.
stop_component() {
  local n=$1 limit=$2 sig=${3:-TERM} pid k
  pid=$(pid_of "$n")
  if [[ -z $pid ]] || ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$PIDS_DIR/$n.pid"
    return
  fi
  kill "-$sig" "$pid" 2>/dev/null || true
  for ((k = 0; k < limit * 10; k++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "$n did not stop within ${limit}s; SIGKILL" >&2
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    for ((k = 0; k < 50; k++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$PIDS_DIR/$n.pid"
  echo "stopped $n (pid $pid, SIG$sig)" >&2
}

# stop_seconds name: how long a component gets after SIGTERM; the agent gives its pods their
# grace periods (capped at 20 s) before it exits.
stop_seconds() { if [[ $1 == node-agent ]]; then echo 45; else echo 15; fi; }
