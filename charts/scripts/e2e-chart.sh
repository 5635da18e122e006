#!/usr/bin/env bash
# Cluster test of charts/danki on the running local cluster (make cluster-up), once with helm 3
# and once with helm 4. Answers: does the chart, installed as a user would, run the operator
# under its own ServiceAccount with exactly the RBAC the README promises, and do upgrade and
# uninstall leave nothing behind but the CRD?
#
# Per helm, in namespaces of its own (danki-e2e-<h>, -app, -other), deleted at the end:
#   1. helm install from the OCI registry, image tag dev, namespaced mode watching -app; both replicas available;
#      the Lease is held by one of the chart's pods, which run as the chart's ServiceAccount.
#   2. `kubectl auth can-i --list` for the ServiceAccount in -app, the release namespace and
#      -other equals the expected list exactly (an added rule fails), plus explicit negatives.
#   3. The operator really works with only these rules: an annotated Deployment in -app gets
#      its pod warmed (gate condition True, reason WarmedUp) and a WarmupRun.
#   4. helm upgrade to watch -other too (Role appears), back (Role goes), then cluster-wide
#      mode (ClusterRole, no Role anywhere): an annotated Deployment in -other, which has no
#      Role, is warmed too. The documented opt-out (list, annotate -, rollout) drops its gate.
#   5. helm uninstall: no object labelled with the release is left anywhere, the operator's
#      Lease is gone too, the CRD stays; the documented repair takes the gate off a Deployment
#      that was left opted in (-app).
#
# Env: KUBECTL, HELM3, HELM4 (default: bin/), KUBECONFIG (default .cluster/admin.kubeconfig),
#      IMAGE_TAG (default dev), E2E_CHART_HELMS (default "helm3 helm4"), E2E_CHART_TIMEOUT (s, default 300),
#      VERSION (the chart's; make passes it), CLUSTER_INSTANCE (whose registry), E2E_CHART_SOURCE
#      (registry, the default: chart-push.sh, then oci://; tree: charts/danki).
# Ends with 'N passed, N failed'; exits 1 on any failure.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
E2E_NAME=e2e-chart
WAIT_POLL=2
# shellcheck source=charts/scripts/e2e-lib.sh
source "$REPO/charts/scripts/e2e-lib.sh"
KUBECTL="${KUBECTL:-$REPO/bin/kubectl}"
HELM3="${HELM3:-$REPO/bin/helm3}"
HELM4="${HELM4:-$REPO/bin/helm4}"
export KUBECONFIG="${KUBECONFIG:-$REPO/.cluster/admin.kubeconfig}"
IMAGE_TAG="${IMAGE_TAG:-dev}"
TIMEOUT="${E2E_CHART_TIMEOUT:-300}"
# The chart as a user installs a release: from the local cluster's OCI registry (main pushes it);
# E2E_CHART_SOURCE=tree installs the working tree's charts/danki instead.
CHART=("$REPO/charts/danki")
LEASE=danki-operator


preflight() {
  [[ -x $KUBECTL ]] || die "$KUBECTL missing; run 'make tool-kube'"
  [[ -f $KUBECONFIG ]] || die "$KUBECONFIG missing; start the local cluster with 'make cluster-up'"
  kc get --raw /readyz >/dev/null 2>&1 || die "the cluster at $KUBECONFIG does not answer; run 'make cluster-up'"
  [[ -f $REPO/operator/target/operator-all.jar ]] || die "operator jar missing; run 'make build'"
}

