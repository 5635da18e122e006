# shellcheck shell=bash disable=SC2154,SC2034 # sourced by acceptance.sh (K, NS, helpers from lib.sh); QUIET_* are for status-writes.sh
# Item 2: two replicas of http-status get distinct 198.18.x.x IPs, answer curl from the host,
# and are both ready endpoints of their Service's EndpointSlice. Also starts the quiet pod that
# status-writes watches.

cat <<EOF | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: quiet}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - {name: app, image: danki/http-status:dev, readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 5
      containers:
      - name: app
        image: danki/http-status:dev
        env:
        - {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
        - {name: PORT, value: "8080"}
        ports: [{containerPort: 8080, name: http}]
        readinessProbe: {httpGet: {path: /ready, port: http}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
EOF
t=$(now_ms)
check "2. deployment web (2 replicas of danki/http-status:dev) rolls out within 60 s" \
  "${K[@]}" -n "$NS" rollout status deploy/web --timeout=60s
note "http-status pods: apply to rollout complete $(secs $(($(now_ms) - t))) s"
mapfile -t IPS < <("${K[@]}" -n "$NS" get pods -l app=web -o jsonpath='{range .items[*]}{.status.podIP}{"\n"}{end}')
note "pod IPs: ${IPS[*]}"
distinct_ips() { ((${#IPS[@]} == 2)) && [[ ${IPS[0]} != "${IPS[1]}" ]] && [[ ${IPS[0]} == 198.18.* && ${IPS[1]} == 198.18.* ]]; }
check "2. the two pods have distinct 198.18.x.x IPs" distinct_ips
for ip in "${IPS[@]}"; do
  body=$(curl -s --max-time 3 "http://$ip:8080/")
  check "2. curl http://$ip:8080/ answers 200 from its pod ('${body%$'\n'}')" grep -q "^200 from web-" <<<"$body"
done
slice_ready_ips() { # service -> sorted ready endpoint addresses
  "${K[@]}" -n "$NS" get endpointslices -l "kubernetes.io/service-name=$1" \
    -o jsonpath='{range .items[*].endpoints[?(@.conditions.ready==true)]}{.addresses[0]}{"\n"}{end}' | sort
}
both_in_slice() { [[ $(slice_ready_ips web) == "$(printf '%s\n' "${IPS[@]}" | sort)" ]]; }
check "2. the Service's EndpointSlice lists both pod IPs as ready" until_true 30 both_in_slice
# status-writes (later) checks that the agent leaves this quiet pod's status alone meanwhile
quiet_ready() { [[ $(pod_field quiet '{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
until_true 30 quiet_ready
QUIET_RV=$(pod_field quiet '{.metadata.resourceVersion}')
QUIET_SINCE=$(now_ms)
