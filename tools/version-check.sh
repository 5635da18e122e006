#!/usr/bin/env bash
# version-check.sh - danki has one version for the chart, the images and the CLI (docs/releasing.md):
# charts/danki/Chart.yaml's `version`. Its `appVersion` (the image tag the chart installs), the parent
# POM's danki.version (what the operator and `danki version` report) and any v* tag on HEAD (what the
# release workflow publishes) must equal it. `make lint-version` runs this; so does the release
# workflow, which also passes the tag it was started for.
#
# Usage: version-check.sh VERSION [TAG]   VERSION: Chart.yaml's version, as the Makefile read it
# Prints one line; exits 1 when anything disagrees, naming every value.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(($# == 1 || $# == 2)) || { echo "usage: version-check.sh VERSION [TAG]" >&2; exit 2; }
version=$1
release_tag=${2:-}

app_version=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$REPO/charts/danki/Chart.yaml")
pom_version=$(sed -n 's:^ *<danki.version>\(.*\)</danki.version>.*:\1:p' "$REPO/pom.xml")
# A tarball or a shallow copy without git has no tags to check.
tags=()
if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
  mapfile -t tags < <(git -C "$REPO" tag --points-at HEAD --list 'v*')
fi
[[ -z $release_tag || " ${tags[*]} " == *" $release_tag "* ]] || tags+=("$release_tag")

found="Chart.yaml version '$version', appVersion '$app_version', pom.xml danki.version '$pom_version'"
agree=true
[[ -n $version && $app_version == "$version" && $pom_version == "$version" ]] || agree=false
for tag in "${tags[@]}"; do
  found+=", tag '$tag'"
  [[ $tag == "v$version" ]] || agree=false
done

if $agree; then
  echo "version-check: $version everywhere (${#tags[@]} v* tag(s) checked)"
else
  echo "version-check: versions disagree: $found; set them all to one X.Y.Z, tag vX.Y.Z (docs/releasing.md)" >&2
  exit 1
fi
