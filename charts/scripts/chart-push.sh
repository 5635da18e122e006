#!/usr/bin/env bash
# chart-push.sh - package charts/danki and push it, as an OCI artifact, to the registry of a running
# local cluster (CLUSTER_INSTANCE, default 0), where a user's command finds it:
#   helm install danki oci://127.0.0.1:5000/charts/danki --version 0.1.0 --plain-http
# The version is Chart.yaml's (helm package reads it). Plain HTTP: the registry serves loopback only.
#
# Env: HELM (default bin/helm3), CLUSTER_INSTANCE, CHART_VERSION and CHART_APP_VERSION (default:
#      Chart.yaml's; to push a chart under another version).
# Prints the chart's oci:// reference, without the version, as its last line.
set -euo pipefail
# shellcheck source=local-cluster/cluster-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../local-cluster/cluster-env.sh"
HELM=${HELM:-$BIN/helm3}

curl -fsS --max-time 3 "http://$REGISTRY_ADDR/v2/" >/dev/null || {
  echo "chart-push: no registry answers at $REGISTRY_ADDR (make cluster-up CLUSTER_INSTANCE=$I first)" >&2
  exit 1
}
out=$REPO/.work/charts
mkdir -p "$out"
flags=()
[[ -z ${CHART_VERSION:-} ]] || flags+=(--version "$CHART_VERSION")
[[ -z ${CHART_APP_VERSION:-} ]] || flags+=(--app-version "$CHART_APP_VERSION")
packaged=$("$HELM" package "$REPO/charts/danki" -d "$out" "${flags[@]}")
archive=${packaged##*: }
[[ -f $archive ]] || { echo "chart-push: helm package said '$packaged'" >&2; exit 1; }
"$HELM" push "$archive" "oci://$REGISTRY_ADDR/charts" --plain-http >&2
echo "oci://$REGISTRY_ADDR/charts/danki"
