# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, node_env, helpers from lib.sh)
# Deleting pods through the API: the kubelets stop them, remove their cgroups and (through CNI)
# their veths and network namespaces.

pod_cgroups() { find "$CGROUP_FS"/pids/"$INSTANCE_CGROUP"/n*/kubepods -maxdepth 2 -type d -name 'pod*' 2>/dev/null | wc -l; }
pod_veths() {
  local k n=0
  for ((k = 1; k <= CLUSTER_NODES; k++)); do
    node_env "$k"
    n=$((n + $(ip -o link show master "$NODE_BRIDGE" 2>/dev/null | wc -l)))
  done
  echo "$n"
}
# containerd keeps each sandbox's network namespace as an nsfs mount under its state dir
pod_netns() {
  awk -v d="$NODES_DIR/" 'index($5, d) == 1 { for (i = 7; i < NF; i++) if ($i == "-") { n += $(i + 1) == "nsfs"; break } }
    END { print n + 0 }' /proc/self/mountinfo
}
note "before: $(pod_cgroups) pod cgroups, $(pod_veths) veths, $(pod_netns) network namespaces"
t0=$(now_ms)
"${K[@]}" -n "$NS" delete pod --all --wait=false >/dev/null
no_pods() { [[ -z $("${K[@]}" -n "$NS" get pods -o name 2>/dev/null) ]]; }
if until_true 60 no_pods; then
  pass "every pod is deleted ($(secs $(($(now_ms) - t0))) s, grace periods 0 to 2 s)"
else
  fail "every pod is deleted within 60 s (left: $("${K[@]}" -n "$NS" get pods -o name | tr '\n' ' '))"
fi
nothing_of_pods() { [[ $(pod_cgroups) == 0 && $(pod_veths) == 0 && $(pod_netns) == 0 ]]; }
if until_true 30 nothing_of_pods; then
  pass "their cgroups, veths and network namespaces are gone ($(secs $(($(now_ms) - t0))) s after the delete)"
else
  fail "their cgroups ($(pod_cgroups)), veths ($(pod_veths)) and network namespaces ($(pod_netns)) are gone within 30 s"
fi
attachments() { python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$NET_STATE" 2>/dev/null; }
no_attachments() { [[ $(attachments) == 0 ]]; }
check "the net agent was told of every sandbox's end (CNI DEL): it lists none ($(attachments))" until_true 10 no_attachments
