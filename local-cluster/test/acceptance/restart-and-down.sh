# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# Item 4, the cluster: a warm cluster-up; an agent killed with SIGKILL and started again removes
# its orphans and runs its pods again with the same IPs; cluster-down leaves nothing behind.

# warm restart: down and up again with certificates kept, then the final cluster-down
note "before cluster-down: $(pod_processes) pod processes, $(netns_of_instance) netns, $(cluster_processes) cluster processes"
"$LC_HOME/cluster-down.sh" >/dev/null 2>&1
t=$(now_ms)
"$LC_HOME/cluster-up.sh" >/dev/null 2>"$LOGS/cluster-up-warm.err"
WARM_MS=$(($(now_ms) - t))
check "warm cluster-up (certificates kept) succeeds" node_ready
note "warm cluster-up: $(secs $WARM_MS) s"
for c in "${COMPONENTS[@]}"; do
  note "RSS $c: $(awk '/VmRSS/{printf "%d MiB", $2/1024}' "/proc/$(pid_of "$c")/status" 2>/dev/null)"
done
"${K[@]}" create namespace "$NS" >/dev/null
until_true 30 "${K[@]}" -n "$NS" get serviceaccount default >/dev/null 2>&1
"${K[@]}" -n "$NS" create deployment left --image=danki/http-status:dev --replicas=2 >/dev/null
left_running() { [[ $(instance_pod_processes left-) -ge 2 ]]; }
until_true 30 left_running
note "with 2 pods running: $(pod_processes) pod processes, $(netns_of_instance) netns, $(veths_of_instance) veths"

# ---- 4. a crashed agent, started again, removes its orphans and runs its pods again ------------
pod_ips() { "${K[@]}" -n "$NS" get pods -l app=left -o jsonpath='{range .items[*]}{.status.podIP}{"\n"}{end}' | sort; }
ips_before=$(pod_ips)
mapfile -t old_pids < <(for ns in $(ip netns list | awk '{print $1}' | grep "^danki$I-"); do ip netns pids "$ns"; done)
agent_pid=$(pid_of node-agent)
mapfile -d '' agent_argv <"/proc/$agent_pid/cmdline"
kill -KILL "$agent_pid"
until_true 10 bash -c "! kill -0 $agent_pid 2>/dev/null"
# shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
(cd "$REPO" && setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PIDS_DIR/node-agent.pid" "${agent_argv[@]}" \
  >>"$LOGS/node-agent.log" 2>&1 </dev/null &)
old_gone() { local p; for p in "${old_pids[@]}"; do kill -0 "$p" 2>/dev/null && return 1; done; return 0; }
check "4. after an agent crash (SIGKILL) and restart, the orphaned processes (${#old_pids[@]}) are gone" until_true 60 old_gone
check "4. and its pods run again" until_true 60 left_running
check "4. with the same pod IPs ($(tr '\n' ' ' <<<"$ips_before"))" test "$(pod_ips)" == "$ips_before"
check "4. with one netns each ($(netns_of_instance))" test "$(netns_of_instance)" == 2
t=$(now_ms)
"$LC_HOME/cluster-down.sh" >/dev/null 2>&1
note "cluster-down with 2 pods: $(secs $(($(now_ms) - t))) s"
check "4. after cluster-down no cluster process is left ($(cluster_processes))" test "$(cluster_processes)" == 0
check "4. after cluster-down no pod process is left ($(instance_pod_processes))" test "$(instance_pod_processes)" == 0
check "4. after cluster-down no netns of the instance is left ($(netns_of_instance))" test "$(netns_of_instance)" == 0
check "4. after cluster-down no veth of the instance is left ($(veths_of_instance))" test "$(veths_of_instance)" == 0
check "4. after cluster-down the bridge $BRIDGE is gone" bash -c "! ip link show $BRIDGE >/dev/null 2>&1"
