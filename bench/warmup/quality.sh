# quality.sh - benchmark sections 1 and 2: warm quality and warm cost of each strategy.
# Sourced by run-bench.sh after common.sh. One strategy at a time, each on a fresh pod, so no two
# share the CPU: no warm-up, a fixed 3 requests, a fixed 100 requests, danki's adaptive stop.

# poll_warmup_counter IP LOG: every 0.1 s, the pod's count of X-Danki-Warmup requests (the sample
# service counts them apart), so the first and last warm-up request can be timed from outside.
# It polls /metrics only, never an exam route, and runs for every strategy alike.
poll_warmup_counter() {
  local ip=$1 log=$2 i page
  for ((i = 0; i < 6000; i++)); do  # at most about 10 minutes
    if page=$(curl -sf -m 1 "http://$ip:8080/metrics"); then
      awk -v t="$EPOCHREALTIME" '/^danki_sample_warmup_requests_total/ { s += $NF } END { print t, s + 0 }' <<<"$page" >>"$log"
    fi
    sleep 0.1
  done
}

# first_pod LOG PREFIX FIELD: name and FIELD of the first pod named PREFIX* in a watch log.
first_pod() {
  "${MEASURE[@]}" pod-times "$1" "$2" | "$PY" -c 'import json, sys
pods = json.load(sys.stdin)
name = next(iter(pods), "")
print(name, pods[name][sys.argv[1]] if name else "")' "$3"
}

# measure_strategy NS STRATEGY: scale a fresh Deployment 0 -> 1, warm its pod by STRATEGY, then
# send it the first 100 real requests (exam-start), bring it to full warmth, and measure again.
measure_strategy() {
  local ns=$1 s=$2 dep=q-$2 annotate=0 log poll pod ip t_cr t_ready t_k6=null poll_pid= gate_patch=null
  [[ $s == danki ]] && annotate=1
  info "strategy $s: fresh pod of $dep"
  deploy_bench "$ns" "$dep" "$annotate" 0
  log=$OUT/watch-$dep.log poll=$OUT/poll-$dep.log
  start_watch "$ns" "app=$dep" "$log"
  local t_scale=$EPOCHREALTIME
  $K -n "$ns" scale deploy "$dep" --replicas=1 >/dev/null
  # The pod's IP is known before it is ContainersReady: start timing warm-up requests from there.
  until read -r pod ip < <(first_pod "$log" "$dep-" ip) && [[ -n $ip && $ip != None ]]; do
    (($(date +%s) - ${t_scale%.*} < 240)) || die "$dep: no pod IP in 240 s"
    sleep 0.1
  done
  # Off by default: these /metrics requests also warm Netty and Ktor's routing, for as long as the
  # pod takes to start, which flatters whichever strategy starts slowest.
  if [[ ${BENCH_POLL:-0} == 1 ]]; then
    poll_warmup_counter "$ip" "$poll" &
    poll_pid=$!
  fi
  wait_pods "$log" "$dep-" 1 containersReady 240 || die "$dep: no pod ContainersReady in 240 s"
  read -r pod t_cr < <(first_pod "$log" "$dep-" containersReady)
  case $s in
    none) t_ready=$t_cr ;;
    fixed*)
      t_k6=$EPOCHREALTIME
      k6_run "q-$s-warmup" "$BENCH_DIR/fixed-warmup.js" BASE_URL="http://$ip:8080" COUNT="${s#fixed}" PATHS="$WARMUP_PATHS"
      t_ready=$EPOCHREALTIME ;;
    danki)
      local patches_before
      patches_before=$(gate_patch_metric)
      wait_pods "$log" "$dep-" 1 ready 600 || die "$dep: pod not Ready within 600 s"
      read -r pod t_ready < <(first_pod "$log" "$dep-" ready)
      gate_patch=$("$PY" -c 'import json, sys; a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
n = b["count"] - a["count"]
print(json.dumps({"patches": n, "mean_s": (b["sum"] - a["sum"]) / n if n else None}))' "$patches_before" "$(gate_patch_metric)") ;;
  esac
  sleep 0.3  # one more sample after the last warm-up request
  if [[ -n ${poll_pid:-} ]]; then kill "$poll_pid" 2>/dev/null || true; wait "$poll_pid" 2>/dev/null || true; fi
  k6_run "q-$s-first" "$EXAM_START" BASE_URL="http://$ip:8080" RATE=20 DURATION=5 PHASE=first
  k6_run "q-$s-fullwarm" "$BENCH_DIR/fixed-warmup.js" BASE_URL="http://$ip:8080" COUNT="$FULL_WARM" \
    RATE="$FULL_WARM_RATE" PATHS="$WARMUP_PATHS"
  # The fully warm state, measured STEADY_PASSES times the same way as the first 100: one pass alone
  # swings with whatever else the 2 cores do, so the baseline is the pass with the median P95.
  local i steady=()
  for ((i = 1; i <= STEADY_PASSES; i++)); do
    k6_run "q-$s-steady-$i" "$EXAM_START" BASE_URL="http://$ip:8080" RATE=20 DURATION=5 PHASE=steady
    steady+=("$("${MEASURE[@]}" latency "$OUT/k6/q-$s-steady-$i.csv" 100)")
  done
  record section=quality strategy="$s" pod="$pod" t_scale="$t_scale" t_containers_ready="$t_cr" \
    t_ready="$t_ready" t_k6_start="$t_k6" gate_patch="$gate_patch" \
    first100="$("${MEASURE[@]}" latency "$OUT/k6/q-$s-first.csv" 100)" \
    steady="$("$PY" -c 'import json, sys; print(json.dumps([json.loads(a) for a in sys.argv[1:]]))' "${steady[@]}")" \
    poll="$([[ -s $poll ]] && "${MEASURE[@]}" counter-times "$poll" || echo null)" \
    run="$($K -n "$ns" get warmupruns -o json | "$PY" -c 'import json, sys
runs = [i.get("status") for i in json.load(sys.stdin)["items"] if i["spec"].get("podName") == sys.argv[1]]
print(json.dumps(runs[0] if runs else None))' "$pod")"
  stop_watch
  remove_bench "$ns" "$dep"
}

# measure_k6_startup IP: from exec of k6 to its first request, and from its last answer to its
# exit, with one request against a warm pod, 5 times.
measure_k6_startup() {
  local ip=$1 i t0
  for ((i = 1; i <= 5; i++)); do
    t0=$EPOCHREALTIME
    k6_run "k6-startup-$i" "$BENCH_DIR/fixed-warmup.js" BASE_URL="http://$ip:8080" COUNT=1 PATHS="GET /healthz"
    record section=k6_startup t_exec="$t0" t_exit="$EPOCHREALTIME" \
      first="$("${MEASURE[@]}" latency "$OUT/k6/k6-startup-$i.csv")"
  done
}

bench_quality() {
  local ns=danki-bench s ip
  step quality "warm quality and warm cost per strategy (${BENCH_STRATEGIES})"
  for s in $BENCH_STRATEGIES; do measure_strategy "$ns" "$s"; done
  info "k6 start-up on this machine (5 runs against a warm pod)"
  deploy_bench "$ns" k6-target 0 1
  $K -n "$ns" rollout status deploy/k6-target --timeout=240s >/dev/null
  ip=$($K -n "$ns" get pods -l app=k6-target -o jsonpath='{.items[0].status.podIP}')
  measure_k6_startup "$ip"
  remove_bench "$ns" k6-target
}
