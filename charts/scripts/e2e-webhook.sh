#!/usr/bin/env bash
# Cluster test of the chart's webhook mode (gateInjection=webhook, issue 14 "opt in without a
# rollout") on the running local cluster (make cluster-up). Answers: does the admission webhook, as
# the chart installs it, gate new pods of opted-in Deployments without ever rolling them, stay out
# of the way when danki is down (and say so afterwards), survive its own certificate renewals, and
# switch to template mode and back as docs/install.md says?
#
# One helm 3 install in namespaces of its own (danki-wh; apps in danki-wh-app), deleted at the end:
#   1. No rollout on opt-in: a running 2-replica sample-service Deployment with a Service is
#      annotated: one ReplicaSet still, same pod UIDs and restart counts, same pod template. (Not the
#      same generation: the API server bumps a Deployment's generation on annotation changes too,
#      because the Deployment controller copies annotations to its ReplicaSets.)
#   2. Scale-up to 4: each new pod has the gate and the label, gets a WarmupRun and its gate True
#      (WarmedUp), then Ready; the Service's EndpointSlices, polled every 0.5 s, never show a new pod
#      ready before its gate is True.
#   3. Opt-out while a new pod is gated releases it (Ready, no new ReplicaSet); the next pod has no gate.
#   4. Webhook unreachable (operator scaled to 0): pod creation is not held up and the pod has no
#      gate; once danki is back, danki_webhook_ungated_pods_total >= 1 and a PodNotGated Event, and
#      (webhook.ungatedPods replace, the default) the pod is evicted and its replacement gated.
#   5. Certificate renewal (certValidity 60s, installed so) while pods are created one after the
#      other: the serial changes in the Secret and on every replica, every pod created has the gate,
#      no FailedCreate, no new PodNotGated, the ungated metric unchanged.
#   6. webhook -> template -> webhook: the MutatingWebhookConfiguration goes and comes back; in
#      template mode an opted-in Deployment rolls once with the gate in its template; back in webhook
#      mode (with webhook.stripTemplateGates) that template keeps its gate (no rollout) until the
#      Deployment opts out (one rollout).
#   7. The CPU boost from admission (cpuBoost.enabled): a pod is created at its boost with its declared
#      CPU on it, warmed, and restored to it before its gate; then the leader is killed while a boosted
#      pod's warm-up runs, and the new leader still restores the pod's declared CPU before its gate.
#
# Env: KUBECTL, HELM3 (default: bin/), KUBECONFIG (default .cluster/admin.kubeconfig),
#      IMAGE_TAG (default dev), E2E_WEBHOOK_TIMEOUT (s, default 180),
#      E2E_WEBHOOK_PHASES (default all: the phase functions to run, e.g. "phase_boost_at_admission").
# Ends with 'N passed, N failed'; exits 1 on any failure.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
E2E_NAME=e2e-webhook
# shellcheck source=charts/scripts/e2e-lib.sh
source "$REPO/charts/scripts/e2e-lib.sh"
KUBECTL="${KUBECTL:-$REPO/bin/kubectl}"
HELM3="${HELM3:-$REPO/bin/helm3}"
export KUBECONFIG="${KUBECONFIG:-$REPO/.cluster/admin.kubeconfig}"
IMAGE_TAG="${IMAGE_TAG:-dev}"
TIMEOUT="${E2E_WEBHOOK_TIMEOUT:-180}"
CHART="$REPO/charts/danki"
REL=danki-wh
NS=danki-wh
APP=danki-wh-app
LEASE=danki-operator
GATE=danki.dev/warmed
# Webhook timeout (values.yaml) plus what a loaded 2-core machine adds to a pod create.
CREATE_LIMIT=8
# Small warm-ups: this test is about where the gate comes from, not warm-up quality.
PLAN_ANNOTATIONS=(danki.dev/requests=40 danki.dev/rate=40 danki.dev/min-warmup-requests=0 danki.dev/max-warmup-requests=200)
WORK=$(mktemp -d)

ka() { "$KUBECTL" -n "$APP" "$@"; }
now_ms() { date +%s%3N; }

preflight() {
  [[ -x $KUBECTL ]] || die "$KUBECTL missing; run 'make tool-kube'"
  [[ -x $HELM3 ]] || die "$HELM3 missing; run 'make tool-helm'"
  [[ -f $KUBECONFIG ]] || die "$KUBECONFIG missing; start the local cluster with 'make cluster-up'"
  kc get --raw /readyz >/dev/null 2>&1 || die "the cluster at $KUBECONFIG does not answer; run 'make cluster-up'"
  [[ -f $REPO/operator/target/operator-all.jar ]] || die "operator jar missing; run 'make build'"
  command -v openssl >/dev/null || die "openssl missing"
  command -v curl >/dev/null || die "curl missing"
}

# --- the apps --------------------------------------------------------------------------------------

sample_app() { # NAME REPLICAS: the sample service (a JVM) with a Service, not opted in
  ka apply -f - >/dev/null <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
        - name: app
          image: danki/sample-service:$IMAGE_TAG
          env: [{name: PORT, value: "8080"}]
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /readyz, port: 8080}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: $1}
spec:
  selector: {app: $1}
  ports: [{port: 8080, targetPort: 8080}]
