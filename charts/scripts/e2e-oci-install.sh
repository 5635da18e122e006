#!/usr/bin/env bash
# e2e-oci-install.sh - install danki as a user does, from an OCI registry, on a running local cluster
# (CLUSTER_INSTANCE, default 0): the chart pushed with chart-push.sh to the cluster's registry, the
# images pulled by the nodes from it.
#   1. helm install oci://<registry>/charts/danki --version <Chart.yaml's>: helm list shows that chart
#      version, and each operator pod's imageID is the digest the registry has for danki/operator:<appVersion>.
#   2. helm uninstall; the namespace goes.
# Not yet here (issue 30): an upgrade to a second pushed version. Scripted, `helm upgrade --wait` to a
# copy of the chart and image under another version left a pod of the old ReplicaSet running 2 min
# later in 3 runs of 3, while the same upgrade by hand rolled cleanly; not understood yet.
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
K=("$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" --request-timeout=20s)
H=(--kubeconfig "$KUBECONFIG_PATH" --namespace "$NS")
version=${VERSION:?set by make to the version in Chart.yaml}
cleanup() {
  "$HELM" uninstall "$REL" "${H[@]}" --wait --timeout 60s >/dev/null 2>&1 || true
  "${K[@]}" delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
}
trap cleanup EXIT

# listed_chart: the chart, name-version, that helm lists for the release
listed_chart() { "$HELM" list "${H[@]}" --filter "^$REL\$" -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["chart"])'; }
# operator_images: "image imageID" of each running operator pod of the release
operator_images() {
  "${K[@]}" -n "$NS" get pods -l "app.kubernetes.io/instance=$REL" --field-selector=status.phase=Running \
    -o jsonpath='{range .items[*]}{.status.containerStatuses[0].image} {.status.containerStatuses[0].imageID}{"\n"}{end}'
}
# pulled_from_registry TAG: every operator pod runs danki/operator:TAG by the registry's digest for it
pulled_from_registry() {
  local want lines
  want=$(registry_digest "danki/operator:$1")
  lines=$(operator_images)
  [[ -n $want && -n $lines ]] || { echo "     registry digest '$want', pods: '$lines'"; return 1; }
  echo "     registry: danki/operator:$1@$want"
  while IFS= read -r line; do echo "     pod: $line"; done <<<"$lines"
  ! echo "$lines" | grep -v -q -- "danki/operator:$1 docker.io/danki/operator@$want"
}

# a namespace left by an earlier run may still be terminating
"${K[@]}" delete namespace "$NS" --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1

echo "==> pushing the chart $version to the registry of instance $I"
ref=$(CLUSTER_INSTANCE=$I HELM=$HELM "$REPO/charts/scripts/chart-push.sh" | tail -n 1) || { fail "chart-push"; exit 1; }
pass "chart $version pushed: $ref"

echo "==> 1. helm install $ref --version $version"
if out=$("$HELM" install "$REL" "$ref" --version "$version" --plain-http "${H[@]}" --create-namespace \
  --set logging.format=text --wait --timeout "${TIMEOUT}s" 2>&1); then
  pass "installed from $ref"
  check "helm list shows chart danki-$version" same "$(listed_chart)" "danki-$version"
  check "the operator pods run danki/operator:$version pulled from the registry" pulled_from_registry "$version"
else
  fail "helm install from $ref: $out"
  "${K[@]}" -n "$NS" get pods -o wide
fi

echo "==> 2. helm uninstall"
check "helm uninstall" "$HELM" uninstall "$REL" "${H[@]}" --wait --timeout 60s
echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