# The rules of the chart, as `kubectl auth can-i --list` prints them (resource, names, verbs).
watch_rules() {
  cat <<'EOF'
deployments.apps [] [] [get list watch patch]
events [] [] [create]
pods [] [] [get list watch]
pods/status [] [] [patch]
warmupruns.danki.dev [] [] [get list watch create]
warmupruns.danki.dev/status [] [] [patch]
warmuphistories.danki.dev [] [] [get create]
warmuphistories.danki.dev/status [] [] [patch]
EOF
}
# The rules of a watched namespace with runner.enabled: the watch rules, configmaps and
# networkpolicies, and create/delete on pods. `can-i --list` merges the rules of one resource, so the
# runner's pods verbs show on the watch rule's line.
watch_and_runner_rules() {
  watch_rules | sed 's/^pods \[\] \[\] \[get list watch\]$/pods [] [] [get list watch create delete]/'
  cat <<'EOF'
configmaps [] [] [get]
networkpolicies.networking.k8s.io [] [] [create delete]
EOF
}
# Cluster-wide, so in every namespace's list: nodeConcurrency auto (the chart's default) reads a
# node's allocatable CPU, by name.
cluster_rules() {
  echo 'nodes [] [] [get]'
}
lease_rules() {
  cat <<EOF
leases.coordination.k8s.io [] [] [create]
leases.coordination.k8s.io [] [$LEASE] [get update patch delete]
EOF
}

# can_i_list NS SA_NS SA: the rules of SA in NS, one normalized line each, sorted.
can_i_list() {
  kc auth can-i --list -n "$1" --as="system:serviceaccount:$2:$3" --no-headers | sed -E 's/[[:space:]]+/ /g; s/ $//' | sort
}

# expect_rules NAME NS SA_NS SA BASELINE EXTRA...: SA's rules in NS are exactly BASELINE plus the
# cluster-wide rules plus EXTRA.
expect_rules() {
  local name=$1 ns=$2 sa_ns=$3 sa=$4 baseline=$5; shift 5
  local want got
  want=$( { printf '%s\n' "$baseline"; cluster_rules; printf '%s\n' "$@"; } | sed "/^$/d" | sort)
  got=$(can_i_list "$ns" "$sa_ns" "$sa")
  if [[ $want == "$got" ]]; then pass "$name"; else
    fail "$name"; diff <(echo "$want") <(echo "$got") | sed 's/^/     /' || true
  fi
}

# denied NS SA_NS SA VERB RESOURCE [FLAGS]: can-i must answer no.
denied() {
  local ns=$1 sa_ns=$2 sa=$3; shift 3
  if kc auth can-i "$@" -n "$ns" --as="system:serviceaccount:$sa_ns:$sa" >/dev/null 2>&1; then
    fail "denied in ${ns:-(cluster)}: $*"
  else pass "denied in ${ns:-(cluster)}: $*"; fi
}
allowed() {
  local ns=$1 sa_ns=$2 sa=$3; shift 3
  if kc auth can-i "$@" -n "$ns" --as="system:serviceaccount:$sa_ns:$sa" >/dev/null 2>&1; then
    pass "allowed in $ns: $*"
  else fail "allowed in $ns: $*"; fi
}

lease_held_by_chart_pod() { # NS RELEASE
  local holder
  holder=$(kc -n "$1" get lease "$LEASE" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null) || return 1
  [[ -n $holder ]] && kc -n "$1" get pods -l "app.kubernetes.io/instance=$2" -o name | grep -qx "pod/$holder"
}

notes_ok() { # NOTES: the next steps, the opt-out before uninstalling and the CRD caveat are there
  grep -qF 'kubectl annotate deployment <name> danki.dev/warmup=enabled' <<<"$1" &&
    grep -qF 'kubectl get warmupruns -w' <<<"$1" && grep -qF 'kubectl delete crd warmupruns.danki.dev warmuphistories.danki.dev aotcaches.danki.dev' <<<"$1" &&
    grep -qF 'annotate deployment <name> danki.dev/warmup-' <<<"$1" && grep -qF "$(opted_in_jsonpath)" <<<"$1"
}

history_kept() { # NS DEPLOYMENT: its WarmupHistory holds a Succeeded result and is owned by the Deployment
  [[ $(kc -n "$1" get warmuphistory "$2" -o jsonpath='{.status.entries[0].phase} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}' 2>/dev/null) == "Succeeded Deployment/$2" ]]
}

