#!/usr/bin/env bash
# Race test of the chart's webhook mode (issue 26, "no pod slips through cold") on the running local
# cluster (make cluster-up). Answers: does every pod of an opted-in Deployment carry danki's readiness
# gate from its creation, also when it is created moments after its Deployment, its namespace's
# opt-in label or its Deployment's opt-in (the webhook's informer cache may not have them yet)? And
# when the webhook is deliberately stopped, is each pod it missed reported, or replaced, as the
# Deployment's danki.dev/ungated-pods annotation says?
#
# One helm 3 install (release and namespace danki-race, cluster-wide so that a brand-new namespace is
# watched), then E2E_RACE_ROUNDS rounds of, each in namespaces of its own (deleted at its end):
#   a. Burst: E2E_RACE_BURST small opted-in Deployments (a Python process, 1 replica, a tiny plan),
#      one `kubectl create -f` each, started on a schedule E2E_RACE_SPACING s apart (checked: under
#      0.3 s on average; the median, 90th percentile and largest gap are printed).
#      A raw watch, opened from the namespace's resourceVersion before the first create, records
#      every pod ever added; readinessGates cannot change after creation, so the ADDED object is the
#      pod as admitted. Every pod must carry the gate and the label danki.dev/warmup=enabled.
#   b. Namespace opt-in: a new namespace labelled danki.dev/warmup=enabled and a Deployment without
#      the annotation, created back to back by one curl (the API server's timestamps at most 1 s apart),
#      then 2 more such Deployments: every pod carries the gate.
#   c. Opt-in and scale-up in one second: a running, Ready, not opted-in Deployment (1 replica) is
#      annotated danki.dev/warmup=enabled and at once scaled to 3: both new pods carry the gate.
#   d. Webhook stopped (operator scaled to 0, as e2e-webhook.sh phase 4): 2 opted-in Deployments with
#      danki.dev/ungated-pods: report and 2 with replace get ungated pods. Once danki is back:
#      report: a PodNotGated Event naming the pod, danki_webhook_ungated_pods_total >= 1, not evicted;
#      replace: the pod is evicted through the Eviction API (DisruptionTarget EvictionByEvictionAPI),
#      its replacement carries the gate and is warmed (True, WarmedUp), an UngatedPodReplaced Event
#      on the Deployment names the pod.
#   e. (E2E_RACE_LEADER_LOSS=1, after the rounds; off in make test) The leader loses its Lease: the
#      Lease is handed to an identity no replica has. The leader misses its renew deadline and goes,
#      as one under load does. While it goes, a Deployment is scaled up and down every 1.5 s for
#      E2E_RACE_LOSS_SECONDS (default 60): every pod must carry the gate (a replica that closed its
#      webhook port while the Service still routed to it had the API server fail open), the old leader
#      must have restarted, and the API server must not have failed open meanwhile.
# a to c do not wait for warm-ups; deleting the round's namespaces ends them.
#
# Env: KUBECTL, HELM3 (default: bin/), KUBECONFIG (default .cluster/admin.kubeconfig),
#      IMAGE_TAG (default dev), E2E_WEBHOOK_TIMEOUT (s, default 180), E2E_RACE_ROUNDS (default 5),
#      E2E_RACE_BURST (Deployments per burst, default 30), E2E_RACE_SPACING (s between creates, default 0.2),
#      E2E_RACE_WEBHOOK_TIMEOUT (the chart's webhook.timeoutSeconds, default 10 as the chart's),
#      E2E_RACE_LEADER_LOSS (1: phase e, default 0), E2E_RACE_LOSS_SECONDS (default 60).
# Ends with 'N passed, N failed'; exits 1 on any failure.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
E2E_NAME=e2e-webhook-race
# shellcheck source=charts/scripts/e2e-lib.sh
source "$REPO/charts/scripts/e2e-lib.sh"
KUBECTL="${KUBECTL:-$REPO/bin/kubectl}"
HELM3="${HELM3:-$REPO/bin/helm3}"
export KUBECONFIG="${KUBECONFIG:-$REPO/.cluster/admin.kubeconfig}"
IMAGE_TAG="${IMAGE_TAG:-dev}"
TIMEOUT="${E2E_WEBHOOK_TIMEOUT:-180}"
ROUNDS="${E2E_RACE_ROUNDS:-5}"
BURST="${E2E_RACE_BURST:-30}"
SPACING="${E2E_RACE_SPACING:-0.2}"
# The chart's webhook.timeoutSeconds; the webhook reads past its cache within half of it.
WEBHOOK_TIMEOUT="${E2E_RACE_WEBHOOK_TIMEOUT:-10}"
CHART="$REPO/charts/danki"
REL=danki-race
NS=danki-race
LEASE=danki-race
# per round: <prefix>-<round>; a and c in APP, b in OPT_IN (labelled at creation), d in DOWN
APP=danki-race-app
OPT_IN=danki-race-optin
DOWN=danki-race-down
LOSS=danki-race-loss
LEADER_LOSS="${E2E_RACE_LEADER_LOSS:-0}"
LOSS_SECONDS="${E2E_RACE_LOSS_SECONDS:-60}"
GATE=danki.dev/warmed
# The issue's "back to back": creates start less than this apart, on average.
SPACING_LIMIT_MS=300
# Webhook timeout (values.yaml) plus what a loaded 2-core machine adds to a pod create.
CREATE_LIMIT=8
# A raw watch ends by itself after this, should the script be killed before it stops it.
WATCH_LIMIT=900
WORK=$(mktemp -d)
# pods seen added without the gate, and pods seen, per phase over all rounds
declare -A UNGATED=([a]=0 [b]=0 [c]=0 [e]=0) SEEN=([a]=0 [b]=0 [c]=0 [e]=0)

