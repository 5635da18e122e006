# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, JRE_IMAGE, helpers from lib.sh)
# The real kubelet's readiness-gate handling, which danki relies on: a pod whose containers are
# ready but whose gate is missing stays Ready=False and is listed in its Service's EndpointSlice
# with ready=false; once the gate condition is patched True, the kubelet turns it Ready and the
# slice says ready=true. The pod answers HTTP on its own address from the host and from a pod on
# another node.

GATE=danki.dev/real-kubelet-gate
cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: gated, labels: {app: gated}}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n3}
  terminationGracePeriodSeconds: 2
  securityContext: {runAsUser: 65532, runAsGroup: 65532}
  readinessGates: [{conditionType: "$GATE"}]
  containers:
  - name: web
    image: $JRE_IMAGE
    command: [sh, -c, 'mkdir -p /tmp/www && echo gated-ok >/tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www']
    ports: [{containerPort: 8080, name: http}]
    readinessProbe: {httpGet: {path: /, port: http}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: gated}
spec:
  selector: {app: gated}
  ports: [{port: 80, targetPort: http}]
EOF2
cond() { pod_field gated "{.status.conditions[?(@.type==\"$1\")].status}"; }
containers_ready() { [[ $(cond ContainersReady) == True ]]; }
check "the gated pod's containers become ready" until_true 60 containers_ready
slice_ready() { # service -> "IP ready" for each endpoint of its slices
  "${K[@]}" -n "$NS" get endpointslices -l "kubernetes.io/service-name=$1" \
    -o jsonpath='{range .items[*].endpoints[*]}{.addresses[0]} {.conditions.ready}{"\n"}{end}'
}
ip=$(pod_field gated '{.status.podIP}')
listed_unready() { [[ $(slice_ready gated) == "$ip false" ]]; }
check "without the gate the pod is listed with ready=false in the EndpointSlice ($ip)" until_true 20 listed_unready
check "without the gate the pod is not Ready" test "$(cond Ready)" == False
check "the pod answers HTTP from the host on $ip" test "$(curl -s --max-time 3 "http://$ip:8080/")" == gated-ok
# Routed by the host from one node's bridge to the other's (busybox's static wget crashes: nc).
from_n2=$("${K[@]}" -n "$NS" exec jre -- sh -c "printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 3 $ip 8080" 2>&1 | tail -1)
check "a pod on danki$I-n2 reaches it on danki$I-n3 ($from_n2)" test "$from_n2" == gated-ok
sleep 2 # the kubelet syncs the pod again meanwhile; the gate must still hold it
check "2 s later it is still not Ready" test "$(cond Ready)" == False

t0=$(now_ms)
"${K[@]}" -n "$NS" patch pod gated --subresource=status --type=strategic \
  -p "{\"status\":{\"conditions\":[{\"type\":\"$GATE\",\"status\":\"True\",\"reason\":\"Test\"}]}}" >/dev/null
listed_ready() { [[ $(slice_ready gated) == "$ip true" ]]; }
if until_true 20 listed_ready; then
  pass "gate True: the EndpointSlice lists the pod ready=true ($(secs $(($(now_ms) - t0))) s after the patch)"
else
  fail "gate True: the EndpointSlice lists the pod ready=true within 20 s (got: $(slice_ready gated))"
fi
check "gate True: the pod is Ready" test "$(cond Ready)" == True
sleep 2
check "the kubelet keeps the gate condition it does not own" test "$(cond "$GATE")" == True