EOF
}

# light_app NAME [BOOST LIMIT]: a small opted-in Deployment (a Python process), for the many pods of 4-7;
# with BOOST, its container's CPU limit is LIMIT and danki.dev/warmup-cpu asks for BOOST (`default`: the
# annotation is left out, for the chart's default boost)
light_app() {
  local boost="" resources=""
  if (($# > 1)); then
    # quoted: YAML reads a bare off as false, which is no annotation value
    [[ $2 == default ]] || boost="danki.dev/warmup-cpu: \"$2\""
    resources="resources: {requests: {cpu: 50m}, limits: {cpu: $3}}"
  fi
  ka apply -f - >/dev/null <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  annotations:
    danki.dev/warmup: enabled
    $boost
    danki.dev/requests: "40"
    danki.dev/rate: "40"
    danki.dev/min-warmup-requests: "0"
    danki.dev/max-warmup-requests: "200"
spec:
  replicas: 1
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
        - name: http
          image: danki/http-status:$IMAGE_TAG
          env: [{name: PORT, value: "8080"}]
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /, port: http}, periodSeconds: 1}
          $resources
EOF
}

# live_pods APP: "name uid restarts" of APP's pods that are not being deleted, sorted
live_pods() {
  ka get pods -l "app=$1" --no-headers \
    -o custom-columns='NAME:.metadata.name,UID:.metadata.uid,RESTARTS:.status.containerStatuses[*].restartCount,DELETED:.metadata.deletionTimestamp' \
    | awk '$4 == "<none>" { print $1, $2, $3 }' | sort
}
pod_names() { live_pods "$1" | cut -d' ' -f1; }
# new_pod APP KNOWN: the one live pod of APP whose name is not in the list KNOWN
new_pod() { comm -23 <(pod_names "$1") <(sort <<<"$2") | head -1; }
replicasets() { ka get rs -l "app=$1" -o name | sort; }
rs_count_is() { [[ $(replicasets "$1" | grep -c .) == "$2" ]]; }
pod_template() { ka get deploy "$1" -o jsonpath='{.spec.template}'; }
ready_replicas_are() { [[ $(ka get deploy "$1" -o jsonpath='{.status.readyReplicas}') == "$2" ]]; }