kn() { local ns=$1; shift; "$KUBECTL" -n "$ns" "$@"; } # kn NAMESPACE ARGS...
# the clock in ms without a fork: clock_ms VAR sets VAR (the burst's pace must not wait on a loaded machine)
clock_ms() { local us=${EPOCHREALTIME//[.,]/}; printf -v "$1" '%d' $((us / 1000)); }
now_ms() { local t; clock_ms t; echo "$t"; }
below() { (($1 < $2)); } # below GOT LIMIT

# api_credentials: the API server's URL and the kubeconfig's CA, client certificate and key as files
# under WORK, for api_patch
api_credentials() {
  local config path file
  config=$(kc config view --raw --minify -o json)
  API_URL=$(jq -r '.clusters[0].cluster.server' <<<"$config")
  for path in 'clusters[0].cluster["certificate-authority-data"]:ca.crt' \
    'users[0].user["client-certificate-data"]:client.crt' 'users[0].user["client-key-data"]:client.key'; do
    file=${path##*:} path=${path%:*}
    jq -r ".$path // empty" <<<"$config" | base64 -d >"$WORK/$file"
    [[ -s $WORK/$file ]] || die "$KUBECONFIG has no embedded $path"
  done
}
# api_twice METHOD1 TYPE1 PATH1 BODY1 METHOD2 TYPE2 PATH2 BODY2: two writes by one curl process over
# one connection, not kubectl: phases b and c need two writes within a second, and a kubectl start
# alone took over one on a loaded CI host (so did a second curl start). Prints the second write's ms.
api_twice() {
  local tls=(-fsS --max-time 10 --cacert "$WORK/ca.crt" --cert "$WORK/client.crt" --key "$WORK/client.key"
    -o /dev/null -w '%{time_total}\n')
  curl "${tls[@]}" -X "$1" -H "Content-Type: $2" --data-binary "$4" "$API_URL$3" \
    --next "${tls[@]}" -X "$5" -H "Content-Type: $6" --data-binary "$8" "$API_URL$7" |
    awk 'END { printf "%d\n", $1 * 1000 }'
}

preflight() {
  [[ -x $KUBECTL ]] || die "$KUBECTL missing; run 'make tool-kube'"
  [[ -x $HELM3 ]] || die "$HELM3 missing; run 'make tool-helm'"
  [[ -f $KUBECONFIG ]] || die "$KUBECONFIG missing; start the local cluster with 'make cluster-up'"
  kc get --raw /readyz >/dev/null 2>&1 || die "the cluster at $KUBECONFIG does not answer; run 'make cluster-up'"
  [[ -f $REPO/operator/target/operator-all.jar ]] || die "operator jar missing; run 'make build'"
  [[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "E2E_RACE_ROUNDS must be a positive number, not '$ROUNDS'"
  [[ $BURST =~ ^[1-9][0-9]*$ ]] || die "E2E_RACE_BURST must be a positive number, not '$BURST'"
  command -v jq >/dev/null || die "jq missing (apt-get install jq)"
  command -v curl >/dev/null || die "curl missing"
}

# --- the apps --------------------------------------------------------------------------------------

# light_deployment NAME [KEY=VALUE...]: the manifest of a small Deployment (a Python process, 1 replica)
# with a tiny warm-up plan and the given extra annotations; opted in only if one of them says so
light_deployment() {
  local name=$1 kv; shift
  cat <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $name
  annotations:
    danki.dev/requests: "40"
    danki.dev/rate: "40"
    danki.dev/min-warmup-requests: "0"
    danki.dev/max-warmup-requests: "200"
EOF
  for kv in "$@"; do printf '    %s: "%s"\n' "${kv%%=*}" "${kv#*=}"; done
  cat <<EOF
spec:
  replicas: 1
  selector: {matchLabels: {app: $name}}
  template:
    metadata: {labels: {app: $name}}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
        - name: http
          image: danki/http-status:$IMAGE_TAG
          env: [{name: PORT, value: "8080"}]
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /, port: http}, periodSeconds: 1}
EOF
}
create_light() { local ns=$1; shift; light_deployment "$@" | kn "$ns" create -f - >/dev/null; } # NS NAME [KEY=VALUE...]

pod_gate_is() { # NS POD STATUS/REASON
  [[ $(kn "$1" get pod "$2" -o jsonpath="{range .status.conditions[?(@.type==\"$GATE\")]}{.status}/{.reason}{end}") == "$3" ]]
}
ready_replicas_are() { [[ $(kn "$1" get deploy "$2" -o jsonpath='{.status.readyReplicas}') == "$3" ]]; } # NS DEPLOY N
created_s() { # NS KIND NAME: its creationTimestamp in epoch seconds (NS empty: cluster-scoped)
  date -d "$("$KUBECTL" ${1:+-n "$1"} get "$2" "$3" -o jsonpath='{.metadata.creationTimestamp}')" +%s
}
live_uid_is() { # NS POD UID: the pod exists with that UID and is not being deleted
  [[ $(kn "$1" get pod "$2" -o jsonpath='{.metadata.uid} {.metadata.deletionTimestamp}' 2>/dev/null) == "$3 " ]]
}
# events_name NS DEPLOYMENT REASON POD: an Event with REASON on the Deployment names the pod
events_name() {
  kn "$1" get events --field-selector "involvedObject.kind=Deployment,involvedObject.name=$2,reason=$3" \
    -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' | grep -qF "$4"
}

# --- what the API server admitted: a raw watch per namespace ----------------------------------------

BACKGROUND=()
# watch_pods NS LOG: appends every pod event in NS from now on to LOG, one JSON object a line. The
# watch starts at the resourceVersion of a list made here, so a pod created after this returns is
# recorded even if the watch connects late.
watch_pods() {
  local rv
  rv=$(kc get --raw "/api/v1/namespaces/$1/pods?limit=1" | jq -r .metadata.resourceVersion)
  # kubectl itself in the background (not kc, whose subshell would outlive a kill of its PID)
  "$KUBECTL" get --raw "/api/v1/namespaces/$1/pods?watch=1&resourceVersion=$rv&timeoutSeconds=$WATCH_LIMIT" >>"$2" 2>/dev/null &
  BACKGROUND+=($!)
}
stop_watches() {
  local pid
  for pid in "${BACKGROUND[@]}"; do kill "$pid" 2>/dev/null || true; done
  BACKGROUND=()
}
# seen_pods LOG: "name uid gate label app created" for every pod added (gate: gated or none; label: the
# danki.dev/warmup label or -). A pod's readinessGates cannot change, so this is the pod as admitted.
seen_pods() {
  jq -rR --arg gate "$GATE" 'fromjson? | select(.type == "ADDED") | .object
    | [.metadata.name, .metadata.uid,
       (if any(.spec.readinessGates[]?; .conditionType == $gate) then "gated" else "none" end),
       (.metadata.labels["danki.dev/warmup"] // "-"), (.metadata.labels.app // "-"),
       .metadata.creationTimestamp] | join(" ")' "$1"
}
seen_of() { seen_pods "$1" | awk -v re="$2" '$5 ~ re'; } # LOG APP-REGEX
seen_at_least() { (($(seen_of "$1" "$2" | grep -c .) >= $3)); } # LOG APP-REGEX N
new_seen() { seen_of "$1" "$2" | awk -v old="$3" '$2 != old'; } # LOG APP-REGEX UID: all but that pod
new_seen_at_least() { (($(new_seen "$1" "$2" "$3" | grep -c .) >= $4)); } # LOG APP-REGEX UID N
# deleted_seen LOG UID: the watch saw that pod get a deletionTimestamp, or go
deleted_seen() {
  [[ -n $(jq -rR --arg uid "$2" 'fromjson? | select(.object.metadata.uid == $uid)
    | select(.type == "DELETED" or .object.metadata.deletionTimestamp != null) | .type' "$1") ]]
}
all_deleted_seen() { local log=$1 uid; shift; for uid in "$@"; do deleted_seen "$log" "$uid" || return 1; done; }
# evicted_seen LOG UID: the pod carried DisruptionTarget/EvictionByEvictionAPI, which only the Eviction API sets
evicted_seen() {
  [[ -n $(jq -rR --arg uid "$2" 'fromjson? | .object | select(.metadata.uid == $uid)
    | select(any(.status.conditions[]?; .type == "DisruptionTarget" and .reason == "EvictionByEvictionAPI")) | .kind' "$1") ]]
}

# judge_gates PHASE ROUND LOG APP-REGEX WANT: checks that WANT pods were added and that each has the
# gate and the label; lists the ungated ones with their Deployment's creation time
judge_gates() {
  local phase=$1 round=$2 log=$3 re=$4 want=$5 seen ungated n m name app created
  seen=$(seen_of "$log" "$re")
  n=$(grep -c . <<<"$seen" || true)
  ungated=$(awk '$3 != "gated" || $4 != "enabled"' <<<"$seen")
  m=$(grep -c . <<<"$ungated" || true)
  SEEN[$phase]=$((SEEN[$phase] + n))
  UNGATED[$phase]=$((UNGATED[$phase] + m))
  check "$phase$round: at least $want pods seen added (saw $n)" test "$n" -ge "$want"
  if ((n > 0 && m == 0)); then pass "$phase$round: all $n pods carry $GATE and the label at creation"
  else
    fail "$phase$round: $m of $n pods admitted without $GATE or the label:"
    while read -r name _ _ _ app created; do
      [[ -n $name ]] && echo "     $name: created $created, its Deployment $app created $(kn "$(ns_of "$log")" get deploy "$app" -o jsonpath='{.metadata.creationTimestamp}' 2>/dev/null)"
      [[ -n $name ]] && webhook_said "$app"
    done <<<"$ungated"
  fi
}
# webhook_said DEPLOYMENT: what the operator replicas logged about it (a read past the cache that
# failed or ran out of its budget says so), so a failure shows why the webhook let its pod through
webhook_said() {
  kc -n "$NS" logs -l "app.kubernetes.io/instance=$REL" --prefix --tail=-1 2>/dev/null |
    grep -e "deployment=\"$1\"" -e "admission review failed" | grep -v "pod gated at admission" |
    head -n 8 | cut -c1-400 | sed 's/^/       webhook: /' || true
  # did the API server give up on the webhook?
  local api_log
  api_log=$(api_server_log)
  [[ ! -f $api_log ]] || grep -F "failing open" "$api_log" | tail -n 3 | cut -c1-400 | sed 's/^/       api server: /' || true
}
# api_server_log: where the local cluster keeps the API server's log, beside its kubeconfig
api_server_log() { echo "$(dirname "$KUBECONFIG")/logs/kube-apiserver.log"; }
ns_of() { basename "$1" .watch; } # the watch logs are named WORK/<namespace>.watch

# --- danki -----------------------------------------------------------------------------------------

operator_pods() { kc -n "$NS" get pods -l "app.kubernetes.io/instance=$REL" -o name; }
operator_pods_gone() { [[ -z $(operator_pods) ]]; }
webhook_endpoints() {
  kc -n "$NS" get endpointslices -l "kubernetes.io/service-name=$REL-webhook" -o jsonpath='{.items[*].endpoints[*].addresses[*]}'
}
no_webhook_endpoints() { [[ -z $(webhook_endpoints) ]]; }
operator_ready() { [[ $(kc -n "$NS" get deploy "$REL" -o jsonpath='{.status.readyReplicas}') == "$1" ]]; }
leader_ip() {
  local holder
  holder=$(kc -n "$NS" get lease "$LEASE" -o jsonpath='{.spec.holderIdentity}')
  [[ -n $holder ]] && kc -n "$NS" get pod "$holder" -o jsonpath='{.status.podIP}'
}
# ungated_total NS DEPLOYMENT: the leader's danki_webhook_ungated_pods_total for it (0 when absent)
ungated_total() {
  local ip
  ip=$(leader_ip) || return 1
  curl -fsS --max-time 5 "http://$ip:8080/metrics" \
    | awk -v want="namespace=\"$1\"" -v dep="deployment=\"$2\"" \
      '/^danki_webhook_ungated_pods_total\{/ && index($0, want) && index($0, dep) { v = $2 } END { print v + 0 }'
}
ungated_at_least_one() { local v; v=$(ungated_total "$1" "$2") && awk -v v="$v" 'BEGIN { exit !(v >= 1) }'; }
ca_bundle_published() {
  [[ -n $(kc get mutatingwebhookconfiguration "$REL" -o jsonpath='{.webhooks[0].clientConfig.caBundle}') ]]
}

helm_install() {
  local crd_flags=()
  if kc get crd warmupruns.danki.dev -o name >/dev/null 2>&1; then crd_flags=(--skip-crds); fi
  # watchNamespaces as by default (empty): every namespace, so that phase b's brand-new one is watched
  "$HELM3" upgrade --install "$REL" "$CHART" --namespace "$NS" --create-namespace "${crd_flags[@]}" \
    --set "image.tag=$IMAGE_TAG" --set "leaderElection.leaseName=$LEASE" --set logging.format=text --set logging.level=debug \
    --set "webhook.timeoutSeconds=$WEBHOOK_TIMEOUT" --wait --timeout "${TIMEOUT}s" >/dev/null
}

# the namespaces this script made or may have made (also an earlier run's, killed before its cleanup)
race_namespaces() { kc get namespaces -o name | sed -n 's|^namespace/\(danki-race-.*\)|\1|p'; }
delete_namespaces() { # NAMESPACE...: deletes them and waits until they are gone (bounded)
  (($# == 0)) || kc delete namespace "$@" --ignore-not-found --timeout=180s >/dev/null
}

cleanup() {
  stop_watches
  local left
  left=$(race_namespaces || true)
  # the app namespaces first, while the operator still runs
  if [[ -n $left ]]; then
    # shellcheck disable=SC2086 # one namespace per word
    kc delete namespace $left --ignore-not-found --timeout=120s >/dev/null 2>&1 || true
  fi
  "$HELM3" uninstall "$REL" -n "$NS" --wait --timeout 60s >/dev/null 2>&1 || true
  kc delete namespace "$NS" --ignore-not-found --timeout=120s >/dev/null 2>&1 || true
  rm -rf "$WORK"
}

# --- a: a burst of new opted-in Deployments --------------------------------------------------------

phase_burst() { # ROUND
  local round=$1 ns="$APP-$1" log i t0 t1 t starts=() ends=() creates=() mean median p90 max took pace rest
  log="$WORK/$ns.watch"
  for ((i = 1; i <= BURST; i++)); do
    light_deployment "burst-$i" danki.dev/warmup=enabled >"$WORK/burst-$i.yaml"
  done
  pace=$(awk -v s="$SPACING" 'BEGIN { printf "%d", s * 1000 }')
  watch_pods "$ns" "$log"
  : >"$WORK/ends"
  clock_ms t0
  for ((i = 1; i <= BURST; i++)); do
    clock_ms t
    starts+=("$t")
    # each create starts on a fixed schedule, SPACING s after the one before, however long one takes
    { kn "$ns" create -f "$WORK/burst-$i.yaml" >/dev/null && now_ms >>"$WORK/ends"; } &
    creates+=($!)
    clock_ms t
    rest=$((t0 + i * pace - t))
    if ((rest > 0)); then printf -v rest '%d.%03d' $((rest / 1000)) $((rest % 1000)); sleep "$rest"; fi
  done
  local failed=0 pid
  for pid in "${creates[@]}"; do wait "$pid" || failed=$((failed + 1)); done
  clock_ms t1
  mapfile -t ends < <(sort -n "$WORK/ends")
  # gaps between starts: mean, median, 90th percentile, max. The check is on the mean (the issue's "in
  # under 0.3 s each"): on a loaded machine a fork that stalls makes one gap longer and the next one
  # shorter (the schedule catches up), and the burst is no less of a burst.
  read -r mean median p90 max < <(printf '%s\n' "${starts[@]}" | awk 'NR > 1 { print $1 - p } { p = $1 }' | sort -n \
    | awk '{ g[NR] = $1; s += $1 } END { printf "%d %d %d %d\n", s / NR, g[int((NR + 1) / 2)], g[int(NR * 0.9 + 0.999)], g[NR] }')
  check "a$round: $BURST creates started back to back, every $mean ms on average (limit $SPACING_LIMIT_MS; median $median, 90th percentile $p90, max $max ms)" \
    below "$mean" "$SPACING_LIMIT_MS"
  check "a$round: every create succeeded ($failed failed), the last done $((t1 - t0)) ms after the first began" test "$failed" -eq 0
  echo "     a$round: the API server answered the creates at most $(printf '%s\n' "${ends[@]}" | awk 'NR > 1 && $1 - p > m { m = $1 - p } { p = $1 } END { print m + 0 }') ms apart"
  took=$SECONDS
  wait_for 90 "$BURST burst pods" seen_at_least "$log" '^burst-' "$BURST" || true
  echo "     a$round: $BURST burst pods added $((SECONDS - took)) s after the last create"
  judge_gates a "$round" "$log" '^burst-' "$BURST"
}

# --- b: a namespace labelled for opt-in, with Deployments created in it at once ----------------------

phase_namespace_opt_in() { # ROUND
  local round=$1 ns="$OPT_IN-$1" log took i apart
  log="$WORK/$ns.watch"
  watch_pods "$ns" "$log"
  # the namespace, then at once the Deployment (the API server reads YAML too)
  took=$(api_twice POST application/json /api/v1/namespaces \
    "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\",\"labels\":{\"danki.dev/warmup\":\"enabled\"}}}" \
    POST application/yaml "/apis/apps/v1/namespaces/$ns/deployments" "$(light_deployment optin-1)")
  for i in 2 3; do create_light "$ns" "optin-$i"; done
  # as the API server stamped them
  apart=$(($(created_s "$ns" deploy optin-1) - $(created_s "" namespace "$ns")))
  check "b$round: the labelled namespace, then a Deployment without the annotation $took ms later, stamped $apart s apart (same second, or the next)" \
    test "$apart" -le 1
  wait_for 60 "3 pods in $ns" seen_at_least "$log" '^optin-' 3 || true
  judge_gates b "$round" "$log" '^optin-' 3
}

# --- c: opt-in and scale-up in the same second -------------------------------------------------------

phase_opt_in_scale_up() { # ROUND
  local round=$1 ns="$APP-$1" log old took
  log="$WORK/$ns.watch"
  check "c$round: the Deployment scale (not opted in) has its 1 replica Ready" wait_for 90 "scale Ready" ready_replicas_are "$ns" scale 1
  # Ready for a few seconds, so its informer copy is old news
  sleep 3
  old=$(kn "$ns" get pods -l app=scale -o jsonpath='{.items[*].metadata.uid}')
  # from the opt-in written to the scale-up written
  local merge=application/merge-patch+json
  took=$(api_twice PATCH $merge "/apis/apps/v1/namespaces/$ns/deployments/scale" '{"metadata":{"annotations":{"danki.dev/warmup":"enabled"}}}' \
    PATCH $merge "/apis/apps/v1/namespaces/$ns/deployments/scale/scale" '{"spec":{"replicas":3}}')
  check "c$round: annotated, then scaled to 3 $took ms later (within a second)" below "$took" 1000
  wait_for 60 "2 new scale pods" new_seen_at_least "$log" '^scale$' "$old" 2 || true
  # the pod from before the opt-in need not have the gate: judge only the new ones
  judge_new_scale_pods "$round" "$ns" "$old" "$log"
}

# judge_new_scale_pods ROUND NS OLD-UID LOG: the 2 pods created by the scale-up carry the gate
judge_new_scale_pods() {
  local round=$1 ns=$2 old=$3 log=$4 seen n m
  seen=$(new_seen "$log" '^scale$' "$old")
  n=$(grep -c . <<<"$seen" || true)
  m=$(awk '$3 != "gated" || $4 != "enabled"' <<<"$seen" | grep -c . || true)
  SEEN[c]=$((SEEN[c] + n))
  UNGATED[c]=$((UNGATED[c] + m))
  check "c$round: 2 new pods seen added (saw $n)" test "$n" -ge 2
  if ((n > 0 && m == 0)); then pass "c$round: both new pods carry $GATE and the label at creation"
  else
    fail "c$round: $m of $n new pods admitted without $GATE or the label: $(awk '$3 != "gated" || $4 != "enabled" { printf "%s (created %s) ", $1, $6 }' <<<"$seen")"
    webhook_said scale
  fi
}

# --- d: the webhook stopped, then report or replace ----------------------------------------------------

phase_webhook_down() { # ROUND
  local round=$1 ns="$DOWN-$1" log replicas back t0 d pod uid name
  local -A pod_of=() uid_of=()
  log="$WORK/$ns.watch"
  kc create namespace "$ns" >/dev/null
  watch_pods "$ns" "$log"
  replicas=$(kc -n "$NS" get deploy "$REL" -o jsonpath='{.spec.replicas}')
  kc -n "$NS" scale deploy "$REL" --replicas=0 >/dev/null
  check "d$round: the operator's pods are gone" wait_for 90 "the operator pods to stop" operator_pods_gone
  check "d$round: the webhook Service has no endpoints" wait_for 30 "no webhook endpoints" no_webhook_endpoints
  for d in report-1 report-2; do create_light "$ns" "$d" danki.dev/warmup=enabled danki.dev/ungated-pods=report; done
  for d in replace-1 replace-2; do create_light "$ns" "$d" danki.dev/warmup=enabled danki.dev/ungated-pods=replace; done
  wait_for $((CREATE_LIMIT * 2)) "4 pods" seen_at_least "$log" '^re' 4 || true
  while read -r name uid _ _ d _; do
    [[ -n $name && -z ${pod_of[$d]:-} ]] || continue
    pod_of[$d]=$name; uid_of[$d]=$uid
  done < <(seen_of "$log" '^re')
  for d in report-1 report-2 replace-1 replace-2; do
    if [[ -z ${pod_of[$d]:-} ]]; then fail "d$round: $d made a pod with the webhook down"; continue; fi
    check "d$round: with the webhook down, ${pod_of[$d]} ($d) was admitted without the gate" \
      same "$(seen_of "$log" "^$d\$" | awk -v u="${uid_of[$d]}" '$2 == u { print $3 }')" none
  done
  t0=$SECONDS
  kc -n "$NS" scale deploy "$REL" --replicas="$replicas" >/dev/null
  check "d$round: the operator is back with $replicas replicas" wait_for "$TIMEOUT" "the operator" operator_ready "$replicas"
  back=$SECONDS
  echo "     d$round: danki back $((back - t0)) s after scaling it up"

  # replace: evicted, replaced by a gated pod that gets warmed, an Event names the evicted pod
  local replaced=()
  for d in replace-1 replace-2; do [[ -n ${uid_of[$d]:-} ]] && replaced+=("${uid_of[$d]}"); done
  wait_for 90 "the replace pods to be evicted" all_deleted_seen "$log" "${replaced[@]}" || true
  echo "     d$round: waited $((SECONDS - back)) s for the evictions"
  for d in replace-1 replace-2; do
    pod=${pod_of[$d]:-}
    [[ -n $pod ]] || continue
    if deleted_seen "$log" "${uid_of[$d]}"; then pass "d$round: replace: $pod ($d) was deleted within 90 s of danki's return"
    else fail "d$round: replace: $pod ($d) was deleted within 90 s of danki's return"; continue; fi
    check "d$round: replace: $pod was evicted through the Eviction API (DisruptionTarget EvictionByEvictionAPI)" evicted_seen "$log" "${uid_of[$d]}"
    wait_for 30 "the replacement of $pod" seen_at_least "$log" "^$d\$" 2 || true
    local next
    next=$(seen_of "$log" "^$d\$" | awk -v u="${uid_of[$d]}" '$2 != u' | head -1)
    if [[ -z $next ]]; then fail "d$round: replace: $d made a replacement for $pod"; continue; fi
    check "d$round: replace: the replacement ${next%% *} carries $GATE and the label" same "$(cut -d' ' -f3,4 <<<"$next")" "gated enabled"
    check "d$round: replace: the replacement ${next%% *} is warmed (gate True, WarmedUp)" \
      wait_for "$TIMEOUT" "${next%% *} warmed" pod_gate_is "$ns" "${next%% *}" True/WarmedUp
    check "d$round: replace: an UngatedPodReplaced Event on $d names $pod" \
      wait_for 30 "the Event" events_name "$ns" "$d" UngatedPodReplaced "$pod"
  done

  # report: an Event and the metric, and the pod left serving (at least 20 s after danki's return);
  # by now danki has been back long enough to have reconciled every pod, so the waits are short
  local reported=()
  for d in report-1 report-2; do [[ -n ${pod_of[$d]:-} ]] && reported+=("$d" "${pod_of[$d]}"); done
  wait_for 30 "the PodNotGated Events" all_reported "$ns" "${reported[@]}" || true
  wait_for 15 "the metric" all_counted "$ns" "${reported[@]}" || true
  for d in report-1 report-2; do
    pod=${pod_of[$d]:-}
    [[ -n $pod ]] || continue
    check "d$round: report: a PodNotGated Event on $d names $pod" events_name "$ns" "$d" PodNotGated "$pod"
    check "d$round: report: the leader counts it: danki_webhook_ungated_pods_total{deployment=$d} >= 1" \
      ungated_at_least_one "$ns" "$d"
  done
  if ((SECONDS < back + 20)); then sleep $((back + 20 - SECONDS)); fi
  for d in report-1 report-2; do
    pod=${pod_of[$d]:-}
    [[ -n $pod ]] || continue
    if live_uid_is "$ns" "$pod" "${uid_of[$d]}" && ! deleted_seen "$log" "${uid_of[$d]}"; then
      pass "d$round: report: $pod was not evicted ($((SECONDS - back)) s after danki's return)"
    else fail "d$round: report: $pod was not evicted"; fi
  done
}

all_reported() { # NS DEPLOYMENT POD [DEPLOYMENT POD...]
  local ns=$1; shift
  while (($# >= 2)); do events_name "$ns" "$1" PodNotGated "$2" || return 1; shift 2; done
}
all_counted() { # NS DEPLOYMENT POD [DEPLOYMENT POD...]
  local ns=$1; shift
  while (($# >= 2)); do ungated_at_least_one "$ns" "$1" || return 1; shift 2; done
}

# --- the rounds ------------------------------------------------------------------------------------

timed() { # NAME COMMAND...: runs it and prints how long it took
  local name=$1 t0=$SECONDS; shift
  "$@"
  echo "     ($name: $((SECONDS - t0)) s)"
}

# restarts_of POD: its first container's restart count
restarts_of() { kc -n "$NS" get pod "$1" -o jsonpath='{.status.containerStatuses[0].restartCount}'; }
restarted() { (($(restarts_of "$1") > $2)); } # POD BEFORE
# api_failed_open_since EPOCH: the API server's "failing open" lines for danki's webhook from then on
api_failed_open_since() {
  local api_log since
  api_log=$(api_server_log)
  [[ -f $api_log ]] || return 0
  since=$(date -u -d "@$1" +%H:%M:%S)
  grep -F "failing open pods.danki.dev" "$api_log" | awk -v t="$since" '$2 >= t' || true
}

phase_leader_loss() {
  local ns=$LOSS log="$WORK/$LOSS.watch" leader before stolen t opened
  kc create namespace "$ns" >/dev/null
  create_light "$ns" loss danki.dev/warmup=enabled
  watch_pods "$ns" "$log"
  leader=$(kc -n "$NS" get lease "$LEASE" -o jsonpath='{.spec.holderIdentity}')
  check "e: a replica leads ($leader)" test -n "$leader"
  before=$(restarts_of "$leader")
  stolen=$(date +%s)
  kc -n "$NS" patch lease "$LEASE" --type merge -p "{\"spec\":{\"holderIdentity\":\"e2e-thief\",\"renewTime\":\"$(date -u +%Y-%m-%dT%H:%M:%S.000000Z)\"}}" >/dev/null
  echo "     e: the Lease handed to e2e-thief; scaling loss up and down for $LOSS_SECONDS s"
  for ((t = 0; t * 3 < LOSS_SECONDS * 2; t++)); do
    kn "$ns" scale deploy loss --replicas=$((t % 2 + 2)) >/dev/null 2>&1 || true
    sleep 1.5
  done
  check "e: the old leader $leader restarted (restarts $before -> $(restarts_of "$leader"))" \
    wait_for "$TIMEOUT" "$leader to restart" restarted "$leader" "$before"
  stop_watches
  judge_gates e "" "$log" '^loss$' $((LOSS_SECONDS / 3))
  opened=$(api_failed_open_since "$stolen")
  check "e: the API server did not fail open while the leader went ($(grep -c . <<<"$opened" || true) times)" test -z "$opened"
  [[ -z $opened ]] || cut -c1-300 <<<"$opened" | tail -n 3 | sed 's/^/       /'
  check "e: the operator is back with 2 replicas" wait_for "$TIMEOUT" "the operator" operator_ready 2
  delete_namespaces "$ns" >/dev/null || true
}

round() { # ROUND
  local round=$1 t0=$SECONDS
  echo "== round $round of $ROUNDS"
  kc create namespace "$APP-$round" >/dev/null
  # c's Deployment, not opted in, started now so that it is Ready (and old news) by phase c
  create_light "$APP-$round" scale
  timed "a$round burst" phase_burst "$round"
  timed "b$round namespace opt-in" phase_namespace_opt_in "$round"
  timed "c$round opt-in and scale-up" phase_opt_in_scale_up "$round"
  stop_watches
  timed "round $round: namespaces of a-c deleted" \
    check "round $round: the namespaces of a-c are gone within 180 s" delete_namespaces "$APP-$round" "$OPT_IN-$round"
  timed "d$round webhook down" phase_webhook_down "$round"
  stop_watches
  timed "round $round: namespace of d deleted" \
    check "round $round: the namespace of d is gone within 180 s" delete_namespaces "$DOWN-$round"
  echo "     (round $round: $((SECONDS - t0)) s)"
}

main() {
  preflight
  api_credentials
  local started=$SECONDS round left
  trap cleanup EXIT
  echo "== webhook race: $ROUNDS rounds, bursts of $BURST Deployments ${SPACING} s apart, $("$HELM3" version --short)"
  left=$(race_namespaces)
  # shellcheck disable=SC2086 # one namespace per word
  [[ -z $left ]] || delete_namespaces $left
  "$HELM3" uninstall "$REL" -n "$NS" --wait --timeout 60s >/dev/null 2>&1 || true
  if timed "install" helm_install; then pass "0: helm install, webhook mode, every namespace"
  else fail "0: helm install in webhook mode"; echo "$PASSED passed, $FAILED failed"; exit 1; fi
  check "0: the webhook configuration has danki's caBundle" wait_for 60 "the caBundle" ca_bundle_published
  for ((round = 1; round <= ROUNDS; round++)); do round "$round"; done
  if [[ $LEADER_LOSS == 1 ]]; then timed "e leader loss" phase_leader_loss; fi
  echo "== pods admitted without the gate, over $ROUNDS rounds: a (burst) ${UNGATED[a]} of ${SEEN[a]}," \
    "b (namespace opt-in) ${UNGATED[b]} of ${SEEN[b]}, c (opt-in and scale-up) ${UNGATED[c]} of ${SEEN[c]}"
  echo "== webhook race: done in $((SECONDS - started)) s"
  echo "$PASSED passed, $FAILED failed"
  ((FAILED == 0))
}

main "$@"
