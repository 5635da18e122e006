# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (CLUSTER_DIR, REGISTRY_*, NETNS_BEFORE, SYSCTLS_BEFORE, helpers)
# cluster-down leaves nothing of the nodes, crashed (1, 2) or not (3): no process (CoreDNS's neither), no
# mount under the instance's folder, no network namespace, link, cgroup or shim socket, no net agent or its nftables
# table; the host sysctls are back. The registry is stopped; its storage stays (the next cluster-up
# pushes only what changed) with nothing in it that no tag names: a blob uploaded without a
# manifest, as a push cut short leaves one, is gone.

# upload_blob content: put content into the registry as a blob of danki/gc-probe, named by no
# manifest (the registry's two-step upload: POST for a location, PUT with the digest)
upload_blob() {
  local loc
  loc=$(curl -s -X POST -D - -o /dev/null "http://$REGISTRY_ADDR/v2/danki/gc-probe/blobs/uploads/" |
    tr -d '\r' | awk 'tolower($1) == "location:" {print $2}')
  if [[ $loc == /* ]]; then loc=http://$REGISTRY_ADDR$loc; fi
  if [[ $loc == *\?* ]]; then loc+="&"; else loc+="?"; fi
  [[ $(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/octet-stream' \
    --data-binary "$1" "${loc}digest=sha256:$(printf %s "$1" | sha256sum | cut -d' ' -f1)") == 201 ]]
}
probe="gc probe $(date +%s%N)"
probe_hex=$(printf %s "$probe" | sha256sum | cut -d' ' -f1)
probe_blob=$REGISTRY_DATA/docker/registry/v2/blobs/sha256/${probe_hex:0:2}/$probe_hex/data
upload_blob "$probe" || note "the probe blob was not accepted"
check "a blob no manifest names is in the registry's storage" test -f "$probe_blob"

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
check "no folder of the storage class's volumes is left ($VOLUMES_DIR)" test ! -e "$VOLUMES_DIR"
check "no mount under $CLUSTER_DIR is left" test "$(awk -v d="$CLUSTER_DIR/" 'index($5, d) == 1' /proc/self/mountinfo | wc -l)" == 0
# A node agent of an older checkout makes and removes its own (dankiN-...) meanwhile: not ours.
new_netns() { ip netns list 2>/dev/null | awk '{print $1}' | sort | comm -13 <(echo "$NETNS_BEFORE") - | grep -v '^danki[0-9]*-'; }
check "no network namespace is left in /var/run/netns ($(new_netns | tr '\n' ' '))" test -z "$(new_netns)"
check "no bridge or veth of the instance is left" test "$(ip -o link show 2>/dev/null | grep -cE ": (dkr$I-|danki$I:)")" == 0
check "no net agent is left" test -z "$(pgrep -f -- "--state-file=$NET_STATE")"
check "no nftables table ip $NET_TABLE is left in the host" test -z "$(nft list tables 2>/dev/null | grep -x "table ip $NET_TABLE")"
check "no net agent state is left" test ! -e "$(dirname "$NET_STATE")"
check "the registry is stopped: $REGISTRY_ADDR refuses, no pid file" \
  bash -c "! curl -s --max-time 1 http://$REGISTRY_ADDR/v2/ && test ! -e $PIDS_DIR/registry.pid"
stopped_dns() { ! healthy coredns && test ! -e "$PIDS_DIR/coredns.pid"; }
check "CoreDNS is stopped: its readiness port refuses, no pid file" stopped_dns
tag_link=$REGISTRY_DATA/docker/registry/v2/repositories/${JRE_IMAGE#localhost/}
tag_link=${tag_link%:*}/_manifests/tags/${JRE_IMAGE##*:}/current/link
check "the registry's storage stays with its tags ($JRE_IMAGE)" test -f "$tag_link"
check "  ... garbage-collected: the blob no manifest names is gone" test ! -e "$probe_blob"
check "no cgroup of the instance is left" test "$(find "$CGROUP_FS" -maxdepth 2 -name "$INSTANCE_CGROUP" | wc -l)" == 0
if compgen -G "$HOST_STATE_DIR/owners/*" >/dev/null; then
  note "other real-kubelet nodes run ($(ls "$HOST_STATE_DIR/owners")): the sysctls stay as the kubelet set them"
else
  after=$(for k in "${HOST_SYSCTLS[@]}"; do echo "$k=$(sysctl -n "$k")"; done)
  check "the host sysctls are as before ($(tr '\n' ' ' <<<"$SYSCTLS_BEFORE"))" test "$after" == "$SYSCTLS_BEFORE"
fi
