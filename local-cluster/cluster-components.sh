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
    # The registry's API base answers 200 with an empty JSON object.
    registry) [[ $(curl -s --max-time 1 -o /dev/null -w '%{http_code}' "http://$REGISTRY_ADDR/v2/") == 200 ]] ;;
    etcd) [[ $(curl -s --max-time 1 "http://127.0.0.1:$ETCD_CLIENT_PORT/health") == *'"health":"true"'* ]] ;;
    kube-apiserver) [[ $(curl -s --max-time 1 "${CURL_ADMIN[@]}" "$API_URL/readyz") == ok* ]] ;;
    kube-controller-manager) [[ $(curl -s --max-time 1 -k "https://127.0.0.1:$KCM_PORT/healthz") == ok* ]] ;;
    kube-scheduler) [[ $(curl -s --max-time 1 -k "https://127.0.0.1:$SCHEDULER_PORT/healthz") == ok* ]] ;;
    # Ready: the kubernetes plugin has synced with the API server and answers.
    coredns) [[ $(curl -s --max-time 1 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$DNS_READY_PORT/ready") == 200 ]] ;;
    *) return 1 ;;
  esac
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
# then SIGKILL the process group. KILL sends SIGKILL to the process alone, as a crash.
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
