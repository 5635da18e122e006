# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, JRE_IMAGE, NET_STATE, helpers from lib.sh)
# NetworkPolicy on the real kubelet: the net agent loads each pod's rules into its network
# namespace. An ingress policy admits a labelled client and refuses another, on the same node,
# directly and through the Service (whose DNAT keeps the client's address), and from another node,
# while the node itself still reaches the pod; an egress deny-all is in place at a container's very
# first instant (the CNI plugin waits for the rules); after a SIGKILL of the net agent, the
# restarted agent finds the pods again: deleting the policy then opens the pod. While the agent is
# down, a new pod's sandbox fails (no container runs unprotected); it starts once the agent is back.

for spec in web:1:app=web friend:1:access=yes stranger:1:access=no; do
  IFS=: read -r name node label <<<"$spec"
  web_pod "$name" "$node" "$label"
done
cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
EOF2
pod_ready() { [[ $(pod_field "$1" '{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
for p in web friend stranger; do until_true 60 pod_ready "$p" || note "$p not Ready within 60 s"; done
web_ip=$(pod_field web '{.status.podIP}')
svc_ip=$("${K[@]}" -n "$NS" get service web -o jsonpath='{.spec.clusterIP}')
# get pod address port: the body of GET / from inside pod, or nc's complaint
get() { "${K[@]}" -n "$NS" exec "$1" -- sh -c "printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 2 $2 $3 2>&1" 2>/dev/null | tail -1; }
reaches() { [[ $(get "$1" "$web_ip" 8080) == web ]]; }
blocked() { ! reaches "$1"; }
check "without a policy the stranger reaches web ($web_ip)" reaches stranger

t0=$(now_ms)
cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-ingress}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Ingress]
  ingress: [{from: [{podSelector: {matchLabels: {access: "yes"}}}], ports: [{port: http}]}]
EOF2
if until_true 20 blocked stranger; then
  pass "policy applied: the stranger is refused ($(secs $(($(now_ms) - t0))) s from apply, one 2 s try included)"
else
  fail "policy applied: the stranger is refused within 20 s"
fi
check "the friend (access=yes, same node) reaches web" reaches friend
check "the friend reaches web through its Service ($svc_ip:80, DNAT on the same bridge)" \
  test "$(get friend "$svc_ip" 80)" == web
check "the stranger is refused through the Service too (its address reaches web unmasqueraded)" \
  test "$(get stranger "$svc_ip" 80)" != web
check "a pod on another node without the label (jre, n2) is refused" blocked jre
check "the node still reaches web (probes: its bridge address is always admitted)" \
  test "$(curl -s --max-time 3 "http://$web_ip:8080/")" == web
check "web stays Ready under the policy" pod_ready web

# -- at the container's first instant: its first act is a connection to web, allowed for the
# control pod and denied by an egress deny-all that selects the other one
cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: isolated-egress}
spec:
  podSelector: {matchLabels: {role: isolated}}
  policyTypes: [Egress]
EOF2
sleep 0.5 # the policy reaches the agent's informer (a watch event, milliseconds)
for spec in first-open:open first-isolated:isolated; do
  cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: ${spec%:*}, labels: {access: "yes", role: ${spec#*:}}}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n2}
  restartPolicy: Never
  securityContext: {runAsUser: 65532, runAsGroup: 65532}
  containers:
  - name: app
    image: $JRE_IMAGE
    command: [sh, -c, 'if printf "GET / HTTP/1.0\r\n\r\n" | nc -w 2 $web_ip 8080 | grep -q "^web$"; then echo first-act=connected; else echo first-act=blocked; fi']
EOF2
done
net_agent_healthy() { [[ $(curl -s --max-time 1 "http://127.0.0.1:$NET_AGENT_PORT/healthz") == ok ]]; }
finished() { [[ $(pod_field "$1" '{.status.phase}') == Succeeded || $(pod_field "$1" '{.status.phase}') == Failed ]]; }
for p in first-open first-isolated; do until_true 60 finished "$p" || note "$p did not finish within 60 s"; done
open_first=$("${K[@]}" -n "$NS" logs first-open 2>&1 | tail -1)
isolated_first=$("${K[@]}" -n "$NS" logs first-isolated 2>&1 | tail -1)
check "a pod no egress policy selects connects as its first act ($open_first)" test "$open_first" == first-act=connected
check "a pod an egress deny-all selects is blocked at its first act ($isolated_first)" test "$isolated_first" == first-act=blocked

# -- the net agent crashes and restarts: it finds the pods' namespaces again (its state file)
t0=$(now_ms)
if SIGNAL=KILL "$LC_HOME/cluster-restart.sh" net-agent >"$CLUSTER_DIR.net-restart.log" 2>&1; then
  pass "net agent restarted after SIGKILL, healthy ($(secs $(($(now_ms) - t0))) s)"
else
  fail "net agent restarted after SIGKILL (log: $CLUSTER_DIR.net-restart.log)"; tail -5 "$CLUSTER_DIR.net-restart.log"
fi
check "after the restart the stranger is still refused" blocked stranger
check "after the restart the friend reaches web through its Service" test "$(get friend "$svc_ip" 80)" == web
"${K[@]}" -n "$NS" delete networkpolicy web-ingress >/dev/null
t0=$(now_ms)
if until_true 20 reaches stranger; then
  pass "policy deleted after the restart: the stranger reaches web ($(secs $(($(now_ms) - t0))) s)"
else
  fail "policy deleted after the restart: the stranger reaches web within 20 s"
fi
"${K[@]}" -n "$NS" delete networkpolicy isolated-egress >/dev/null

# -- the net agent down: a new pod's sandbox fails until it is back
# shellcheck source=../../cluster-components.sh
source "$LC_HOME/cluster-components.sh"
kill -KILL "$(pid_of "$NET_AGENT")"
cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: while-down}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n2}
  terminationGracePeriodSeconds: 1
  containers:
  - {name: app, image: $JRE_IMAGE, command: [sleep, '3600']}
EOF2
sandbox_failed() { has_events while-down FailedCreatePodSandBox; }
check "while the net agent is down, a new pod's sandbox fails (FailedCreatePodSandBox)" until_true 30 sandbox_failed
check "and none of its containers ran" test -z "$(pod_field while-down '{.status.containerStatuses[*].state.running}')"
launch_component "$NET_AGENT" append
t0=$(now_ms)
check "the net agent is started again" until_true 60 net_agent_healthy
if until_true 90 pod_ready while-down; then
  pass "the pod starts once the agent is back ($(secs $(($(now_ms) - t0))) s after the agent's start, kubelet back-off included)"
else
  fail "the pod starts within 90 s of the agent's start"
fi
