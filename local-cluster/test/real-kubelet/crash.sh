# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, PIDS_DIR, node_env, helpers from lib.sh)
# Leaves work for cluster-down on both of its paths: the kubelets and containerds of nodes 1 and 2
# die by SIGKILL under running pods (secret tmpfs, emptyDir, rootfs mounts, shims left behind),
# while node 3 keeps a running pod for the graceful path (its kubelet stops it through the API).
# The net agent dies by SIGKILL too: its table stays in the host for node-down to remove, and node
# 3's CNI DEL finds no agent (which must not keep the pod from going).

"${K[@]}" -n "$NS" create secret generic crash --from-literal=key=value >/dev/null
for n in 1 2 3; do
  cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: crash-$n}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n$n}
  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: $JRE_IMAGE
    command: [sh, -c, 'trap "" TERM; exec sleep 3600']
    volumeMounts: [{name: secret, mountPath: /secret}, {name: scratch, mountPath: /scratch}]
  volumes:
  - {name: secret, secret: {secretName: crash}}
  - {name: scratch, emptyDir: {}}
EOF2
done
all_ready() { [[ $("${K[@]}" -n "$NS" get pods -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True) == 3 ]]; }
check "a pod with a secret and an emptyDir runs on each node" until_true 60 all_ready
for n in 1 2; do
  node_env "$n"
  kill -KILL "$(pid_of "$KUBELET_COMPONENT")" "$(pid_of "$CONTAINERD_COMPONENT")"
done
note "SIGKILL to the kubelets and containerds of danki$I-n1 and danki$I-n2; $(awk -v d="$NODES_DIR/" 'index($5, d) == 1' /proc/self/mountinfo | wc -l) mounts under the nodes' folders"
kill -KILL "$(pid_of "$NET_AGENT")" 2>/dev/null
note "SIGKILL to the net agent; its table ip $NET_TABLE stays: $(nft list tables | grep -cx "table ip $NET_TABLE")"
