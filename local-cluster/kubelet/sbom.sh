#!/usr/bin/env bash
# sbom.sh - an SPDX JSON SBOM of each image built here (make images: OCI archives in .build/node-images),
# written by syft to .build/sbom/<archive>.spdx.json. The release pipeline's buildx attaches SBOMs on
# GitHub (docs/releasing.md); this writes the same kind for the images make test runs, so that
# make test-images (sbom_check.py) finds a dependency an SBOM leaves out before a release does.
# Called by `make sbom`.
#
# Usage: sbom.sh
# Env:   REPO, BIN, IMAGES_DIR (default $REPO/.build/node-images), SBOM_DIR (default $REPO/.build/sbom)
#
# An SBOM newer than its archive and than bin/syft is kept: a rebuilt image or a new syft writes it again.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=${REPO:-$(cd "$HERE/../.." && pwd)}
BIN=${BIN:-$REPO/bin}
IMAGES_DIR=${IMAGES_DIR:-$REPO/.build/node-images}
SBOM_DIR=${SBOM_DIR:-$REPO/.build/sbom}
SYFT=$BIN/syft
# shellcheck source=image-names.sh
source "$HERE/image-names.sh"
# No internet here: syft's update check would only wait for a time-out.
export SYFT_CHECK_FOR_APP_UPDATE=false

log() { printf '==> %s\n' "$*" >&2; }
die() { echo "sbom: $*" >&2; exit 1; }

[[ -x $SYFT ]] || die "no $SYFT (run: make tool-syft)"
shopt -s nullglob
tars=("$IMAGES_DIR"/*.tar)
((${#tars[@]})) || die "no image archives in $IMAGES_DIR (run: make images)"
mkdir -p "$SBOM_DIR"

# The SBOM names the image by its first reference in the registry (danki/operator:dev), not by the
# archive's path on this machine.
declare -A ref=()
while read -r archive r; do [[ -n ${ref[$archive]:-} ]] || ref[$archive]=$r; done < <(registry_images)

written=0 kept=0
for tar in "${tars[@]}"; do
  name=$(basename "$tar" .tar)
  out=$SBOM_DIR/$name.spdx.json
  if [[ $out -nt $tar && $out -nt $SYFT ]]; then kept=$((kept + 1)); continue; fi
  r=${ref[$name]:-danki/$name:$APP_TAG}
  # Through a temporary file, so an interrupted scan leaves no SBOM newer than its archive.
  "$SYFT" scan --quiet "oci-archive:$tar" --source-name "${r%:*}" --source-version "${r##*:}" \
    --output "spdx-json=$out.tmp" || die "syft failed on $tar"
  mv "$out.tmp" "$out"
  log "sbom $name ($r): $(du -k "$out" | cut -f1) KiB"
  written=$((written + 1))
done
log "$written SBOM(s) written, $kept unchanged, in $SBOM_DIR"
