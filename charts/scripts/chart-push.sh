#!/usr/bin/env bash
# chart-push.sh - package charts/danki as a release does (chart-package.sh, image.registry set to the
# registry) and push it, as an OCI artifact, to the registry of a running local cluster
# (CLUSTER_INSTANCE, default 0), where a user's command finds it:
#   helm install danki oci://127.0.0.1:5000/charts/danki --version 0.1.0 --plain-http
# The nodes then pull 127.0.0.1:5000/danki/operator:<appVersion> from that registry. Plain HTTP: the
# registry serves loopback only.
#
#   charts/scripts/chart-push.sh [--version V --app-version V]
#
# The options package the chart under another version (chart-package.sh). Env: HELM (default
# bin/helm3), CLUSTER_INSTANCE. Prints the chart's oci:// reference, without the version, as its last line.
set -euo pipefail
# shellcheck source=local-cluster/cluster-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../local-cluster/cluster-env.sh"
# shellcheck source=local-cluster/cluster-components.sh
source "$LC_HOME/cluster-components.sh"
HELM=${HELM:-$BIN/helm3}

healthy registry || {
  echo "chart-push: no registry answers at $REGISTRY_ADDR (make cluster-up CLUSTER_INSTANCE=$I first)" >&2
  exit 1
}
archive=$(HELM=$HELM "$REPO/charts/scripts/chart-package.sh" --registry "$REGISTRY_ADDR" "$@" "$REPO/.work/charts" | tail -n 1)
"$HELM" push "$archive" "oci://$REGISTRY_ADDR/charts" --plain-http >&2
echo "oci://$REGISTRY_ADDR/charts/danki"
