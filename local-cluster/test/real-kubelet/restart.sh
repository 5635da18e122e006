# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, LC_HOME, helpers from lib.sh)
# What the fault suite will do to a node: containerd killed (SIGKILL) and the kubelet stopped
# (SIGTERM), each started again by cluster-restart with its node-up command line. The gated pod
# on node 3 (readiness-gate part) keeps running, Ready and unrestarted; a new pod starts there.

ip=$(pod_field gated '{.status.podIP}')
for r in "KILL n3-containerd" "TERM n3-kubelet"; do
  read -r sig comp <<<"$r"
  t0=$(now_ms)
  if SIGNAL=$sig "$LC_HOME/cluster-restart.sh" "$comp" >"$CLUSTER_DIR.restart.log" 2>&1; then
    pass "SIG$sig to $comp: restarted and healthy ($(secs $(($(now_ms) - t0))) s)"
  else
    fail "SIG$sig to $comp: restarted and healthy"; tail -5 "$CLUSTER_DIR.restart.log"
  fi
  check "after $comp's restart the gated pod still answers on $ip" test "$(curl -s --max-time 3 "http://$ip:8080/")" == gated-ok
done
check "the gated pod is still Ready, its container never restarted" \
  test "$(pod_field gated '{.status.conditions[?(@.type=="Ready")].status}/{.status.containerStatuses[0].restartCount}')" == True/0
cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: after-restart}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n3}
  terminationGracePeriodSeconds: 0
  containers:
  - {name: app, image: $JRE_IMAGE, command: [sleep, '3600']}
EOF2
running() { [[ $(pod_field after-restart '{.status.phase}') == Running ]]; }
check "a new pod starts on the restarted node" until_true 60 running
