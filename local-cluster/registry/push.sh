#!/usr/bin/env bash
# push.sh - push the images built here (make images: OCI archives in .build/node-images) into a
# local-cluster instance's registry under every tag its pods name (kubelet/image-names.sh,
# registry_images), as a release pipeline pushes to a real one. A tag that already names the
# archive's manifest is left alone, so a run with nothing rebuilt only asks the registry.
# Called by cluster-up.sh once its registry answers, and by `make images` for each running instance.
#
# Usage: push.sh [--if-running]   with --if-running, an instance whose registry is not running is
#                                 skipped (make images, which runs with or without a cluster)
# Env:   CLUSTER_INSTANCE, CLUSTER_DIR (see cluster-env.sh), IMAGES_DIR (default $REPO/.build/node-images)
#
# skopeo copies with --preserve-digests, so the digest a pod's imageID shows is the archive's own.
set -euo pipefail
# shellcheck source=../cluster-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-env.sh"
# shellcheck source=../cluster-components.sh
source "$LC_HOME/cluster-components.sh"
# shellcheck source=../kubelet/image-names.sh
source "$LC_HOME/kubelet/image-names.sh"
# shellcheck source=digests.sh
source "$LC_HOME/registry/digests.sh"
IMAGES_DIR=${IMAGES_DIR:-$REPO/.build/node-images}

T0=$(date +%s%N)
elapsed() { local ms=$((($(date +%s%N) - T0) / 1000000)); printf '%d.%02d' $((ms / 1000)) $((ms % 1000 / 10)); }
log() { printf '[%6ss] registry %s: %s\n' "$(elapsed)" "$REGISTRY_ADDR" "$*" >&2; }
die() { echo "registry push: $*" >&2; exit 1; }

if [[ ${1:-} == --if-running ]] && ! is_running registry; then exit 0; fi
command -v skopeo >/dev/null || die "skopeo is needed (make image-deps)"
healthy registry || die "the registry of instance $I does not answer on $REGISTRY_ADDR (cluster-up starts it)"

copy() { # from to: skopeo copy into the registry; plain HTTP, digests kept or the copy fails
  skopeo --insecure-policy copy --quiet --preserve-digests --src-tls-verify=false --dest-tls-verify=false "$1" "$2"
}

declare -A digest=() held=() # archive -> its manifest digest; -> a reference in the registry that has it
pushed=0 present=0
images=$(registry_images)
while read -r archive ref; do
  tar=$IMAGES_DIR/$archive.tar
  if [[ ! -f $tar ]]; then
    # make node-images builds the pause image, every node's; the others come with make images (every
    # image) or make demo-images (the demo's), and a pod whose image is missing fails to pull it.
    [[ $archive != pause ]] || die "missing $tar (run: make node-images)"
    continue
  fi
  [[ -n ${digest[$archive]:-} ]] || digest[$archive]=$(archive_digest "$tar")
  want=${digest[$archive]}
  if [[ $(registry_digest "$ref") == "$want" ]]; then
    present=$((present + 1)) held[$archive]=$ref
    continue
  fi
  # A second tag of an image already pushed is copied within the registry: no archive to unpack.
  from=oci-archive:$tar
  [[ -z ${held[$archive]:-} ]] || from=docker://$REGISTRY_ADDR/${held[$archive]}
  copy "$from" "docker://$REGISTRY_ADDR/$ref" || die "pushing $archive.tar as $ref failed"
  got=$(registry_digest "$ref")
  [[ $got == "$want" ]] || die "$ref is ${got:-missing} in the registry after the push, the archive has $want"
  log "pushed $ref ($want)"
  pushed=$((pushed + 1)) held[$archive]=$ref
done <<<"$images"
log "$pushed tag(s) pushed, $present already there"
