# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# Item 3: pods with a readiness gate stay not-ready (no ready endpoint, rollout stuck) until the
# test patches the gate True; then they join, and the agent keeps the condition it does not own.

GATE=danki.dev/acceptance-gate
cat <<EOF | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: apps/v1
kind: Deployment
metadata: {name: gated}
spec:
  replicas: 2
  selector: {matchLabels: {app: gated}}
  template:
    metadata: {labels: {app: gated}}
    spec:
      terminationGracePeriodSeconds: 5
      readinessGates: [{conditionType: "$GATE"}]
      containers:
      - name: app
        image: danki/http-status:dev
        ports: [{containerPort: 8080, name: http}]
        readinessProbe: {tcpSocket: {port: http}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: gated}
spec:
  selector: {app: gated}
  ports: [{port: 80, targetPort: http}]
EOF
containers_ready_count() {
  "${K[@]}" -n "$NS" get pods -l app=gated \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="ContainersReady")].status}{"\n"}{end}' | grep -c True
}
two_containers_ready() { [[ $(containers_ready_count) == 2 ]]; }
check "3. gated pods run and their containers become ready" until_true 60 two_containers_ready
sleep 2 # give the endpoint and deployment controllers time to (wrongly) move on
ready_pods() { "${K[@]}" -n "$NS" get pods -l app=gated -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True; }
check "3. with the gate missing, no gated pod is Ready" test "$(ready_pods)" == 0
check "3. the gated Service's EndpointSlice has no ready endpoint" test -z "$(slice_ready_ips gated)"
rollout_stuck() { ! "${K[@]}" -n "$NS" rollout status deploy/gated --timeout=3s >/dev/null 2>&1; }
check "3. the gated rollout does not progress (rollout status times out)" rollout_stuck
reason=$("${K[@]}" -n "$NS" get pods -l app=gated -o jsonpath='{.items[0].status.conditions[?(@.type=="Ready")].reason}')
check "3. Ready says why: reason ReadinessGatesNotReady (got $reason)" test "$reason" == ReadinessGatesNotReady
mapfile -t GATED < <("${K[@]}" -n "$NS" get pods -l app=gated -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
t=$(now_ms)
for p in "${GATED[@]}"; do
  "${K[@]}" -n "$NS" patch pod "$p" --subresource=status --type=strategic \
    -p "{\"status\":{\"conditions\":[{\"type\":\"$GATE\",\"status\":\"True\",\"lastTransitionTime\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"}]}}" >/dev/null
done
two_ready() { [[ $(ready_pods) == 2 ]]; }
check "3. after the test patches the gate True, both pods turn Ready" until_true 20 two_ready
note "gate True to both pods Ready: $(secs $(($(now_ms) - t))) s"
check "3. then the gated rollout completes" "${K[@]}" -n "$NS" rollout status deploy/gated --timeout=30s
gated_in_slice() { [[ $(slice_ready_ips gated | wc -l) == 2 ]]; }
check "3. and both pods are ready endpoints of the gated Service" until_true 30 gated_in_slice
# The agent re-checks status every 15 s and on every change (writing only what changed); the gate
# must survive its writes.
sleep 1
gate_kept() { [[ $("${K[@]}" -n "$NS" get pod "${GATED[0]}" -o jsonpath="{.status.conditions[?(@.type==\"$GATE\")].status}") == True ]]; }
check "3. the agent keeps the gate condition it does not own" gate_kept
