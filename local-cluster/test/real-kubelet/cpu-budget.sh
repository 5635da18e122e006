# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, node_env, helpers from lib.sh)
# A CPU-bound pod with no limits (three busy loops) on a 0.5-CPU node gets at most about 0.5 CPU:
# the node's CFS quota bounds it. Measured from the pod cgroup's cpuacct.usage over 5 s.

node_env 1
cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: burn}
spec:
  nodeSelector: {kubernetes.io/hostname: $NODE_NAME_K}
  terminationGracePeriodSeconds: 0
  containers:
  - name: burn
    image: $JRE_IMAGE
    command: [sh, -c, 'for i in 1 2 3; do (while :; do :; done) & done; wait']
EOF2
pod_running() { [[ $(pod_field "$1" '{.status.phase}') == Running ]]; }
check "the CPU-bound pod runs on $NODE_NAME_K" until_true 60 pod_running burn
uid=$(pod_field burn '{.metadata.uid}')
usage_file=$CGROUP_FS/cpuacct/$NODE_CGROUP/kubepods/besteffort/pod$uid/cpuacct.usage
if [[ -f $usage_file ]]; then
  sleep 1
  u0=$(cat "$usage_file") t0=$(date +%s%N)
  sleep 5
  u1=$(cat "$usage_file") t1=$(date +%s%N)
  cpus=$(awk -v u=$((u1 - u0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.3f", u / t }')
  note "pod burn used $cpus CPU over $(awk -v t=$((t1 - t0)) 'BEGIN { printf "%.1f", t / 1e9 }') s (three busy loops; budget 0.5)"
  check "the CPU-bound pod gets at most 0.55 CPU ($cpus)" awk -v c="$cpus" 'BEGIN { exit !(c <= 0.55) }'
  check "the CPU-bound pod does run (more than 0.05 CPU, the machine is shared: $cpus)" awk -v c="$cpus" 'BEGIN { exit !(c > 0.05) }'
else
  fail "the pod's cgroup $usage_file exists"
fi
"${K[@]}" -n "$NS" delete pod burn --wait=false >/dev/null
