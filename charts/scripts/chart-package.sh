#!/usr/bin/env bash
# chart-package.sh - package charts/danki as a release does: `helm package`, the version and appVersion
# from Chart.yaml, and image.registry set to the registry its images are published to, so that
#   helm install danki oci://<registry>/charts/danki --version X.Y.Z
# pulls danki's images from that same registry with no --set. The working tree's chart keeps an empty
# image.registry (Docker Hub-style names, which the local cluster's nodes also resolve).
#
#   charts/scripts/chart-package.sh [--registry REGISTRY] [--app-version V --version V] OUTDIR
#
# --version and --app-version (both or neither) package the chart under another version: the upgrade
# test's second version. Env: HELM (default bin/helm3). Prints the archive's path as its last line.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HELM=${HELM:-$REPO/bin/helm3}
registry="" version="" app_version=""
while (($#)); do
  case $1 in
    --registry) registry=${2:?--registry needs a value}; shift 2 ;;
    --version) version=${2:?--version needs a value}; shift 2 ;;
    --app-version) app_version=${2:?--app-version needs a value}; shift 2 ;;
    -*) echo "chart-package: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
(($# == 1)) || { echo "usage: $0 [--registry REGISTRY] [--version V --app-version V] OUTDIR" >&2; exit 2; }
[[ -z $version && -z $app_version || -n $version && -n $app_version ]] || { echo "chart-package: --version and --app-version go together" >&2; exit 2; }
out=$1
mkdir -p "$out"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$REPO/charts/danki" "$work/danki"
# One line each to change, found exactly: a changed values.yaml or Chart.yaml fails here, not later.
python3 - "$work/danki" "$registry" <<'PY'
import re, sys
chart, registry = sys.argv[1], sys.argv[2]
path = f"{chart}/values.yaml"
text = open(path).read()
pattern = re.compile(r'^(image:\n(?:  .*\n|\n)*?  registry: )""$', re.M)
if len(pattern.findall(text)) != 1:
    sys.exit(f"chart-package: {path} has no single image.registry: \"\" line to set")
open(path, "w").write(pattern.sub(lambda m: m.group(1) + (f'"{registry}"'), text))
PY
if [[ -n $version ]]; then
  sed -i -E "s/^version: .*/version: $version/; s/^appVersion: .*/appVersion: \"$app_version\"/" "$work/danki/Chart.yaml"
fi
packaged=$("$HELM" package "$work/danki" -d "$out")
archive=${packaged##*: }
[[ -f $archive ]] || { echo "chart-package: helm package said '$packaged'" >&2; exit 1; }

# What a user gets: the packaged chart renders the operator's image from the registry.
image=$("$HELM" template danki "$archive" | sed -n 's/^ *image: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' | head -n 1)
want="${registry:+$registry/}danki/operator:"
[[ $image == "$want"* ]] || { echo "chart-package: the packaged chart renders image '$image', not $want..." >&2; exit 1; }
echo "$archive"