crd_exists() { kc get crd warmupruns.danki.dev warmuphistories.danki.dev -o name >/dev/null 2>&1; }

pods_use_sa() { # NS RELEASE SA: every operator pod runs as SA, and there are 2
  local sas
  sas=$(kc -n "$1" get pods -l "app.kubernetes.io/instance=$2" -o jsonpath='{range .items[*]}{.spec.serviceAccountName}{"\n"}{end}')
  [[ $(grep -c . <<<"$sas") -eq 2 && $(sort -u <<<"$sas") == "$3" ]]
}

# annotated_target NS NAME [ANNOTATION [RESOURCES]]: an annotated Deployment the operator must warm,
# with one more danki.dev annotation line and the container's resources, each as YAML flow text.
annotated_target() {
  local extra=${3:+$'\n'"    $3"} resources=${4:+$'\n'"          resources: $4"}
  # Short cold and warm passes (40 requests at 40/s): this test is about RBAC, not warm-up quality.
  kc -n "$1" apply -f - >/dev/null <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $2
  annotations:
    danki.dev/warmup: enabled
    danki.dev/requests: "40"
    danki.dev/rate: "40"$extra
spec:
  replicas: 1
  selector:
    matchLabels: {app: $2}
  template:
    metadata:
      labels: {app: $2}
    spec:
      containers:
        - name: http
          image: danki/http-status:dev
          env: [{name: PORT, value: "8080"}]
          ports: [{name: http, containerPort: 8080}]$resources
          readinessProbe:
            httpGet: {path: /, port: http}
            periodSeconds: 2
EOF
}

warm_target() { annotated_target "$1" warm-target; } # NS

boost_target() { # NS: a twin of warm-target with a CPU limit of 100m, boosted to 300m while gated
  annotated_target "$1" boost-target 'danki.dev/warmup-cpu: 300m' '{requests: {cpu: 50m}, limits: {cpu: 100m}}'
}

boost_restored() { # NS: boost-target's run raised its CPU and put it back (the operator's own RBAC did both)
  kc -n "$1" get warmupruns \
    -o jsonpath='{range .items[?(@.spec.deployment=="boost-target")]}{.status.cpuBoost.state}/{.status.cpuBoost.summary}{"\n"}{end}' \
    | grep -qx 'Restored/100m->300m'
}

pod_warmed() { # NS: some warm-target pod has danki.dev/warmed True with reason WarmedUp
  kc -n "$1" get pods -l app=warm-target \
    -o jsonpath='{range .items[*]}{range .status.conditions[?(@.type=="danki.dev/warmed")]}{.status}/{.reason}{"\n"}{end}{end}' \
    | grep -qx 'True/WarmedUp'
}

warm_diagnosis() { # NS: what the WarmupRuns and the gate say, to tell an RBAC gap from a failed warm-up
  kc -n "$1" get warmupruns \
    -o jsonpath='{range .items[*]}     run {.metadata.name}: {.status.phase} {range .status.conditions[*]}{.reason}: {.message} {end}{.status.cpuBoost.state} {.status.cpuBoost.message}{"\n"}{end}' || true
  kc -n "$1" get pods -l app=warm-target \
    -o jsonpath='{range .items[*]}     pod {.metadata.name}: {range .status.conditions[?(@.type=="danki.dev/warmed")]}{.status} {.reason} {.message}{end}{"\n"}{end}' || true
  kc -n "$1" get events --field-selector type=Warning -o custom-columns=REASON:.reason,MESSAGE:.message --no-headers \
    | sed 's/^/     event /' | tail -5 || true
}

