# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (CLUSTER_DIR, NETNS_BEFORE, SYSCTLS_BEFORE, helpers)
# cluster-down leaves nothing of the nodes, crashed (1, 2) or not (3): no process, no mount under the
# instance's folder, no network namespace, link, cgroup or shim socket, no net agent or its nftables
# table; the host sysctls are back.

t0=$(now_ms)
if "$LC_HOME/cluster-down.sh" >"$CLUSTER_DIR.down.log" 2>&1; then
  pass "cluster-down ($(secs $(($(now_ms) - t0))) s)"
else
  fail "cluster-down (log: $CLUSTER_DIR.down.log)"; tail -20 "$CLUSTER_DIR.down.log"
fi
check "no process of the instance is left" test "$(pgrep -f -- "$CLUSTER_DIR/" | wc -l)" == 0
check "no containerd shim is left" test "$(pgrep -f -- "-address $CLUSTER_DIR/" | wc -l)" == 0
new_orphan_sockets() { orphan_shim_sockets | comm -13 <(echo "$ORPHAN_SHIM_SOCKETS_BEFORE") -; }
check "no socket of a killed shim is left in /run/containerd/s ($(new_orphan_sockets | wc -l))" test -z "$(new_orphan_sockets)"
check "no mount under $CLUSTER_DIR is left" test "$(awk -v d="$CLUSTER_DIR/" 'index($5, d) == 1' /proc/self/mountinfo | wc -l)" == 0
# A node agent of an older checkout makes and removes its own (dankiN-...) meanwhile: not ours.
new_netns() { ip netns list 2>/dev/null | awk '{print $1}' | sort | comm -13 <(echo "$NETNS_BEFORE") - | grep -v '^danki[0-9]*-'; }
check "no network namespace is left in /var/run/netns ($(new_netns | tr '\n' ' '))" test -z "$(new_netns)"
check "no bridge or veth of the instance is left" test "$(ip -o link show 2>/dev/null | grep -cE ": (dkr$I-|danki$I:)")" == 0
check "no net agent is left" test -z "$(pgrep -f -- "--state-file=$NET_STATE")"
check "no nftables table ip $NET_TABLE is left in the host" test -z "$(nft list tables 2>/dev/null | grep -x "table ip $NET_TABLE")"
check "no net agent state is left" test ! -e "$(dirname "$NET_STATE")"
check "no cgroup of the instance is left" test "$(find "$CGROUP_FS" -maxdepth 2 -name "$INSTANCE_CGROUP" | wc -l)" == 0
if compgen -G "$HOST_STATE_DIR/owners/*" >/dev/null; then
  note "other real-kubelet nodes run ($(ls "$HOST_STATE_DIR/owners")): the sysctls stay as the kubelet set them"
else
  after=$(for k in "${HOST_SYSCTLS[@]}"; do echo "$k=$(sysctl -n "$k")"; done)
  check "the host sysctls are as before ($(tr '\n' ' ' <<<"$SYSCTLS_BEFORE"))" test "$after" == "$SYSCTLS_BEFORE"
fi
