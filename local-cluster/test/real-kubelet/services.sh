# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, JRE_IMAGE, NET_TABLE, helpers from lib.sh)
# Services, routed by the net agent's own table in the host (ip danki-rI, traffic from the
# instance's bridges only): a pod reads the API server with its service-account token through
# https://$KUBERNETES_SERVICE_HOST (10.96.0.1); pods reach pods through a ClusterIP from the same
# node and from other nodes, across two endpoints; a pod reaches itself through its own Service
# (hairpin); a Service without endpoints is refused at once.

has_table() { nft list table ip "$NET_TABLE" >/dev/null 2>&1; }
check "the net agent's table ip $NET_TABLE is in the host" has_table

# -- the API server through the kubernetes Service, as an in-cluster client reaches it
work=$(mktemp -d)
javac --release 17 -d "$work" "$HERE/real-kubelet/ApiRead.java"
"${K[@]}" -n "$NS" create configmap api-read --from-file="$work/ApiRead.class" >/dev/null
rm -rf "$work"
cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: api-read}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n1}
  restartPolicy: Never
  securityContext: {runAsUser: 65532, runAsGroup: 65532}
  containers:
  - name: app
    image: $JRE_IMAGE
    command: [java, -cp, /app, ApiRead]
    volumeMounts: [{name: app, mountPath: /app}]
  volumes: [{name: app, configMap: {name: api-read}}]
EOF2
finished() { [[ $(pod_field "$1" '{.status.phase}') == Succeeded || $(pod_field "$1" '{.status.phase}') == Failed ]]; }
until_true 90 finished api-read || note "api-read did not finish within 90 s"
logged() { out=$("${K[@]}" -n "$NS" logs api-read 2>&1 | grep -m1 '^https://'); [[ -n $out ]]; }
until_true 10 logged || note "api-read logged nothing within 10 s"
note "api-read: ${out:0:160}"
check "a pod's KUBERNETES_SERVICE_HOST is the Service IP 10.96.0.1" grep -q '^https://10.96.0.1:443/' <<<"$out"
check "through it, with its token, the API server says it is system:serviceaccount:$NS:default" \
  grep -q " 201 .*\"username\":\"system:serviceaccount:$NS:default\"" <<<"$out"

# -- pod to pod through a ClusterIP: echo-a on n1, echo-b on n3; clients on n1 and on n2 (jre)
for spec in a:1 b:3; do
  web_pod "echo-${spec%:*}" "${spec#*:}" app=echo
done
cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: client}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n1}
  terminationGracePeriodSeconds: 1
  securityContext: {runAsUser: 65532, runAsGroup: 65532}
  containers:
  - {name: app, image: $JRE_IMAGE, command: [sleep, '3600']}
---
apiVersion: v1
kind: Service
metadata: {name: echo}
spec:
  selector: {app: echo}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: v1
kind: Service
metadata: {name: empty}
spec:
  selector: {app: nothing}
  ports: [{port: 80}]
EOF2
pod_ready() { [[ $(pod_field "$1" '{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
for p in echo-a echo-b client; do until_true 60 pod_ready "$p" || note "$p not Ready within 60 s"; done
echo_ip=$("${K[@]}" -n "$NS" get service echo -o jsonpath='{.spec.clusterIP}')
empty_ip=$("${K[@]}" -n "$NS" get service empty -o jsonpath='{.spec.clusterIP}')
# fetch pod address: the body of GET / from inside pod (busybox's static wget crashes: nc)
fetch() { "${K[@]}" -n "$NS" exec "$1" -- sh -c "printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 2 $2 80 2>&1" 2>/dev/null | tail -1; }
both_answer() { # client: within 30 requests, both endpoints answer through the ClusterIP
  local seen="" n got
  for ((n = 0; n < 30; n++)); do
    got=$(fetch "$1" "$echo_ip")
    [[ $got == echo-[ab] && " $seen " != *" $got "* ]] && seen="$seen $got"
    [[ $seen == *echo-a* && $seen == *echo-b* ]] && return 0
  done
  note "$1 saw only:${seen:- nothing} (last: $got)"
  return 1
}
t0=$(now_ms)
routed() { [[ $(fetch client "$echo_ip") == echo-[ab] ]]; }
if until_true 20 routed; then
  pass "a pod on n1 reaches the Service echo ($echo_ip:80) ($(secs $(($(now_ms) - t0))) s after both were Ready)"
else
  fail "a pod on n1 reaches the Service echo ($echo_ip:80) within 20 s (got: $(fetch client "$echo_ip"))"
fi
check "from n1 both endpoints answer: echo-a on the same node, echo-b on n3" both_answer client
check "from n2 (pod jre) both endpoints answer" both_answer jre
self=$(fetch echo-a "$echo_ip")
hairpin() { # echo-a's requests through its own Service: one of them reaches echo-a itself
  local n
  for ((n = 0; n < 20; n++)); do [[ $(fetch echo-a "$echo_ip") == echo-a ]] && return 0; done
  return 1
}
check "echo-a reaches itself through its own Service (hairpin, masqueraded) (first: $self)" hairpin
t0=$(now_ms)
refused=$(fetch client "$empty_ip")
ms=$(($(now_ms) - t0))
refused_at_once() { ((ms < 1900)) && [[ $refused == *refused* ]]; }
check "a Service without endpoints ($empty_ip) is refused at once ($(secs "$ms") s: $refused)" refused_at_once
"${K[@]}" -n "$NS" delete pod echo-b --wait=false >/dev/null
only_a() { local n; for ((n = 0; n < 10; n++)); do [[ $(fetch client "$echo_ip") == echo-a ]] || return 1; done; }
t0=$(now_ms)
if until_true 20 only_a; then
  pass "echo-b deleted: 10 requests in a row reach echo-a only ($(secs $(($(now_ms) - t0))) s)"
else
  fail "echo-b deleted: the Service leads to echo-a only within 20 s"
fi
