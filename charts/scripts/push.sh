#!/usr/bin/env bash
# push.sh - publish this clone's build to a registry of your own, as a release publishes to
# ghcr.io/<owner>/danki: danki's images (the operator's and the runner's, built here from the
# Dockerfile without Docker by `make images`) under the chart's appVersion, then the chart, packaged
# with image.registry set to that registry (chart-package.sh), so that
#   helm install danki oci://REGISTRY/charts/danki --version <Chart.yaml's version>
# pulls the images from where the chart came from, with no --set.
#
#   REGISTRY=registry.example.com/danki charts/scripts/push.sh      (make push REGISTRY=...)
#
# Env: REGISTRY (host[:port][/path], required), PLAIN_HTTP (1: the registry serves plain HTTP, as the
#      local cluster's does; default 1 for 127.0.0.1 and localhost only), HELM (default bin/helm3),
#      IMAGES_DIR (default .build/node-images). Credentials: skopeo's (`skopeo login REGISTRY` or
#      REGISTRY_AUTH_FILE) for the images, `helm registry login` for the chart.
# Prints the install command as its last line.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HELM=${HELM:-$REPO/bin/helm3}
IMAGES_DIR=${IMAGES_DIR:-$REPO/.build/node-images}
# What the chart pulls: the operator (image.repository) and the runner pods' (runner.image.repository).
IMAGES=(operator k6-runner)
die() { echo "push: $*" >&2; exit 1; }

registry=${REGISTRY:-}
[[ -n $registry ]] || die "set REGISTRY to where the images and the chart go, e.g. make push REGISTRY=registry.example.com/danki"
[[ $registry =~ ^[a-z0-9.-]+(:[0-9]+)?(/[a-z0-9._-]+)*$ ]] ||
  die "REGISTRY '$registry' is not host[:port][/path] (lower case, no scheme, no trailing /)"
host=${registry%%/*}
plain=${PLAIN_HTTP:-}
if [[ -z $plain ]]; then
  case ${host%%:*} in 127.0.0.1 | localhost) plain=1 ;; *) plain=0 ;; esac
fi
command -v skopeo >/dev/null || die "skopeo is needed (make image-deps)"
[[ -x $HELM ]] || die "$HELM is missing (make tool-helm)"
version=$(sed -n 's/^version: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$REPO/charts/danki/Chart.yaml")
app_version=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$REPO/charts/danki/Chart.yaml")
[[ -n $version && -n $app_version ]] || die "no version or appVersion in charts/danki/Chart.yaml"

tls=(--dest-tls-verify=true) helm_tls=()
if [[ $plain == 1 ]]; then tls=(--dest-tls-verify=false) helm_tls=(--plain-http); fi
for image in "${IMAGES[@]}"; do
  archive=$IMAGES_DIR/$image.tar
  [[ -f $archive ]] || die "missing $archive (run: make images)"
  ref=$registry/danki/$image:$app_version
  # the digest a pod's imageID shows is the archive's own
  skopeo --insecure-policy copy --quiet --preserve-digests "${tls[@]}" "oci-archive:$archive" "docker://$ref" ||
    die "pushing $image to $ref failed (logged in? skopeo login $host)"
  echo "push: $ref" >&2
done

archive=$(HELM=$HELM "$REPO/charts/scripts/chart-package.sh" --registry "$registry" "$REPO/.work/push" | tail -n 1)
"$HELM" push "$archive" "oci://$registry/charts" "${helm_tls[@]}" >&2 ||
  die "pushing the chart to oci://$registry/charts failed (logged in? helm registry login $host)"
echo "push: oci://$registry/charts/danki:$version" >&2
echo "helm install danki oci://$registry/charts/danki --version $version${helm_tls:+ --plain-http} --namespace danki-system --create-namespace"
