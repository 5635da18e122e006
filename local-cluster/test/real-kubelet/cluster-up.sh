# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, node_env, helpers from lib.sh)
# A cold cluster-up with three real-kubelet nodes; each Node's allocatable CPU and memory are its
# budgets, and its CPU budget is the CFS quota on its cgroup root. The instance's registry answers on
# its port and holds every image built here, and each node's containerd is pointed at it.

t0=$(now_ms)
mkdir -p "$(dirname "$CLUSTER_DIR")" # a fresh clone has no .cluster/ for the log yet
if "$LC_HOME/cluster-up.sh" >"$CLUSTER_DIR.up.log" 2>&1; then
  pass "cold cluster-up with $CLUSTER_NODES real-kubelet nodes ($(secs $(($(now_ms) - t0))) s)"
else
  fail "cold cluster-up with $CLUSTER_NODES real-kubelet nodes (log: $CLUSTER_DIR.up.log)"
  tail -30 "$CLUSTER_DIR.up.log"
fi
grep -E 'Ready|RSS|registry|containerd up|image imported|kubelet started' "$CLUSTER_DIR.up.log" | sed 's/^/      /'

check "the registry answers on $REGISTRY_ADDR (pid $(pid_of registry))" healthy registry
# every_image_in_registry: each archive built here is in the registry under each of its tags, same digest
every_image_in_registry() {
  local archive ref want got n=0
  while read -r archive ref; do
    [[ -f $IMAGES_DIR/$archive.tar ]] || continue
    want=$(archive_digest "$IMAGES_DIR/$archive.tar") got=$(registry_digest "$ref")
    [[ $got == "$want" ]] || { note "$ref: registry ${got:-missing}, archive $want"; return 1; }
    n=$((n + 1))
  done < <(registry_images)
  note "$n tags, each the archive's digest"
}
check "the registry holds every image built here under each of its tags" every_image_in_registry

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
  check "$NODE_NAME_K: CFS quota on /$NODE_CGROUP is 500m over a 10 ms period (5000/10000)" test "$quota" == 5000/10000
  ip=$("${K[@]}" get node "$NODE_NAME_K" -o jsonpath='{.status.addresses[?(@.type=="InternalIP")].address}')
  check "$NODE_NAME_K: InternalIP is its bridge address $NODE_IP" test "$ip" == "$NODE_IP"
  hosts=$(grep -l "^\[host.\"http://$REGISTRY_ADDR\"\]$" "$CONTAINERD_DIR"/certs.d/*/hosts.toml 2>/dev/null | wc -l)
  check "$NODE_NAME_K: containerd sends docker.io, localhost and $REGISTRY_ADDR to the registry ($hosts hosts.toml)" test "$hosts" == 3
done
"${K[@]}" create namespace "$NS" >/dev/null
default_sa() { "${K[@]}" -n "$NS" get serviceaccount default >/dev/null 2>&1; }
until_true 30 default_sa || note "no default ServiceAccount in $NS after 30 s"