pod_gates() { ka get pod "$1" -o jsonpath='{.spec.readinessGates[*].conditionType}'; }
pod_has_gate() { [[ " $(pod_gates "$1") " == *" $GATE "* ]]; }
# all_pods_gated APP: APP has pods, and every one not being deleted carries the gate
all_pods_gated() {
  local p names
  names=$(pod_names "$1")
  [[ -n $names ]] || return 1
  for p in $names; do pod_has_gate "$p" || return 1; done
}
pod_gate_once() { [[ $(pod_gates "$1" | tr ' ' '\n' | grep -cx "$GATE") == 1 ]]; }
pod_has_label() { [[ $(ka get pod "$1" -o jsonpath='{.metadata.labels.danki\.dev/warmup}') == enabled ]]; }
pod_gate_state() { ka get pod "$1" -o jsonpath="{range .status.conditions[?(@.type==\"$GATE\")]}{.status}/{.reason}{end}"; }
pod_gate_is() { [[ $(pod_gate_state "$1") == "$2" ]]; } # POD STATUS/REASON
pod_ready() { [[ $(ka get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
pod_has_run() { ka get warmupruns "$1" -o name >/dev/null 2>&1; }
gate_time() { ka get pod "$1" -o jsonpath="{.status.conditions[?(@.type==\"$GATE\")].lastTransitionTime}"; }

template_gated() { [[ $(ka get deploy "$1" -o jsonpath='{.spec.template.spec.readinessGates[*].conditionType}') == *"$GATE"* ]]; }
template_ungated() { ! template_gated "$1"; }
rolled_out() { ka rollout status "deploy/$1" --timeout=5s; }

# --- danki -----------------------------------------------------------------------------------------

operator_pods() { kc -n "$NS" get pods -l "app.kubernetes.io/instance=$REL" -o name; }
operator_pods_gone() { [[ -z $(operator_pods) ]]; }
operator_ips() {
  kc -n "$NS" get pods -l "app.kubernetes.io/instance=$REL" \
    -o jsonpath='{range .items[?(@.status.podIP)]}{.status.podIP}{"\n"}{end}'
}
webhook_endpoints() {
  kc -n "$NS" get endpointslices -l "kubernetes.io/service-name=$REL-webhook" -o jsonpath='{.items[*].endpoints[*].addresses[*]}'
}
no_webhook_endpoints() { [[ -z $(webhook_endpoints) ]]; }
leader_ip() {
  local holder
  holder=$(kc -n "$NS" get lease "$LEASE" -o jsonpath='{.spec.holderIdentity}')
  [[ -n $holder ]] && kc -n "$NS" get pod "$holder" -o jsonpath='{.status.podIP}'
}
# ungated_total DEPLOYMENT: the leader's danki_webhook_ungated_pods_total for it (0 when absent)
ungated_total() {
  local ip
  ip=$(leader_ip) || return 1
  curl -fsS --max-time 5 "http://$ip:8080/metrics" \
    | awk -v want="namespace=\"$APP\"" -v dep="deployment=\"$1\"" \
      '/^danki_webhook_ungated_pods_total\{/ && index($0, want) && index($0, dep) { v = $2 } END { print v + 0 }'
}
ungated_at_least_one() { local v; v=$(ungated_total "$1") && awk -v v="$v" 'BEGIN { exit !(v >= 1) }'; }
# pod_not_gated_events DEPLOYMENT: the number of PodNotGated occurrences on it
pod_not_gated_events() {
  ka get events --field-selector "involvedObject.kind=Deployment,involvedObject.name=$1,reason=PodNotGated" \
    -o jsonpath='{range .items[*]}{.count}{"\n"}{end}' | awk '{ n += ($1 > 0 ? $1 : 1) } END { print n + 0 }'
}
has_pod_not_gated() { (($(pod_not_gated_events "$1") >= 1)); }
failed_creates() {
  ka get events --field-selector reason=FailedCreate -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'
}

secret_serial() {
  kc -n "$NS" get secret "$REL-webhook-tls" -o jsonpath='{.data.tls\.crt}' | base64 -d \
    | openssl x509 -noout -serial 2>/dev/null | cut -d= -f2
}
served_serial() { # IP: the serial of the certificate the webhook at IP:9443 presents
  timeout 5 openssl s_client -connect "$1:9443" -servername "$REL-webhook.$NS.svc" </dev/null 2>/dev/null \
    | openssl x509 -noout -serial 2>/dev/null | cut -d= -f2
}
# every_replica_serves SERIAL: each operator pod presents that serial
every_replica_serves() {
  local ip n=0
  for ip in $(operator_ips); do
    [[ $(served_serial "$ip") == "$1" ]] || return 1
    n=$((n + 1))
  done
  ((n >= 1))
}
# every_replica_serves_the_secret: each operator pod presents the Secret's serial as it is now (with
# certValidity 60s the Secret may be renewed while this waits: a fixed serial would then never match)
every_replica_serves_the_secret() { every_replica_serves "$(secret_serial)"; }
ca_bundle_published() {
  [[ -n $(kc get mutatingwebhookconfiguration "$REL" -o jsonpath='{.webhooks[0].clientConfig.caBundle}') ]]
}
webhook_config_gone() { ! kc get mutatingwebhookconfiguration "$REL" -o name >/dev/null 2>&1; }

helm_install() { # EXTRA-FLAGS...: install or upgrade the release, webhook mode unless told otherwise
  local crd_flags=()
  if kc get crd warmupruns.danki.dev -o name >/dev/null 2>&1; then crd_flags=(--skip-crds); fi
  "$HELM3" upgrade --install "$REL" "$CHART" --namespace "$NS" --create-namespace "${crd_flags[@]}" \
    --set "image.tag=$IMAGE_TAG" --set "leaderElection.leaseName=$LEASE" --set logging.format=text \
    --set "watchNamespaces={$APP}" --set webhook.certificates.certValidity=60s \
    --wait --timeout "${TIMEOUT}s" "$@" >/dev/null
}

diagnose() { # APP: what the pods and runs say, to tell a webhook gap from a failed warm-up
  ka get pods -l "app=$1" -o wide 2>/dev/null | sed 's/^/     /' || true
  ka get warmupruns -o jsonpath='{range .items[*]}     run {.metadata.name}: {.status.phase}{"\n"}{end}' 2>/dev/null || true
  kc -n "$NS" get pods -o wide 2>/dev/null | sed 's/^/     /' || true
}

BACKGROUND=()
cleanup() {
  local pid
  for pid in "${BACKGROUND[@]}"; do kill "$pid" 2>/dev/null || true; done
  "$HELM3" uninstall "$REL" -n "$NS" --wait --timeout 60s >/dev/null 2>&1 || true
  kc delete namespace "$NS" "$APP" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  rm -rf "$WORK"
}

# --- 2: the Service's view while new pods warm ----------------------------------------------------

# poll_slices SVC OUT STOPFILE LIMIT: every 0.5 s (for at most LIMIT s), the pods that the Service's
# EndpointSlices list as ready, each with its gate status read just after: "epoch-ms pod gate-status",
# epoch-ms being when the slices' answer came back.
poll_slices() {
  local svc=$1 out=$2 stop=$3 deadline=$((SECONDS + $4)) t ready gates name
  while ((SECONDS < deadline)) && [[ ! -e $stop ]]; do
    ready=$(ka get endpointslices -l "kubernetes.io/service-name=$svc" \
      -o jsonpath='{range .items[*].endpoints[?(@.conditions.ready==true)]}{.targetRef.name}{"\n"}{end}' 2>/dev/null || true)
    # the time the slices' answer came back: they said ready by then. Taken before the read, a read
    # that took 3 s on a loaded host (one .ci/run) put a sighting 2.3 s before the gate it followed.
    t=$(now_ms)
    if [[ -n $ready ]]; then
      gates=$(ka get pods -l "app=$svc" \
        -o jsonpath="{range .items[*]}{.metadata.name} {.status.conditions[?(@.type==\"$GATE\")].status}{\"\n\"}{end}" 2>/dev/null || true)
      while read -r name; do
        [[ -n $name ]] && echo "$t $name $(awk -v p="$name" '$1 == p { print ($2 == "" ? "none" : $2) }' <<<"$gates")"
      done <<<"$ready" >>"$out"
    fi
    sleep 0.5
  done
}

phase_opt_in_no_rollout() {
  sample_app web 2
  check "1: the sample Deployment runs 2 ready replicas before opting in" wait_for "$TIMEOUT" "2 ready" ready_replicas_are web 2
  local pods_before rs_before template_before
  pods_before=$(live_pods web); rs_before=$(replicasets web); template_before=$(pod_template web)
  ka annotate deploy web danki.dev/warmup=enabled "danki.dev/paths=GET /exams/1; GET /healthz" "${PLAN_ANNOTATIONS[@]}" >/dev/null
  # a template patch (template mode) follows an annotation within a second; give it five
  sleep 5
  check "1: there was one ReplicaSet before" same "$(wc -l <<<"$rs_before")" 1
  check "1: opting in keeps exactly that ReplicaSet" same "$(replicasets web)" "$rs_before"
  check "1: opting in keeps the same pods (UIDs) and restart counts" same "$(live_pods web)" "$pods_before"
  check "1: opting in leaves the pod template as it was" same "$(pod_template web)" "$template_before"
  check "1: the template has no gate" template_ungated web
}

phase_scale_up() {
  local known new=() pod stop="$WORK/slices.stop" log="$WORK/slices.log"
  known=$(pod_names web)
  : >"$log"
  poll_slices web "$log" "$stop" 150 &
  BACKGROUND+=($!)
  ka scale deploy web --replicas=4 >/dev/null
  wait_for 30 "2 new pods" bash -c "[[ \$(comm -23 <('$KUBECTL' -n '$APP' get pods -l app=web -o name | sed 's|pod/||' | sort) <(sort <<<'$known') | wc -l) == 2 ]]" || true
  mapfile -t new < <(comm -23 <(pod_names web) <(sort <<<"$known"))
  check "2: scaling to 4 made 2 new pods" test "${#new[@]}" -eq 2
  for pod in "${new[@]}"; do
    check "2: $pod has the readiness gate $GATE (once)" pod_gate_once "$pod"
    check "2: $pod has the label danki.dev/warmup=enabled" pod_has_label "$pod"
  done
  for pod in "${new[@]}"; do
    if wait_for "$TIMEOUT" "$pod warmed" pod_gate_is "$pod" True/WarmedUp; then pass "2: $pod warmed (gate True, WarmedUp)"
    else fail "2: $pod warmed (gate True, WarmedUp)"; diagnose web; fi
    check "2: $pod has a WarmupRun" pod_has_run "$pod"
    check "2: $pod is Ready" wait_for 30 "$pod Ready" pod_ready "$pod"
  done
  # one more poll after the last pod is Ready, so its first ready sighting is in the log
  sleep 2
  touch "$stop"
  wait "${BACKGROUND[-1]}" || true
  local early seen_ms gate_s
  early=$(awk 'NR == FNR { want[$1] = 1; next } ($2 in want) && $3 != "True"' <(printf '%s\n' "${new[@]}") "$log")
  if [[ -z $early ]]; then pass "2: no new pod was ready in the Service's EndpointSlices before its gate was True ($(wc -l <"$log") sightings)"
  else fail "2: a new pod was ready in the EndpointSlices before its gate was True:"; while read -r line; do echo "     $line"; done <<<"$early"; fi
  for pod in "${new[@]}"; do
    seen_ms=$(awk -v p="$pod" '$2 == p { print $1; exit }' "$log")
    gate_s=$(date -d "$(gate_time "$pod")" +%s 2>/dev/null || echo "")
    if [[ -n $seen_ms && -n $gate_s ]] && ((gate_s * 1000 <= seen_ms)); then
      pass "2: $pod: gate True at $gate_s s, first ready in the slice at $((seen_ms / 1000)).$((seen_ms % 1000)) s"
    else fail "2: $pod: gate True at ${gate_s:-?} s, first ready in the slice at ${seen_ms:-never} ms"; fi
  done
}

phase_opt_out() {
  local known pod rs_before later
  known=$(pod_names web); rs_before=$(replicasets web)
  ka scale deploy web --replicas=5 >/dev/null
  wait_for 20 "a fifth pod" bash -c "[[ -n \$(comm -23 <('$KUBECTL' -n '$APP' get pods -l app=web -o name | sed 's|pod/||' | sort) <(sort <<<'$known')) ]]" || true
  pod=$(new_pod web "$known")
  ka annotate deploy web danki.dev/warmup- >/dev/null
  if [[ -z $pod ]]; then fail "3: scaling to 5 made a new pod"; return; fi
  check "3: $pod had the gate when the Deployment opted out" pod_has_gate "$pod"
  if pod_gate_is "$pod" True/WarmedUp; then fail "3: $pod was warmed before the opt-out (too late to test the release)"; fi
  if wait_for 60 "$pod released" pod_gate_is "$pod" True/WarmupDisabled; then pass "3: opting out released $pod (gate True, WarmupDisabled)"
  else fail "3: opting out released $pod (gate True, WarmupDisabled)"; diagnose web; fi
  check "3: $pod is Ready" wait_for 30 "$pod Ready" pod_ready "$pod"
  check "3: opting out made no new ReplicaSet" same "$(replicasets web)" "$rs_before"
  known=$(pod_names web)
  ka scale deploy web --replicas=6 >/dev/null
  wait_for 20 "a sixth pod" bash -c "[[ -n \$(comm -23 <('$KUBECTL' -n '$APP' get pods -l app=web -o name | sed 's|pod/||' | sort) <(sort <<<'$known')) ]]" || true
  later=$(new_pod web "$known")
  if [[ -n $later ]] && ! pod_has_gate "$later" && ! pod_has_label "$later"; then
    pass "3: $later, created after the opt-out, has no gate and no label"
  else fail "3: a pod created after the opt-out (${later:-none}) has no gate and no label"; fi
  # the sample JVMs are done; free the machine for the rest
  ka scale deploy web --replicas=0 >/dev/null
}

phase_unreachable() {
  local replicas known pod t0 took
  replicas=$(kc -n "$NS" get deploy "$REL" -o jsonpath='{.spec.replicas}')
  kc -n "$NS" scale deploy "$REL" --replicas=0 >/dev/null
  check "4: the operator's pods are gone" wait_for 90 "the operator pods to stop" operator_pods_gone
  check "4: the webhook Service has no endpoints" wait_for 30 "no webhook endpoints" no_webhook_endpoints
  # a bare pod goes through the webhook too (only runners are excluded): time the create call itself
  t0=$(now_ms)
  if ka run probe --image="danki/http-status:$IMAGE_TAG" --restart=Never >/dev/null; then
    took=$(($(now_ms) - t0))
    check "4: creating a pod with the webhook down returned in $took ms (limit ${CREATE_LIMIT} s)" test "$took" -lt $((CREATE_LIMIT * 1000))
  else fail "4: creating a pod with the webhook down succeeds"; fi
  ka delete pod probe --wait=false >/dev/null 2>&1 || true
  known=$(pod_names light)
  t0=$SECONDS
  ka scale deploy light --replicas=2 >/dev/null
  wait_for "$CREATE_LIMIT" "the new light pod" bash -c "[[ -n \$(comm -23 <('$KUBECTL' -n '$APP' get pods -l app=light -o name | sed 's|pod/||' | sort) <(sort <<<'$known')) ]]" || true
  pod=$(new_pod light "$known")
  if [[ -n $pod ]]; then pass "4: the ReplicaSet created $pod within $((SECONDS - t0)) s with the webhook down"
  else fail "4: the ReplicaSet created a pod within $CREATE_LIMIT s with the webhook down"; return; fi
  check "4: $pod has no gate (admitted without the webhook)" same "$(pod_gates "$pod")" ""
  kc -n "$NS" scale deploy "$REL" --replicas="$replicas" >/dev/null
  check "4: the operator is back with $replicas replicas" \
    wait_for "$TIMEOUT" "the operator" bash -c "[[ \$('$KUBECTL' -n '$NS' get deploy '$REL' -o jsonpath='{.status.readyReplicas}') == $replicas ]]"
  check "4: within a minute the leader counts it: danki_webhook_ungated_pods_total{deployment=light} >= 1" \
    wait_for 60 "the metric" ungated_at_least_one light
  check "4: and a PodNotGated Event on the Deployment light names it" \
    wait_for 30 "the Event" bash -c "'$KUBECTL' -n '$APP' get events --field-selector involvedObject.name=light,reason=PodNotGated -o jsonpath='{.items[*].message}' | grep -qF '$pod'"
  # webhook.ungatedPods replace (the chart's default): danki evicts it, and its replacement comes
  # through the webhook with the gate
  check "4: danki evicts it (UngatedPodReplaced names it)" \
    wait_for 60 "the eviction" bash -c "'$KUBECTL' -n '$APP' get events --field-selector involvedObject.name=light,reason=UngatedPodReplaced -o jsonpath='{.items[*].message}' | grep -qF '$pod'"
  check "4: $pod is gone" wait_for 60 "$pod to go" bash -c "! '$KUBECTL' -n '$APP' get pod '$pod' >/dev/null 2>&1"
  check "4: every light pod now carries the gate" wait_for 60 "a gated replacement" all_pods_gated light
  ka scale deploy light --replicas=1 >/dev/null
  wait_for 30 "one light pod" bash -c "[[ \$('$KUBECTL' -n '$APP' get pods -l app=light -o name | wc -l) == 1 ]]" || true
}

phase_rotation() {
  local serial0 serial changed_at="" metric0 events0 leader0 watch_log="$WORK/watch.log" deadline scales=0 ungated created_after
  check "5: every replica serves the Secret's certificate" wait_for 20 "the served serial" every_replica_serves_the_secret
  serial0=$(secret_serial)
  leader0=$(leader_ip)
  metric0=$(ungated_total light)
  events0=$(pod_not_gated_events light)
  # the watch opens with an ADDED line for every pod that exists already, among them phase 4's
  # ungated pod if it is still terminating: only pods created from here on count
  local existing
  existing=$(ka get pods -l app=light -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
  # every pod the API server admits, as the watch sees it added: name, creation time, readiness gates
  # kubectl itself in the background, not ka: a function's subshell would outlive a kill of its PID
  "$KUBECTL" -n "$APP" get pods -l app=light -w --output-watch-events \
    -o jsonpath='{.type} {.object.metadata.name} {.object.metadata.creationTimestamp} {.object.spec.readinessGates[*].conditionType}{"\n"}' \
    >"$watch_log" 2>/dev/null &
  BACKGROUND+=($!)
  deadline=$((SECONDS + 150))
  while ((SECONDS < deadline)); do
    ka scale deploy light --replicas=2 >/dev/null && sleep 2
    ka scale deploy light --replicas=1 >/dev/null && sleep 1
    scales=$((scales + 1))
    serial=$(secret_serial)
    if [[ -z $changed_at && -n $serial && $serial != "$serial0" ]]; then changed_at=$(date +%s); fi
    # keep creating for 20 s after the renewal, past the other replica's next check (every 10 s)
    if [[ -n $changed_at ]] && (($(date +%s) > changed_at + 20)); then break; fi
  done
  sleep 2
  kill "${BACKGROUND[-1]}" 2>/dev/null || true
  serial=$(secret_serial)
  if [[ -n $changed_at ]]; then pass "5: the serving certificate was renewed during the run ($serial0 -> $serial)"
  else fail "5: the serving certificate was renewed within 150 s (serial still $serial0)"; fi
  check "5: every replica serves the renewed certificate (the Secret's, as it is by then)" wait_for 20 "the served serial" every_replica_serves_the_secret
  local added
  added=$(awk 'NR == FNR { if ($1 != "") old[$1] = 1; next } $1 == "ADDED" && !($2 in old)' <(printf '%s\n' "$existing") "$watch_log")
  created_after=$(awk -v t="${changed_at:-9999999999}" '{ cmd = "date -d " $3 " +%s"; cmd | getline s; close(cmd); if (s >= t) n++ } END { print n + 0 }' <<<"$added")
  ungated=$(awk -v g="$GATE" '{ found = 0; for (i = 4; i <= NF; i++) if ($i == g) found = 1; if (!found) print $2 }' <<<"$added")
  check "5: $scales scale-ups, $(grep -c . <<<"$added") pods seen added, $created_after of them after the renewal" \
    test "$created_after" -ge 3
  if [[ -z $ungated ]]; then pass "5: every pod created across the renewal has the gate"
  else fail "5: pods created without the gate: $(paste -sd' ' <<<"$ungated")"; fi
  local failed
  failed=$(failed_creates)
  if [[ -z $failed ]]; then pass "5: no FailedCreate event"; else fail "5: FailedCreate: $failed"; fi
  check "5: no new PodNotGated event ($events0 before)" same "$(pod_not_gated_events light)" "$events0"
  if [[ $(leader_ip) == "$leader0" ]]; then
    check "5: danki_webhook_ungated_pods_total{deployment=light} unchanged ($metric0)" same "$(ungated_total light)" "$metric0"
  else fail "5: the leader changed during the run (the ungated count is per leader process)"; fi
}

phase_mode_switch() {
  local rs_before
  if helm_install --set gateInjection=template; then pass "6: helm upgrade to gateInjection=template"
  else fail "6: helm upgrade to gateInjection=template"; return; fi
  check "6: template mode: the MutatingWebhookConfiguration is gone" webhook_config_gone
  check "6: template mode: the opted-in Deployment gets the gate in its template" wait_for 60 "the template gate" template_gated light
  check "6: template mode: that rolls it once, to 2 ReplicaSets" wait_for 20 "2 ReplicaSets" rs_count_is light 2
  check "6: template mode: the rollout completes (the new pod warmed)" wait_for "$TIMEOUT" "the rollout" rolled_out light
  rs_before=$(replicasets light)
  # webhook mode may patch no Deployment unless asked to take off the gates template mode wrote (install.md)
  if helm_install --set webhook.stripTemplateGates=true; then pass "6: helm upgrade back to gateInjection=webhook"
  else fail "6: helm upgrade back to gateInjection=webhook"; return; fi
  check "6: webhook mode again: the webhook configuration is back with a caBundle" wait_for 60 "the caBundle" ca_bundle_published
  # the operator has reconciled light by now, give it a few seconds to (wrongly) change the template
  sleep 5
  check "6: webhook mode again: the template keeps the gate until the Deployment opts out (install.md)" template_gated light
  check "6: webhook mode again: no rollout" same "$(replicasets light)" "$rs_before"
  local known pod
  known=$(pod_names light)
  ka scale deploy light --replicas=2 >/dev/null
  wait_for 20 "a new pod" bash -c "[[ -n \$(comm -23 <('$KUBECTL' -n '$APP' get pods -l app=light -o name | sed 's|pod/||' | sort) <(sort <<<'$known')) ]]" || true
  pod=$(new_pod light "$known")
  check "6: a new pod of a template-gated Deployment has the gate exactly once" pod_gate_once "${pod:-none}"
  ka annotate deploy light danki.dev/warmup- >/dev/null
  check "6: opting out takes danki's gate out of the template" wait_for 60 "the gate to go" template_ungated light
  # the template is back to what it was before template mode, so the Deployment rolls back to its
  # first ReplicaSet (same pod-template-hash) rather than making a third
  check "6: opting out rolls it back to its first ReplicaSet (still 2)" rs_count_is light 2
  check "6: opting out: the rollout completes" wait_for "$TIMEOUT" "the rollout" rolled_out light
  # A pod created in the second after the opt-out may still get the gate: the webhook replica that
  # admits it can have a cache a moment behind (OptInLookup's documented trade). What must hold is that
  # no such pod is held: its gate is True (released by the opt-out, or warmed before the release).
  local held="" state
  for pod in $(pod_names light); do
    pod_has_gate "$pod" || continue
    state=$(pod_gate_state "$pod")
    [[ $state == True/* ]] && echo "     $pod has the gate, $state" || held+=" $pod:${state:-no condition}"
  done
  check "6: opting out: after the rollout no live pod of light is held by the gate${held:+ (held:$held)}" same "$held" ""
}

run_phase() { ka get warmupruns "$1" -o jsonpath='{.status.phase}' 2>/dev/null || echo none; }
run_boost() { ka get warmupruns -o jsonpath='{range .items[?(@.spec.deployment=="boosted")]}{.status.cpuBoost.state}/{.status.cpuBoost.summary}/{.status.cpuBoost.message}{end}'; }
pod_cpu_limit() { ka get pod "$1" -o jsonpath='{.spec.containers[0].resources.limits.cpu}'; }
kubelet_cpu_limit() { ka get pod "$1" -o jsonpath='{.status.containerStatuses[0].resources.limits.cpu}'; }
declared_cpu() { ka get pod "$1" -o jsonpath='{.metadata.annotations.danki\.dev/declared-cpu}'; }
jvm_options() { ka get pod "$1" -o jsonpath='{.spec.containers[0].env[?(@.name=="JDK_JAVA_OPTIONS")].value}'; }
# sized_boost: danki's default boost of a 100m container on this cluster: 3 CPUs (1 and the JIT's 2 compiler
# threads), at most the largest allocatable CPU of the untainted nodes, in CpuQuantity's form (500m, 1, 1500m)
sized_boost() {
  kc get nodes -o jsonpath='{range .items[*]}{.status.allocatable.cpu} {.spec.taints[*].effect}{"\n"}{end}' | awk '
    /NoSchedule|NoExecute/ { next } /m / { v = substr($1, 1, length($1) - 1) + 0 } !/m / && NF { v = $1 * 1000 }
    NF && v > max { max = v }
    END { if (max > 3000 || max == 0) max = 3000; if (max % 1000 == 0) print max / 1000; else print max "m" }'
}
run_boost_of() { ka get warmupruns -o jsonpath="{range .items[?(@.spec.deployment==\"$1\")]}{.status.cpuBoost.state}/{.status.cpuBoost.summary}{end}"; }
# run_passes DEPLOYMENT: how its run took the cold and warm figures (status.cold.source/status.warm.source)
run_passes() { ka get warmupruns -o jsonpath="{range .items[?(@.spec.deployment==\"$1\")]}{.status.cold.source}/{.status.warm.source}{end}"; }

phase_boost_at_admission() {
  # the chart's defaults: cpuBoost.enabled auto (on: this cluster serves pods/resize), byDefault, activeProcessorCount
  if helm_install; then pass "7: helm upgrade with the chart's cpuBoost defaults"
  else fail "7: helm upgrade with the chart's cpuBoost defaults"; return; fi
  light_app boosted 300m 100m
  light_app sized default 100m
  light_app unboosted off 100m
  local pod
  wait_for 60 "a pod of boosted" bash -c "[[ -n \$('$KUBECTL' -n '$APP' get pods -l app=boosted -o name) ]]" || true
  pod=$(pod_names boosted | head -1)
  check "7: $pod carries its declared CPU, as the webhook wrote it" same "$(declared_cpu "$pod")" '{"container":"http","limit":"100m"}'
  if wait_for "$TIMEOUT" "$pod warmed" pod_gate_is "$pod" True/WarmedUp; then pass "7: $pod warmed (gate True, WarmedUp)"
  else fail "7: $pod warmed (gate True, WarmedUp)"; diagnose boosted; fi
  check "7: its run says it ran at 300m from admission and was restored" same "$(run_boost)" "Restored/100m->300m/raised at admission"
  check "7: its spec asks for its declared 100m again" same "$(pod_cpu_limit "$pod")" 100m
  check "7: the kubelet runs it at 100m" same "$(kubelet_cpu_limit "$pod")" 100m
  check "7: $pod is Ready" wait_for 30 "$pod Ready" pod_ready "$pod"
  check "7: its JVM was told its declared CPU, rounded up" same "$(jvm_options "$pod")" "-XX:ActiveProcessorCount=1"
  # boosted since admission, its cold pass and warm-up are one k6 run (the plan's cold-pass: the warm-up's
  # first answers), and its warm pass, after the restore, a closed one alike
  check "7: its cold figures came from its warm-up, its warm pass was a closed one" same "$(run_passes boosted)" warmup/closed

  # without danki.dev/warmup-cpu the default boost: a JVM of 1 CPU and its 2 compiler threads, capped by the
  # nodes' allocatable CPU; `off`: none
  local sized unboosted expected
  expected=$(sized_boost)
  sized=$(pod_names sized | head -1) unboosted=$(pod_names unboosted | head -1)
  if wait_for "$TIMEOUT" "$sized warmed" pod_gate_is "$sized" True/WarmedUp; then pass "7: $sized warmed (gate True, WarmedUp)"
  else fail "7: $sized warmed (gate True, WarmedUp)"; diagnose sized; fi
  check "7: without danki.dev/warmup-cpu, $sized was boosted to the JVM's size, capped by the nodes ($expected), and restored" \
    same "$(run_boost_of sized)" "Restored/100m->$expected"
  check "7: $sized's spec asks for its declared 100m again" same "$(pod_cpu_limit "$sized")" 100m
  if wait_for "$TIMEOUT" "$unboosted warmed" pod_gate_is "$unboosted" True/WarmedUp; then pass "7: $unboosted warmed (gate True, WarmedUp)"
  else fail "7: $unboosted warmed (gate True, WarmedUp)"; diagnose unboosted; fi
  # limit | declared CPU | JVM options | the run's boost state/summary (a bare / when it has none)
  check "7: danki.dev/warmup-cpu: off, $unboosted ran at its own 100m, no declared CPU nor JVM option on it" \
    same "$(pod_cpu_limit "$unboosted") | $(declared_cpu "$unboosted") | $(jvm_options "$unboosted") | $(run_boost_of unboosted)" \
    "100m |  |  | /"
  ka delete deploy sized unboosted --wait=false >/dev/null

  # the leader killed between a pod's boost and its restore: the new leader has only the pod to go by
  ka scale deploy boosted --replicas=2 >/dev/null
  local known=$pod second leader
  wait_for 60 "a second pod of boosted" bash -c "[[ -n \$(comm -23 <('$KUBECTL' -n '$APP' get pods -l app=boosted -o name | sed 's|pod/||' | sort) <(echo '$known')) ]]" || true
  second=$(new_pod boosted "$known")
  check "7: $second was admitted at its boost, its declared CPU on it" same "$(declared_cpu "$second")" '{"container":"http","limit":"100m"}'
  leader=$(kc -n "$NS" get lease "$LEASE" -o jsonpath='{.spec.holderIdentity}')
  if kc -n "$NS" delete pod "$leader" --grace-period=0 --force >/dev/null 2>&1; then
    pass "7: killed the leader $leader ($second: $(pod_cpu_limit "$second"), run $(run_phase "$second"))"
  else fail "7: killed the leader ${leader:-?}"; fi
  if wait_for "$TIMEOUT" "$second decided" pod_gate_is "$second" True/WarmedUp; then pass "7: the new leader warmed $second (gate True, WarmedUp)"
  else fail "7: the new leader warmed $second (gate True, WarmedUp)"; diagnose boosted; fi
  check "7: $second's spec asks for its declared 100m again" same "$(pod_cpu_limit "$second")" 100m
  check "7: the kubelet runs $second at 100m" same "$(kubelet_cpu_limit "$second")" 100m
}

main() {
  preflight
  local started=$SECONDS phase_started
  trap cleanup EXIT
  echo "== webhook mode: $("$HELM3" version --short)"
  "$HELM3" uninstall "$REL" -n "$NS" --wait --timeout 60s >/dev/null 2>&1 || true
  kc delete namespace "$NS" "$APP" --ignore-not-found --timeout=120s >/dev/null
  kc create namespace "$APP" >/dev/null
  if helm_install; then pass "0: helm install, webhook mode (the default), watching $APP, certValidity 60s"
  else fail "0: helm install in webhook mode"; diagnose none; echo "$PASSED passed, $FAILED failed"; exit 1; fi
  check "0: the webhook configuration has danki's caBundle" wait_for 60 "the caBundle" ca_bundle_published
  light_app light
  local phases=(phase_opt_in_no_rollout phase_scale_up phase_opt_out phase_unreachable phase_rotation phase_mode_switch
    phase_boost_at_admission)
  [[ -z ${E2E_WEBHOOK_PHASES:-} ]] || read -r -a phases <<<"$E2E_WEBHOOK_PHASES"
  for phase in "${phases[@]}"; do
    phase_started=$SECONDS
    "$phase"
    echo "     ($phase: $((SECONDS - phase_started)) s)"
  done
  echo "== webhook mode: done in $((SECONDS - started)) s"
  echo "$PASSED passed, $FAILED failed"
  ((FAILED == 0))
}

main "$@"
