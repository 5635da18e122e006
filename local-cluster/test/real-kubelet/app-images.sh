# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, LC_HOME, helpers from lib.sh)
# danki's application and test images, built from their Dockerfile stages on the local bases (make
# images): each matches its stage; the sample service's JVM starts on a 0.5-CPU node as the image's
# user, and spring-shop's Spring Boot on another answers its readiness probe; the k6 runner's k6
# runs; http-fetch on one node fetches http-status on another. Every one was pulled from the
# instance's registry: its imageID is the registry's digest for its tag. An image the registry lacks
# is ErrImagePull within seconds, and so is one of any other registry. Skipped, with a note, when
# they were not built.

if [[ ! -f $IMAGES_DIR/sample-service.tar || ! -f $IMAGES_DIR/spring-shop.tar || ! -f $IMAGES_DIR/http-fetch.tar ]]; then
  note "application images not built (make images): not checked"
  return 0
fi
check "the application and test images match their Dockerfile stages (user, env, entrypoint, workdir, files)" \
  "$LC_HOME/kubelet/node-images.sh" check

# The sample service by the chart's appVersion tag (registry/push.sh tags danki's images with it too),
# as a user's manifest names it; the others by :dev.
app_version=$(chart_tag)
cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: sample}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n1}
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: danki/sample-service:$app_version
    readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}
    resources: {requests: {cpu: 250m, memory: 256Mi}, limits: {memory: 512Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: shop}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n2}
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: danki/spring-shop:dev
    readinessProbe: {httpGet: {path: /actuator/health/readiness, port: 8080}, periodSeconds: 1}
    resources: {requests: {cpu: 250m, memory: 256Mi}, limits: {memory: 512Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: status}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n3}
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: danki/http-status:dev
    env: [{name: STATUS, value: "203"}]
    readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: fetch}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n2}
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: danki/http-fetch:dev
    readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: k6}
spec:
  restartPolicy: Never
  containers:
  - name: k6
    image: danki/k6-runner:dev
    command: [/usr/local/bin/k6, version]
EOF2
t0=$(now_ms)
pod_ready() { [[ $(pod_field "$1" '{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
if until_true 150 pod_ready sample; then
  pass "danki/sample-service:$app_version (the chart's appVersion) is Ready on a 0.5-CPU node ($(secs $(($(now_ms) - t0))) s from apply)"
else
  fail "danki/sample-service:$app_version is Ready within 150 s"
  "${K[@]}" -n "$NS" logs sample --tail=20 2>&1 | sed 's/^/      /'
fi
check "the sample service runs as the image's user 65532" test "$("${K[@]}" -n "$NS" exec sample -- id -u 2>&1)" == 65532
if until_true 150 pod_ready shop; then
  pass "danki/spring-shop:dev is Ready (Spring Boot's readiness probe) on a 0.5-CPU node ($(secs $(($(now_ms) - t0))) s from apply)"
else
  fail "danki/spring-shop:dev is Ready within 150 s of the sample service"
  "${K[@]}" -n "$NS" logs shop --tail=20 2>&1 | sed 's/^/      /'
fi
shop_ip=$(pod_field shop '{.status.podIP}')
check "  ... it answers GET /api/products/17 from the host" \
  grep -q '"id":17' <<<"$(curl -s --max-time 5 "http://$shop_ip:8080/api/products/17")"
pod_done() { [[ $(pod_field k6 '{.status.phase}') == Succeeded ]]; }
until_true 60 pod_done
k6_version=$("${K[@]}" -n "$NS" logs k6 2>/dev/null | head -1)
check "danki/k6-runner:dev runs its k6 ($k6_version)" grep -q "^k6 ${K6_VERSION:-v}" <<<"$k6_version"
check "danki/http-status:dev is Ready and answers 203 from the host" until_true 60 pod_ready status
status_ip=$(pod_field status '{.status.podIP}')
check "  ... curl http://$status_ip:8080/ gives 203" test "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://$status_ip:8080/")" == 203
check "danki/http-fetch:dev is Ready" until_true 60 pod_ready fetch
fetched=$(curl -s --max-time 5 "http://$(pod_field fetch '{.status.podIP}'):8080/?url=http://$status_ip:8080/")
check "http-fetch on danki$I-n2 fetches http-status on danki$I-n3 ($fetched)" test "$fetched" == 203

check "each pod's imageID is the digest the registry has for its tag" pulled_from_registry sample shop status fetch k6

# imagePullPolicy: Always asks the registry again, on a node that has the image (node 3 runs status).
manifest_requests() { grep -c "/v2/danki/http-status/manifests/dev" "$LOGS/registry.log"; }
before=$(manifest_requests)
"${K[@]}" -n "$NS" run always --image=danki/http-status:dev --image-pull-policy=Always --restart=Never \
  --overrides="{\"spec\":{\"nodeSelector\":{\"kubernetes.io/hostname\":\"danki$I-n3\"}}}" >/dev/null
pod_running() { [[ $(pod_field "$1" '{.status.phase}') == Running ]]; }
until_true 60 pod_running always
check "imagePullPolicy: Always on a node that has the image asks the registry again ($before -> $(manifest_requests) requests)" \
  test "$(manifest_requests)" -gt "$before"
"${K[@]}" -n "$NS" delete pod always --wait=false >/dev/null 2>&1 || true

# pull_failed pod text: the pod's container waits with ErrImagePull or ImagePullBackOff and a message
# containing text (both left in pull_reason and pull_message)
pull_failed() {
  pull_reason=$(pod_field "$1" '{.status.containerStatuses[0].state.waiting.reason}')
  pull_message=$(pod_field "$1" '{.status.containerStatuses[0].state.waiting.message}')
  [[ $pull_reason == ErrImagePull || $pull_reason == ImagePullBackOff ]] && [[ $pull_message == *"$2"* ]]
}
# pull_fails pod text seconds: pull_failed within the seconds; notes how soon
pull_fails() {
  local t0
  t0=$(now_ms)
  until_true "$3" pull_failed "$1" "$2" || { note "$1: ${pull_reason:-no reason} ${pull_message:-}"; return 1; }
  note "$1: $pull_reason after $(secs $(($(now_ms) - t0))) s: $pull_message"
}
# An image that was never built: the registry answers 404 and the kubelet says so at once. Another
# registry is never reached: its pull goes to the closed loopback proxy (node-up.sh).
"${K[@]}" -n "$NS" run missing --image=danki/no-such-image:dev --restart=Never >/dev/null
check "an image the registry lacks gives ErrImagePull within 15 s, 'not found'" pull_fails missing "not found" 15
check "  ... the registry was asked for it (its log)" grep -q "/v2/danki/no-such-image/manifests/dev" "$LOGS/registry.log"
"${K[@]}" -n "$NS" run elsewhere --image=registry.invalid/danki/sample-service:dev --restart=Never >/dev/null
check "an image of any other registry gives ErrImagePull within 15 s, refused on loopback (no lookup)" \
  pull_fails elsewhere "127.0.0.1:9" 15
"${K[@]}" -n "$NS" delete pod missing elsewhere --wait=false >/dev/null 2>&1 || true
