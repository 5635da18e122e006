# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, JRE_IMAGE, helpers from lib.sh)
# A node's memory budget (NODE_MEMORY=1Gi, plus the kubelet's 100Mi eviction threshold) holds for
# pods without limits: a 600 MB buffer fits, a 1300 MB one is OOM-killed.

finished() { [[ $(pod_field "$1" '{.status.phase}') == @(Succeeded|Failed) ]]; }
# One after the other: side by side on the node, the OOM killer picks the larger of the two at the
# moment the limit is hit, which is 600 MB "fits" while "hog" is still below that (seen once).
for r in "fits 600M" "hog 1300M"; do
  read -r name size <<<"$r"
  cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: $name}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n2}
  restartPolicy: Never
  containers:
  - {name: dd, image: $JRE_IMAGE, command: [dd, if=/dev/zero, of=/dev/null, bs=$size, count=1]}
EOF2
  until_true 60 finished "$name"
done
check "a pod with a 600 MB buffer fits in the node's 1Gi" test "$(pod_field fits '{.status.phase}')" == Succeeded
check "a pod with a 1300 MB buffer is OOM-killed" \
  test "$(pod_field hog '{.status.phase}/{.status.containerStatuses[0].state.terminated.reason}')" == Failed/OOMKilled
# The OOM kill puts the node under memory pressure, and the kubelet taints it NoSchedule until the
# pressure has been gone evictionPressureTransitionPeriod (10 s here; the default 5 min once held
# the next parts' pods Pending on this node): later parts must find it schedulable again.
tainted() { [[ $("${K[@]}" get node "danki$I-n2" -o jsonpath='{.spec.taints}') == *memory-pressure* ]]; }
untainted() { ! tainted; }
t0=$(now_ms)
# the kubelet's eviction manager looks every 10 s: give it the chance to taint the node first
if until_true 20 tainted; then
  note "danki$I-n2 tainted memory-pressure $(secs $(($(now_ms) - t0))) s after the OOM kill"
else
  note "danki$I-n2 was not tainted within 20 s of the OOM kill"
fi
if until_true 90 untainted; then
  pass "danki$I-n2 takes pods again after the OOM kill ($(secs $(($(now_ms) - t0))) s)"
else
  fail "danki$I-n2 takes pods again within 90 s of the OOM kill ($("${K[@]}" get node "danki$I-n2" -o jsonpath='{.spec.taints}'))"
fi
