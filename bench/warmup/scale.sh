# scale.sh - benchmark sections 3 and 4: time until N new pods are all warmed against the
# operator's concurrency, the operator's CPU per warmed pod, and its memory with 1,000 opted-in
# pods in its informer cache. Sourced by run-bench.sh after common.sh.

# measure_scale NS N CONCURRENCY: an annotated Deployment 0 -> N; time until all N are Ready.
measure_scale() {
  local ns=$1 n=$2 c=$3 dep=s$2-c$3 log before after t_scale
  deploy_bench "$ns" "$dep" 1 0
  log=$OUT/watch-$dep.log
  start_watch "$ns" "app=$dep" "$log"
  before=$(operator_proc)
  t_scale=$EPOCHREALTIME
  $K -n "$ns" scale deploy "$dep" --replicas="$n" >/dev/null
  wait_pods "$log" "$dep-" "$n" ready "$SCALE_TIMEOUT" || warn "$dep: not all $n pods Ready within ${SCALE_TIMEOUT}s"
  sleep 2  # lets the operator reap its last k6 process, so its CPU lands in the children's count
  after=$(operator_proc)
  record section=scale n="$n" concurrency="$c" t_scale="$t_scale" \
    pods="$("${MEASURE[@]}" pod-times "$log" "$dep-")" before="$before" after="$after" \
    runs="$($K -n "$ns" get warmupruns -o json | "$PY" -c '
import json, sys
print(json.dumps([dict(i["status"], pod=i["spec"]["podName"]) for i in json.load(sys.stdin)["items"]
                  if "status" in i and i["spec"].get("podName", "").startswith(sys.argv[1])]))' "$dep-")"
  stop_watch
  remove_bench "$ns" "$dep"
  info "N=$n concurrency=$c done"
}

bench_scale() {
  local ns=danki-bench c n
  step scale "time until N pods are warmed, N in ($BENCH_SCALE_N), concurrency in ($BENCH_CONCURRENCY)"
  for c in $BENCH_CONCURRENCY; do
    install_operator "$c"
    for n in $BENCH_SCALE_N; do measure_scale "$ns" "$n" "$c"; done
  done
  install_operator
}

# renew_fake_node NODE SECONDS: keep a Node that no agent serves Ready, as its kubelet would.
renew_fake_node() {
  local node=$1 until_s=$(($(date +%s) + $2)) now
  while (($(date +%s) < until_s)); do
    now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    $K patch node "$node" --subresource=status --type=merge -p "{\"status\":{
      \"capacity\":{\"cpu\":\"64\",\"memory\":\"256Gi\",\"pods\":\"2000\"},
      \"allocatable\":{\"cpu\":\"64\",\"memory\":\"256Gi\",\"pods\":\"2000\"},
      \"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"BenchFakeNode\",
        \"message\":\"registered by bench/warmup; no agent runs its pods\",
        \"lastHeartbeatTime\":\"$now\",\"lastTransitionTime\":\"$now\"}]}}" >/dev/null 2>&1 || true
    $K -n kube-node-lease apply -f - >/dev/null 2>&1 <<EOF || true
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: $node, namespace: kube-node-lease}
spec: {holderIdentity: $node, leaseDurationSeconds: 40, renewTime: "$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)"}
EOF
    sleep 10
  done
}

# sample_operator SECONDS: the operator's CPU seconds over SECONDS, and its RSS at the end.
sample_operator() {
  local a b
  a=$(operator_proc); sleep "$1"; b=$(operator_proc)
  "$PY" -c 'import json,sys; a,b=json.loads(sys.argv[1]),json.loads(sys.argv[2]); s=float(sys.argv[3])
print(json.dumps({"rss_mib": b["rss_mib"], "cpu_per_s": (b["cpu_s"] - a["cpu_s"]) / s}))' "$a" "$b" "$1"
}

# jvm_old_gen: MiB used in the operator's G1 old generation, from its /metrics. Long-lived objects
# such as the informer cache end up there; the young generation swings with every allocation.
jvm_old_gen() {
  { curl -s -m 10 "http://$OPERATOR_IP:8080/metrics" || true; } |
    awk '/^jvm_memory_pool_used_bytes\{pool="G1 Old Gen"\}/ { s += $NF; found = 1 } END { if (found) printf "%.1f", s / 1048576; else print "null" }'
}

bench_cache() {
  local ns=danki-bench-cache node=bench-fake-node n=$BENCH_FAKE_PODS idle full created ingest0 ingest1 proxy_pid ips port
  step cache "operator RSS and CPU with $n opted-in pods in its informer cache"
  $K create namespace "$ns" --dry-run=client -o yaml | $K apply -f - >/dev/null
  deploy_bench "$ns" cache-target 0 2
  $K -n "$ns" rollout status deploy/cache-target --timeout=240s >/dev/null
  ips=$($K -n "$ns" get pods -l app=cache-target -o jsonpath='{.items[*].status.podIP}')
  $K apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Node
metadata:
  name: $node
  labels: {kubernetes.io/hostname: $node, danki.dev/bench: fake}
spec:
  taints: [{key: danki.dev/bench-fake, effect: NoSchedule}]
EOF
  renew_fake_node "$node" 900 &
  local renew_pid=$!
  info "baseline: operator idle for ${CACHE_SAMPLE_S}s"
  idle=$(sample_operator "$CACHE_SAMPLE_S")
  local heap0 heap1
  heap0=$(jvm_old_gen)
  ingest0=$(operator_proc)
  created=$EPOCHREALTIME
  "$PY" "$BENCH_DIR/fake_pods.py" manifest "$ns" "$n" "$node" | $K create -f - >/dev/null
  port=$((20000 + RANDOM % 10000))
  $K proxy --address=127.0.0.1 --port="$port" >/dev/null 2>&1 &
  proxy_pid=$!
  wait_for 15 "kubectl proxy" curl -sf "http://127.0.0.1:$port/api"
  # shellcheck disable=SC2086 # one argument per target IP
  info "created $n pods; wrote $("$PY" "$BENCH_DIR/fake_pods.py" status "http://127.0.0.1:$port" "$ns" $ips) statuses in $(elapsed "$created") s"
  kill "$proxy_pid" 2>/dev/null || true
  sleep 20
  ingest1=$(operator_proc)
  info "settled; sampling the operator for ${CACHE_SAMPLE_S}s"
  full=$(sample_operator "$CACHE_SAMPLE_S")
  heap1=$(jvm_old_gen)
  local runs
  runs=$($K -n "$ns" get warmupruns --no-headers 2>/dev/null | wc -l)
  record section=cache pods="$n" idle="$idle" full="$full" ingest_before="$ingest0" ingest_after="$ingest1" \
    heap_before_mib="$heap0" heap_after_mib="$heap1" warmupruns_created="$runs"
  $K -n "$ns" delete pods -l app=bench-fake --force --grace-period=0 --wait=false >/dev/null 2>&1 || true
  kill "$renew_pid" 2>/dev/null || true
  $K delete namespace "$ns" --wait=true --timeout=120s >/dev/null || warn "namespace $ns not deleted"
  $K delete node "$node" --ignore-not-found >/dev/null
}
