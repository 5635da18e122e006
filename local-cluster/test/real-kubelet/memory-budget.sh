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
