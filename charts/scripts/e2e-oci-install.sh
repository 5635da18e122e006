#!/usr/bin/env bash
# e2e-oci-install.sh - install and upgrade danki as a user does, from an OCI registry, on a running local
# cluster (CLUSTER_INSTANCE, default 0): the chart packaged as a release packages it (chart-push.sh:
# image.registry is the registry) and pushed to the cluster's registry, the images pulled by the nodes
# from it.
#   1. helm install oci://<registry>/charts/danki --version <Chart.yaml's>: helm list shows that chart
#      version, and each operator pod runs <registry>/danki/operator:<appVersion> by the registry's digest.
#   2. a second version pushed (the chart as X.Y.Z+1-e2e, and an operator image of that tag with its own
#      digest), then helm upgrade to it: helm list shows it, the operator rolls (every pod runs the
#      second digest, no pod of the first is left), and a leader holds the Lease again.
#   3. helm uninstall.
#   4. make push's path (push.sh) to the registry under another name, <registry>/acme, as a user pushes
#      to their own: helm install oci://<registry>/acme/charts/danki --version <Chart.yaml's> as printed,
#      each operator pod runs <registry>/acme/danki/operator:<appVersion> by the digest of the image
#      built here, the runner image is there too; then helm uninstall.
#
# Env: VERSION (make passes it), HELM (default bin/helm3), KUBECTL (default bin/kubectl), CLUSTER_INSTANCE,
#      TIMEOUT (s, default 300).
# Ends with 'N passed, N failed'; exits 1 on any failure.
set -uo pipefail
# shellcheck source=local-cluster/cluster-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../local-cluster/cluster-env.sh"
# shellcheck source=local-cluster/registry/digests.sh
source "$LC_HOME/registry/digests.sh"
# shellcheck source=charts/scripts/e2e-lib.sh
source "$REPO/charts/scripts/e2e-lib.sh"
E2E_NAME=e2e-oci-install
HELM=${HELM:-$BIN/helm3}
KUBECTL=${KUBECTL:-$BIN/kubectl}
TIMEOUT=${TIMEOUT:-300}
NS=danki-oci-e2e
REL=danki-oci
LEASE=danki-operator # the chart's leaderElection.leaseName
OPERATOR=danki/operator
K=("$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" --request-timeout=20s)
H=(--kubeconfig "$KUBECONFIG_PATH" --namespace "$NS")
version=${VERSION:?set by make to the version in Chart.yaml}
[[ $version =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || die "VERSION '$version' is not X.Y.Z"
next="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.$((BASH_REMATCH[3] + 1))-e2e"
work=$(mktemp -d)
cleanup() {
  "$HELM" uninstall "$REL" "${H[@]}" --wait --timeout 60s >/dev/null 2>&1 || true
  "${K[@]}" delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# listed_chart: the chart, name-version, that helm lists for the release
listed_chart() { "$HELM" list "${H[@]}" --filter "^$REL\$" -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["chart"])'; }
# operator_images: "image imageID" of each operator pod of the release, terminating ones included
operator_images() {
  "${K[@]}" -n "$NS" get pods -l "app.kubernetes.io/instance=$REL" \
    -o jsonpath='{range .items[*]}{.spec.containers[0].image} {.status.containerStatuses[0].imageID}{"\n"}{end}'
}
# pulled_from REPOSITORY TAG DIGEST: every operator pod (2) runs <registry>/REPOSITORY:TAG by DIGEST
pulled_from() {
  local lines
  lines=$(operator_images)
  [[ -n $3 && -n $lines ]] || { echo "     digest '$3', pods: '$lines'"; return 1; }
  while IFS= read -r line; do echo "     pod: $line"; done <<<"$lines"
  [[ $(grep -c . <<<"$lines") == 2 ]] &&
    ! grep -v -q -x -F -- "$REGISTRY_ADDR/$1:$2 $REGISTRY_ADDR/$1@$3" <<<"$lines"
}
# pulled_from_registry TAG: every operator pod (2) runs <registry>/danki/operator:TAG by the registry's
# digest for that tag; pods of another image, still terminating, count against it
pulled_from_registry() {
  local want lines
  want=$(registry_digest "$OPERATOR:$1")
  lines=$(operator_images)
  [[ -n $want && -n $lines ]] || { echo "     registry digest '$want', pods: '$lines'"; return 1; }
  echo "     registry: $OPERATOR:$1@$want"
  while IFS= read -r line; do echo "     pod: $line"; done <<<"$lines"
  [[ $(grep -c . <<<"$lines") == 2 ]] &&
    ! grep -v -q -x -F -- "$REGISTRY_ADDR/$OPERATOR:$1 $REGISTRY_ADDR/$OPERATOR@$want" <<<"$lines"
}
# rolled_to TAG: as pulled_from_registry, polled until the old pods are gone (quietly)
rolled_to() { pulled_from_registry "$1" >/dev/null; }
# lease_held: the leader-election Lease names a pod of the release that exists
lease_held() {
  local holder
  holder=$("${K[@]}" -n "$NS" get lease "$LEASE" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null) || return 1
  [[ -n $holder ]] && "${K[@]}" -n "$NS" get pod "$holder" -o name >/dev/null 2>&1
}
# push_next_image: the operator image under the tag $next, with a label of its own so that its digest
# differs from the first version's (umoci on a copy in an OCI layout)
push_next_image() {
  local tls=(--src-tls-verify=false --dest-tls-verify=false)
  skopeo --insecure-policy copy --quiet "${tls[@]}" "docker://$REGISTRY_ADDR/$OPERATOR:$version" "oci:$work/image:first" &&
    umoci config --image "$work/image:first" --tag next --config.label "org.opencontainers.image.version=$next" &&
    skopeo --insecure-policy copy --quiet "${tls[@]}" "oci:$work/image:next" "docker://$REGISTRY_ADDR/$OPERATOR:$next"
}
show_pods() { "${K[@]}" -n "$NS" get pods -o wide; "${K[@]}" -n "$NS" get replicasets; }

# a namespace left by an earlier run may still be terminating
"${K[@]}" delete namespace "$NS" --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1

echo "==> pushing the chart $version to the registry of instance $I"
ref=$(CLUSTER_INSTANCE=$I HELM=$HELM "$REPO/charts/scripts/chart-push.sh" | tail -n 1) || die "chart-push failed"
pass "chart $version pushed: $ref"

echo "==> 1. helm install $ref --version $version"
if out=$("$HELM" install "$REL" "$ref" --version "$version" --plain-http "${H[@]}" --create-namespace \
  --set logging.format=text --wait --timeout "${TIMEOUT}s" 2>&1); then
  pass "installed from $ref"
  check "helm list shows chart danki-$version" same "$(listed_chart)" "danki-$version"
  check "the operator pods run $REGISTRY_ADDR/$OPERATOR:$version by the registry's digest" pulled_from_registry "$version"
else
  fail "helm install from $ref: $out"
  show_pods
  exit 1
fi

echo "==> 2. helm upgrade to a second pushed version, $next"
if push_next_image && CLUSTER_INSTANCE=$I HELM=$HELM "$REPO/charts/scripts/chart-push.sh" --version "$next" --app-version "$next" >/dev/null; then
  first=$(registry_digest "$OPERATOR:$version") second=$(registry_digest "$OPERATOR:$next")
  check "chart and image $next pushed, the image's digest its own" test -n "$second" -a "$second" != "$first"
else
  fail "pushing $next"
fi
if out=$("$HELM" upgrade "$REL" "$ref" --version "$next" --plain-http "${H[@]}" --reuse-values \
  --wait --timeout "${TIMEOUT}s" 2>&1); then
  pass "helm upgrade to $next"
  check "helm list shows chart danki-$next" same "$(listed_chart)" "danki-$next"
  # helm's --wait ends once the new ReplicaSet is available; the old pods may still be stopping.
  wait_for 120 "the old operator pods to go" rolled_to "$next"
  check "the operator rolled: both pods run $OPERATOR:$next by its digest, none of $version is left" pulled_from_registry "$next"
  check "a pod of the upgraded release holds the leader Lease" wait_for 60 "a leader" lease_held
else
  fail "helm upgrade to $next: $out"
fi
((FAILED == 0)) || show_pods

echo "==> 3. helm uninstall"
check "helm uninstall" "$HELM" uninstall "$REL" "${H[@]}" --wait --timeout 60s

echo "==> 4. make push REGISTRY=$REGISTRY_ADDR/acme, then the install it prints"
acme=$REGISTRY_ADDR/acme
if install=$(REGISTRY=$acme HELM=$HELM "$REPO/charts/scripts/push.sh" | tail -n 1); then
  pass "pushed; it prints: $install"
  check "the install it prints names oci://$acme/charts/danki --version $version" \
    same "$(awk '{print $4, $5, $6}' <<<"$install")" "oci://$acme/charts/danki --version $version"
  built=$(archive_digest "$REPO/.build/node-images/operator.tar")
  check "the runner image is pushed beside it" test -n "$(registry_digest "acme/danki/k6-runner:$version")"
  if out=$("$HELM" install "$REL" "oci://$acme/charts/danki" --version "$version" --plain-http "${H[@]}" \
    --create-namespace --set logging.format=text --wait --timeout "${TIMEOUT}s" 2>&1); then
    pass "installed from oci://$acme/charts/danki"
    check "the operator pods run $acme/$OPERATOR:$version by the digest built here" \
      pulled_from "acme/$OPERATOR" "$version" "$built"
  else
    fail "helm install from oci://$acme/charts/danki: $out"
    show_pods
  fi
  check "helm uninstall" "$HELM" uninstall "$REL" "${H[@]}" --wait --timeout 60s
else
  fail "push.sh REGISTRY=$acme"
fi
echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