# The jsonpath of the one-liner in NOTES and the docs that lists opted-in Deployments.
opted_in_jsonpath() {
  # shellcheck disable=SC2016 # a jsonpath, not a shell expansion
  printf '%s' '{range .items[?(@.metadata.annotations.danki\.dev/warmup=="enabled")]}{.metadata.namespace}{" "}{.metadata.name}{"\n"}{end}'
}
opted_in() { kc get deployments -A -o jsonpath="$(opted_in_jsonpath)"; }

template_gated() { # NS: warm-target's pod template carries the danki.dev/warmed readiness gate
  [[ $(kc -n "$1" get deploy warm-target -o jsonpath='{.spec.template.spec.readinessGates[*].conditionType}') == *danki.dev/warmed* ]]
}
template_ungated() { ! template_gated "$1"; }

# The repair for a Deployment left gated after uninstall (install.md): a merge patch that
# removes the label and the readiness gates. (Not `kubectl apply --server-side
# --field-manager=danki`: on a Deployment made by client-side apply, kubectl then migrates every
# field of the user's to the manager danki, and the operator's next apply would drop them.)
drop_danki_fields() { # NS NAME
  kc -n "$1" patch deployment "$2" --type=merge \
    -p '{"spec":{"template":{"metadata":{"labels":{"danki.dev/warmup":null}},"spec":{"readinessGates":null}}}}' >/dev/null
}

lease_gone() { # NS
  ! kc -n "$1" get lease "$LEASE" -o name >/dev/null 2>&1
}
operator_pods_gone() { # NS RELEASE
  [[ -z $(kc -n "$1" get pods -l "app.kubernetes.io/instance=$2" -o name) ]]
}

leftovers() { # RELEASE: every object labelled with the release, cluster-wide
  local kinds
  kinds=$(kc api-resources --verbs=list -o name | grep -vE '^(events|events\.events\.k8s\.io)$' | paste -sd, -)
  kc get "$kinds" -A -l "app.kubernetes.io/instance=$1" -o name 2>/dev/null
}
no_leftovers() { [[ -z $(leftovers "$1") ]]; }

# Objects in NS that a user would find after uninstall, other than what Kubernetes makes itself.
namespace_residue() {
  local kinds
  kinds=$(kc api-resources --verbs=list --namespaced -o name | grep -vE '^(events|events\.events\.k8s\.io)$' | paste -sd, -)
  kc -n "$1" get "$kinds" -o name 2>/dev/null \
    | grep -vxE 'serviceaccount/default|configmap/kube-root-ca.crt' || true
}

cleanup() {
  local helm=$1 rel=$2 ns=$3
  "$helm" uninstall "$rel" -n "$ns" --wait --timeout 60s >/dev/null 2>&1 || true
  kc delete namespace "$ns" "$ns-app" "$ns-other" --ignore-not-found --wait=false >/dev/null 2>&1 || true
}

