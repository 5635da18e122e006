# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# Item 4, pods: deleting a pod kills its processes, removes its netns and the host's neighbour
# entry for its address; a second, shorter deletion cuts a long grace period short; scaling to 0
# leaves no process.

victim=$("${K[@]}" -n "$NS" get pods -l app=web -o jsonpath='{.items[0].metadata.name}')
uid=$("${K[@]}" -n "$NS" get pod "$victim" -o jsonpath='{.metadata.uid}')
victim_ns=danki$I-$(tr -d - <<<"$uid" | cut -c1-8)
victim_ip=$("${K[@]}" -n "$NS" get pod "$victim" -o jsonpath='{.status.podIP}')
note "host neighbour entry of $victim_ip before the deletion: $(ip neigh show to "$victim_ip" dev "$BRIDGE")"
mapfile -t victim_pids < <(ip netns pids "$victim_ns" 2>/dev/null)
check "4. pod $victim has processes in its netns $victim_ns (${#victim_pids[@]})" test "${#victim_pids[@]}" -ge 1
"${K[@]}" -n "$NS" delete pod "$victim" --timeout=30s >/dev/null
alive=0
for p in "${victim_pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
check "4. after deleting the pod its processes are gone ($alive alive)" test $alive == 0
check "4. and its netns is removed" bash -c "! ip netns list | grep -q '^$victim_ns\b'"
# A stale entry would send the next pod with this address its traffic to the old veth's MAC.
check "4. and the host forgot the MAC it had for $victim_ip" test -z "$(ip neigh show to "$victim_ip" dev "$BRIDGE")"
"${K[@]}" -n "$NS" scale deploy/web --replicas=0 >/dev/null
web_gone() { [[ -z $("${K[@]}" -n "$NS" get pods -l app=web -o name) ]]; }
check "4. scaling web to 0 removes its pods" until_true 30 web_gone
check "4. scaling web to 0 leaves no process of its pods ($(instance_pod_processes web-) left)" \
  test "$(instance_pod_processes web-)" == 0

# `hung` (probes.sh) ignores SIGTERM and has 30 s of grace; a second delete with 1 s must win.
t=$(now_ms)
"${K[@]}" -n "$NS" delete pod hung --wait=false >/dev/null
sleep 1
"${K[@]}" -n "$NS" delete pod hung --grace-period=1 --wait=false >/dev/null
hung_gone() { ! "${K[@]}" -n "$NS" get pod hung >/dev/null 2>&1; }
check "4. a second delete with a shorter grace (1 s) ends a pod that ignores SIGTERM before its 30 s" \
  until_true 15 hung_gone
note "hung pod: first delete to gone $(secs $(($(now_ms) - t))) s"
