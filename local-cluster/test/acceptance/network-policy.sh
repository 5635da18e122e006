# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# NetworkPolicies, enforced by the node agent with nftables in each pod's network namespace:
# an egress policy that allows one pod's IP (ipBlock) lets its pod reach that pod, not a third one
# nor the node's bridge address; an ingress policy (podSelector, named port) admits a matching
# client and refuses another, while the node still reaches the pod (probes); deleting a policy
# restores access. The clients are danki/http-fetch pods, asked from the host what they reach.

cat <<'YAML' | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: np-a, labels: {np: server-a}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - {name: app, image: danki/http-status:dev, ports: [{containerPort: 8080, name: http}],
     readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}}
---
apiVersion: v1
kind: Pod
metadata: {name: np-b, labels: {np: server-b}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - {name: app, image: danki/http-status:dev, readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}}
---
apiVersion: v1
kind: Pod
metadata: {name: np-client, labels: {np: client, access: granted}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - {name: app, image: danki/http-fetch:dev, env: [{name: TIMEOUT, value: "0.5"}],
     readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}}
---
apiVersion: v1
kind: Pod
metadata: {name: np-stranger, labels: {np: stranger}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - {name: app, image: danki/http-fetch:dev, env: [{name: TIMEOUT, value: "0.5"}],
     readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}}
YAML
check "policy: the two servers and two clients become Ready" \
  "${K[@]}" -n "$NS" wait pod np-a np-b np-client np-stranger --for=condition=Ready --timeout=60s >/dev/null
ip_of() { pod_field "$1" '{.status.podIP}'; }
A=$(ip_of np-a) B=$(ip_of np-b) CLIENT=$(ip_of np-client) STRANGER=$(ip_of np-stranger)
# reach client url: what the client pod gets when it fetches url
reach() { curl -s --max-time 5 "http://$1:8080/?url=$2"; }
# reaches client url answer: the client pod gets answer, checked again for up to 10 s (rules load in the background)
reaches() { local got n; for ((n = 0; n < 20; n++)); do got=$(reach "$1" "$2"); [[ $got == "$3" ]] && return 0; sleep 0.5; done; echo "      got: $got" >&2; return 1; }
NODE_URL=http://$BRIDGE_IP:$API_PORT/ # the API server answers plain HTTP with 400
open_to_all() { [[ $(reach "$CLIENT" "http://$A:8080/")/$(reach "$CLIENT" "http://$B:8080/")/$(reach "$CLIENT" "$NODE_URL") == 200/200/400 ]]; }
check "policy: with no policy the client reaches both servers and the node" open_to_all

cat <<YAML | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: client-egress}
spec:
  podSelector: {matchLabels: {np: client}}
  policyTypes: [Egress]
  egress: [{to: [{ipBlock: {cidr: $A/32}}]}]
YAML
check "policy: egress allowing only np-a's IP: the client no longer reaches np-b" reaches "$CLIENT" "http://$B:8080/" timeout
check "policy: it still reaches np-a" reaches "$CLIENT" "http://$A:8080/" 200
check "policy: it does not reach the node's bridge address either" reaches "$CLIENT" "$NODE_URL" timeout
check "policy: the rules live in the pod's own namespace, not on the host" bash -c '! nft list table inet danki >/dev/null 2>&1'
"${K[@]}" -n "$NS" delete networkpolicy client-egress >/dev/null
check "policy: deleting the egress policy gives np-b back" reaches "$CLIENT" "http://$B:8080/" 200

cat <<'YAML' | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: a-ingress}
spec:
  podSelector: {matchLabels: {np: server-a}}
  policyTypes: [Ingress]
  ingress: [{from: [{podSelector: {matchLabels: {access: granted}}}], ports: [{port: http}]}]
YAML
check "policy: ingress from access=granted pods on port http: np-stranger is refused" reaches "$STRANGER" "http://$A:8080/" timeout
check "policy: np-client (access=granted) is admitted" reaches "$CLIENT" "http://$A:8080/" 200
node_reaches_a() { [[ $(curl -s --max-time 3 "http://$A:8080/") == 200* ]]; }
check "policy: the node still reaches np-a (curl from the host)" node_reaches_a
a_ready() { [[ $(pod_field np-a '{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
check "policy: and its readiness probe keeps passing" a_ready
"${K[@]}" -n "$NS" delete networkpolicy a-ingress >/dev/null
check "policy: deleting the ingress policy admits np-stranger again" reaches "$STRANGER" "http://$A:8080/" 200
"${K[@]}" -n "$NS" delete pod np-a np-b np-client np-stranger --wait=false >/dev/null
note "np pods: a=$A b=$B client=$CLIENT stranger=$STRANGER"
