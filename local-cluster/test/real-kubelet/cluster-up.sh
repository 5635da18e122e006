# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, node_env, helpers from lib.sh)
# A cold cluster-up with three real-kubelet nodes; each Node's allocatable CPU and memory are its
# budgets, and its CPU budget is the CFS quota on its cgroup root.

t0=$(now_ms)
mkdir -p "$(dirname "$CLUSTER_DIR")" # a fresh clone has no .cluster/ for the log yet
if "$LC_HOME/cluster-up.sh" >"$CLUSTER_DIR.up.log" 2>&1; then
  pass "cold cluster-up with $CLUSTER_NODES real-kubelet nodes ($(secs $(($(now_ms) - t0))) s)"
else
  fail "cold cluster-up with $CLUSTER_NODES real-kubelet nodes (log: $CLUSTER_DIR.up.log)"
  tail -30 "$CLUSTER_DIR.up.log"
fi
grep -E 'Ready|RSS|containerd up|images imported|kubelet started' "$CLUSTER_DIR.up.log" | sed 's/^/      /'

ready_nodes() {
  "${K[@]}" get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True
}
check "three Nodes are Ready" test "$(ready_nodes)" == 3
for ((k = 1; k <= CLUSTER_NODES; k++)); do
  node_env "$k"
  alloc=$("${K[@]}" get node "$NODE_NAME_K" -o jsonpath='{.status.allocatable.cpu}')
  cap=$("${K[@]}" get node "$NODE_NAME_K" -o jsonpath='{.status.capacity.cpu}')
  check "$NODE_NAME_K: allocatable cpu is its budget 500m (capacity $cap)" test "$alloc" == 500m
  mem=$("${K[@]}" get node "$NODE_NAME_K" -o jsonpath='{.status.allocatable.memory}')
  check "$NODE_NAME_K: allocatable memory is its budget 1Gi ($mem)" test "$mem" == 1Gi
  quota=$(cat "$CGROUP_FS/cpu/$NODE_CGROUP/cpu.cfs_quota_us" 2>/dev/null)/$(cat "$CGROUP_FS/cpu/$NODE_CGROUP/cpu.cfs_period_us" 2>/dev/null)
  check "$NODE_NAME_K: CFS quota on /$NODE_CGROUP is 50000/100000" test "$quota" == 50000/100000
  ip=$("${K[@]}" get node "$NODE_NAME_K" -o jsonpath='{.status.addresses[?(@.type=="InternalIP")].address}')
  check "$NODE_NAME_K: InternalIP is its bridge address $NODE_IP" test "$ip" == "$NODE_IP"
done
"${K[@]}" create namespace "$NS" >/dev/null
default_sa() { "${K[@]}" -n "$NS" get serviceaccount default >/dev/null 2>&1; }
until_true 30 default_sa || note "no default ServiceAccount in $NS after 30 s"