run_suite() {
  local helm=$1 short=$2
  local rel="danki-e2e-$short" ns="danki-e2e-$short"
  local app="$ns-app" other="$ns-other" sa="danki-e2e-$short"
  # Template mode, explicitly: this test is about RBAC and the template opt-out and repair; webhook
  # mode (the default) is tested by the operator's WebhookE2E.
  # cpuBoost off as the baseline the rules below list (auto would turn it on here); 3b turns it on
  local common=(--namespace "$ns" --set "image.tag=$IMAGE_TAG" --set "leaderElection.leaseName=$LEASE"
    --set logging.format=text --set gateInjection=template --set cpuBoost.enabled=false --wait --timeout "${TIMEOUT}s")
  local started=$SECONDS
  echo "== $short: $("$helm" version --short)"
  # shellcheck disable=SC2064 # expand now: the trap must clean this suite's names
  trap "cleanup '$helm' '$rel' '$ns'" EXIT
  # A previous run's namespaces may still be terminating.
  "$helm" uninstall "$rel" -n "$ns" --wait --timeout 60s >/dev/null 2>&1 || true
  kc delete namespace "$ns" "$app" "$other" --ignore-not-found --timeout=120s >/dev/null
  kc create namespace "$app" >/dev/null
  kc create namespace "$other" >/dev/null

  # The CRD may already be there (another suite, or an earlier run):
  # helm 4 applies crds/ server-side even then, which conflicts with another field manager, so
  # leave an existing CRD alone (chart-crd-check has shown the chart's copy is the generated one).
  local crd_flags=()
  if crd_exists; then crd_flags=(--skip-crds); echo "     (danki's CRDs already present: installing with --skip-crds)"; fi

  # 0. a typo fails the install, naming the key (helm 4 applies crds/ before it checks values)
  local typo
  if typo=$("$helm" install "$rel" "${CHART[@]}" -n "$ns" "${crd_flags[@]}" --set replicaCont=3 2>&1); then
    fail "$short: helm install with a typo (replicaCont) must fail"; "$helm" uninstall "$rel" -n "$ns" >/dev/null 2>&1 || true
  elif grep -q replicaCont <<<"$typo" && ! "$helm" status "$rel" -n "$ns" >/dev/null 2>&1; then
    pass "$short: helm install with a typo fails, naming replicaCont, and installs no release"
  else fail "$short: helm install with a typo fails, naming replicaCont, and installs no release: $typo"; fi

  # 1. install, namespaced mode
  if "$helm" install "$rel" "${CHART[@]}" --create-namespace "${common[@]}" "${crd_flags[@]}" --set "watchNamespaces={$app}" >/dev/null; then
    pass "$short: helm install (watching $app)"
  else fail "$short: helm install (watching $app)"; kc -n "$ns" get pods -o wide || true; return; fi
  local notes
  notes=$("$helm" get notes "$rel" -n "$ns" 2>/dev/null || true)
  check "$short: NOTES say how to opt in, how to watch, how to opt out before uninstalling, and that Helm keeps the CRD" \
    notes_ok "$notes"
  check "$short: Deployment available, 2 ready replicas" \
    wait_for "$TIMEOUT" "2 ready replicas" bash -c "[[ \$('$KUBECTL' -n '$ns' get deploy '$rel' -o jsonpath='{.status.readyReplicas}') == 2 ]]"
  check "$short: operator pods run as the chart's ServiceAccount $sa" pods_use_sa "$ns" "$rel" "$sa"
  check "$short: Lease $ns/$LEASE held by one of the chart's pods" \
    wait_for "$TIMEOUT" "a leader" lease_held_by_chart_pod "$ns" "$rel"

  # 2. RBAC, exactly; the baseline is what any ServiceAccount gets on this cluster
  local baseline
  baseline=$(can_i_list "$other" "$other" "no-such-serviceaccount")
  mapfile -t watch < <(watch_rules)
  mapfile -t lease < <(lease_rules)
  expect_rules "$short: can-i --list in $app is the baseline plus the watch rules" "$app" "$ns" "$sa" "$baseline" "${watch[@]}"
  expect_rules "$short: can-i --list in $ns is the baseline plus the Lease rules" "$ns" "$ns" "$sa" "$baseline" "${lease[@]}"
  expect_rules "$short: can-i --list in $other is the baseline only" "$other" "$ns" "$sa" "$baseline"
  allowed "$app" "$ns" "$sa" patch pods --subresource=status
  # update only because JOSDK's leader election checks for it at start-up
  for verb in get update patch delete; do allowed "$ns" "$ns" "$sa" "$verb" "leases/$LEASE"; done
  for ns_ in "$app" "$ns" "$other"; do
    denied "$ns_" "$ns" "$sa" get secrets
    denied "$ns_" "$ns" "$sa" list secrets
  done
  for verb in create update patch delete deletecollection; do denied "$app" "$ns" "$sa" "$verb" pods; done
  denied "$app" "$ns" "$sa" create pods --subresource=exec
  denied "$app" "$ns" "$sa" create pods --subresource=eviction
  denied "$app" "$ns" "$sa" patch pods --subresource=resize
  for verb in create update delete; do denied "$app" "$ns" "$sa" "$verb" deployments.apps; done
  denied "$app" "$ns" "$sa" list replicasets.apps
  denied "$app" "$ns" "$sa" create events.events.k8s.io
  denied "$app" "$ns" "$sa" get configmaps
  denied "$app" "$ns" "$sa" create serviceaccounts/token
  denied "$other" "$ns" "$sa" list deployments.apps
  denied "$other" "$ns" "$sa" list pods
  for verb in update patch delete; do denied "$ns" "$ns" "$sa" "$verb" leases/some-other-lease; done
  denied "$ns" "$ns" "$sa" deletecollection leases.coordination.k8s.io
  for verb in update delete deletecollection; do denied "$app" "$ns" "$sa" "$verb" warmupruns.danki.dev; done
  denied "$app" "$ns" "$sa" update warmupruns.danki.dev --subresource=status
  for verb in list watch update delete deletecollection; do denied "$app" "$ns" "$sa" "$verb" warmuphistories.danki.dev; done
  denied "$other" "$ns" "$sa" create leases.coordination.k8s.io
  allowed "" "$ns" "$sa" get nodes
  denied "" "$ns" "$sa" list nodes
  denied "" "$ns" "$sa" watch nodes
  denied "" "$ns" "$sa" patch nodes
  denied "" "$ns" "$sa" create clusterroles.rbac.authorization.k8s.io
  denied "" "$ns" "$sa" delete customresourcedefinitions.apiextensions.k8s.io
  denied "$app" "$ns" "$sa" impersonate serviceaccounts

  # 3. the operator works with only these rules
  warm_target "$app"
  if wait_for "$TIMEOUT" "a warmed pod" pod_warmed "$app"; then
    pass "$short: the operator warms an annotated pod in $app (gate True, reason WarmedUp)"
  else fail "$short: the operator warms an annotated pod in $app (gate True, reason WarmedUp)"; warm_diagnosis "$app"; fi
  check "$short: a WarmupRun records it" bash -c "[[ -n \$('$KUBECTL' -n '$app' get warmupruns -o name) ]]"
  check "$short: the Deployment's WarmupHistory keeps the result (owned by the Deployment)" \
    wait_for 20 "the history" history_kept "$app" warm-target

  # 3b. runner pods and the CPU boost: their rights exist only while runner.enabled and
  # cpuBoost.enabled, and never reach Secrets (without the default boost, whose list and watch on
  # nodes template_test.py checks, so the cluster-wide rules stay nodes get)
  mapfile -t runner < <(watch_and_runner_rules; echo 'pods/resize [] [] [patch]')
  if "$helm" upgrade "$rel" "${CHART[@]}" "${common[@]}" --set "watchNamespaces={$app}" \
    --set runner.enabled=true --set cpuBoost.enabled=true --set cpuBoost.byDefault=false >/dev/null; then
    pass "$short: helm upgrade with runner.enabled and cpuBoost.enabled"
  else fail "$short: helm upgrade with runner.enabled and cpuBoost.enabled"; fi
  expect_rules "$short: runner.enabled and cpuBoost.enabled, can-i --list in $app is the baseline plus the watch, runner and resize rules" \
    "$app" "$ns" "$sa" "$baseline" "${runner[@]}"
  denied "$app" "$ns" "$sa" get secrets
  denied "$app" "$ns" "$sa" list configmaps
  denied "$other" "$ns" "$sa" create pods
  denied "$other" "$ns" "$sa" patch pods --subresource=resize
  check "$short: cpuBoost.enabled, the operator restarted with it" \
    wait_for "$TIMEOUT" "the rollout" "$KUBECTL" -n "$ns" rollout status "deploy/$rel" --timeout=5s
  boost_target "$app"
  if wait_for "$TIMEOUT" "a restored boost" boost_restored "$app"; then
    pass "$short: with only these rules the operator boosts a gated pod's CPU in place and restores it"
  else fail "$short: with only these rules the operator boosts a gated pod's CPU in place and restores it"; warm_diagnosis "$app"; fi

  # 4. upgrades: a second namespace, back again, then cluster-wide with no replicas
  if "$helm" upgrade "$rel" "${CHART[@]}" "${common[@]}" --set "watchNamespaces={$app,$other}" >/dev/null; then
    pass "$short: helm upgrade to watch $app and $other"
  else fail "$short: helm upgrade to watch $app and $other"; fi
  expect_rules "$short: after upgrade, can-i --list in $other has the watch rules" "$other" "$ns" "$sa" "$baseline" "${watch[@]}"
  expect_rules "$short: runner.enabled and cpuBoost.enabled off again, can-i --list in $app is the watch rules only" \
    "$app" "$ns" "$sa" "$baseline" "${watch[@]}"
  check "$short: after upgrade, the operator restarted with both namespaces" \
    wait_for "$TIMEOUT" "the rollout" "$KUBECTL" -n "$ns" rollout status "deploy/$rel" --timeout=5s
  if "$helm" upgrade "$rel" "${CHART[@]}" "${common[@]}" --set "watchNamespaces={$app}" >/dev/null; then
    pass "$short: helm upgrade back to $app only"
  else fail "$short: helm upgrade back to $app only"; fi
  check "$short: the Role and RoleBinding in $other are gone" \
    bash -c "[[ -z \$('$KUBECTL' -n '$other' get roles,rolebindings -l app.kubernetes.io/instance=$rel -o name) ]]"
  expect_rules "$short: can-i --list in $other is the baseline again" "$other" "$ns" "$sa" "$baseline"
  # Cluster-wide mode: the operator warms in a namespace where only the ClusterRole lets it in.
  if "$helm" upgrade "$rel" "${CHART[@]}" "${common[@]}" --set-json 'watchNamespaces=[]' >/dev/null; then
    pass "$short: helm upgrade to cluster-wide mode"
  else fail "$short: helm upgrade to cluster-wide mode"; fi
  expect_rules "$short: cluster-wide, can-i --list in $other is the baseline plus the watch rules" \
    "$other" "$ns" "$sa" "$baseline" "${watch[@]}"
  check "$short: cluster-wide, no Role or RoleBinding of the release in any namespace" \
    bash -c "[[ -z \$('$KUBECTL' get roles,rolebindings -A -l app.kubernetes.io/instance=$rel -o name | grep -v '/$rel-leader-election\$') ]]"
  denied "$other" "$ns" "$sa" get secrets
  check "$short: cluster-wide, the operator restarted watching every namespace" \
    wait_for "$TIMEOUT" "the rollout" "$KUBECTL" -n "$ns" rollout status "deploy/$rel" --timeout=5s
  warm_target "$other"
  if wait_for "$TIMEOUT" "a warmed pod" pod_warmed "$other"; then
    pass "$short: cluster-wide, the operator warms an annotated pod in $other (ClusterRole only)"
  else fail "$short: cluster-wide, the operator warms an annotated pod in $other (ClusterRole only)"; warm_diagnosis "$other"; fi

  # The documented opt-out before uninstalling: list, annotate -, rollout status.
  local listed
  listed=$(opted_in)
  if grep -qx "$app warm-target" <<<"$listed" && grep -qx "$other warm-target" <<<"$listed"; then
    pass "$short: the documented one-liner lists the opted-in Deployments"
  else fail "$short: the documented one-liner lists the opted-in Deployments; got: $listed"; fi
  kc -n "$other" annotate deployment warm-target danki.dev/warmup- >/dev/null
  check "$short: opting out drops the readiness gate from the template" \
    wait_for "$TIMEOUT" "the gate to go" template_ungated "$other"
  check "$short: after opting out, the rollout completes" \
    wait_for "$TIMEOUT" "the rollout" "$KUBECTL" -n "$other" rollout status deploy/warm-target --timeout=5s
  listed=$(opted_in)
  if grep -qx "$other warm-target" <<<"$listed"; then fail "$short: the one-liner no longer lists the opted-out Deployment"
  else pass "$short: the one-liner no longer lists the opted-out Deployment"; fi

  # 5. uninstall: nothing left but the CRD; the operator deletes its Lease as it stops
  if "$helm" uninstall "$rel" -n "$ns" --wait --timeout "${TIMEOUT}s" >/dev/null; then
    pass "$short: helm uninstall"
  else fail "$short: helm uninstall"; fi
  if wait_for 180 "garbage collection" no_leftovers "$rel"; then pass "$short: no object labelled with the release is left"
  else fail "$short: no object labelled with the release is left"; leftovers "$rel" | sed 's/^/     /'; fi
  # The operator deletes its Lease as it stops: wait out the pods' grace period (30 s), then a little.
  # Known gap: helm deletes the Lease Role, its binding and the ServiceAccount in the same breath
  # as the Deployment, before the pods get SIGTERM, so the stopping operator's delete can be refused
  # (403); the operator logs "lease kept" with the code. Scaling to 0 first (install.md) avoids it.
  wait_for 90 "the operator pods to stop" operator_pods_gone "$ns" "$rel" || true
  if wait_for 10 "the Lease to go" lease_gone "$ns"; then pass "$short: the Lease $ns/$LEASE is gone"
  else
    fail "$short: the Lease $ns/$LEASE is gone (the operator deletes it on a clean shutdown)"
    kc -n "$ns" get lease "$LEASE" -o jsonpath='     holder {.spec.holderIdentity}, renewed {.spec.renewTime}{"\n"}' || true
    kc -n "$ns" get pods -o name | sed 's/^/     still running: /' || true
  fi
  local residue
  # (the Lease has its own check above)
  residue=$(namespace_residue "$ns" | grep -vx "lease.coordination.k8s.io/$LEASE" || true)
  if [[ -z $residue ]]; then pass "$short: the release namespace holds nothing else from the chart or the operator"
  else fail "$short: the release namespace is not empty:"; while read -r line; do echo "     $line"; done <<<"$residue"; fi
  check "$short: the CRD stays after uninstall" crd_exists

  # The documented repair for a Deployment left opted in: it loses the gate without an operator.
  check "$short: after uninstall, $app/warm-target still has the gate (it was not opted out)" template_gated "$app"
  drop_danki_fields "$app" warm-target
  check "$short: the documented merge patch drops the gate" template_ungated "$app"
  cleanup "$helm" "$rel" "$ns"
  trap - EXIT
  echo "== $short: done in $((SECONDS - started)) s"
}

main() {
  preflight
  local h ref
  if [[ ${E2E_CHART_SOURCE:-registry} == registry ]]; then
    ref=$(HELM=$HELM3 "$REPO/charts/scripts/chart-push.sh" | tail -n 1) || die "charts/scripts/chart-push.sh failed"
    CHART=("$ref" --version "${VERSION:?make passes the chart version}" --plain-http)
  fi
  echo "== installing ${CHART[*]}"
  for h in ${E2E_CHART_HELMS:-helm3 helm4}; do
    case $h in
      helm3) [[ -x $HELM3 ]] || die "$HELM3 missing; run 'make tool-helm'"; run_suite "$HELM3" h3 ;;
      helm4) [[ -x $HELM4 ]] || die "$HELM4 missing; run 'make tool-helm'"; run_suite "$HELM4" h4 ;;
      *) die "E2E_CHART_HELMS: unknown helm '$h' (helm3 or helm4)" ;;
    esac
  done
  echo "$PASSED passed, $FAILED failed"
  ((FAILED == 0))
}

main "$@"
