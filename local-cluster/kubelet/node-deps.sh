#!/usr/bin/env bash
# node-deps.sh - install the node runtime of the real-kubelet cluster from Debian's packages, pinned
# to the versions this path was tested with: containerd (with ctr), runc, the CNI plugins, and the
# image tools umoci and skopeo (images are built here, without a registry), nftables (the net agent's
# Service routing and NetworkPolicy, and cluster-down's check for its table), plus busybox-static
# (the shell and core tools of the local base image). Skips what is already installed at the pinned
# version; fails with a clear message when apt cannot install it. Called by `make node-deps`, and
# with `images` by `make image-deps`: only the image tools, for `make images` and `make test-images`.
#
# Usage: node-deps.sh [all|images]
#
# Pins are upstream versions matched as apt version globs (`containerd=1.6.20*`), so a Debian
# security rebuild of the same release still installs; another release is refused.
# containerd 1.6 is past its end of life and kubelet 1.38 drops it: see
# docs/local-cluster-real-kubelet.md, "containerd 2.x".
set -euo pipefail

RUNTIME_PINS=(
  containerd=1.6.20
  runc=1.1.5
  containernetworking-plugins=1.1.1
  nftables=1.0.6
)
IMAGE_PINS=(
  umoci=0.4.7
  skopeo=1.9.3
  busybox-static=1:1.35.0 # Debian's version carries an epoch
)
case ${1:-all} in
  all) PINS=("${RUNTIME_PINS[@]}" "${IMAGE_PINS[@]}") ;;
  images) PINS=("${IMAGE_PINS[@]}") ;;
  *) echo "usage: node-deps.sh [all|images]" >&2; exit 2 ;;
esac

# installed_version pkg: its Debian version (with epoch), empty when not installed
installed_version() { dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null | awk '$3 == "installed" {print $4}' || true; }

missing=()
for pin in "${PINS[@]}"; do
  pkg=${pin%%=*} want=${pin#*=}
  have=$(installed_version "$pkg")
  if [[ -n $have && $have == "$want"* ]]; then continue; fi
  [[ -z $have ]] || echo "node-deps: $pkg $have is installed, $want is pinned; installing $want" >&2
  missing+=("$pkg=$want*")
done
if ((${#missing[@]} == 0)); then
  echo "node-deps: ${PINS[*]%%=*} present at their pinned versions" >&2
  exit 0
fi
((EUID == 0)) || { echo "node-deps: installing ${missing[*]} needs root" >&2; exit 1; }
echo "==> installing ${missing[*]} (apt-get)" >&2
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
  cat >&2 <<MSG
node-deps: apt-get could not install ${missing[*]}.
  The real-kubelet cluster needs Debian 12's containerd 1.6.20, runc 1.1.5,
  containernetworking-plugins 1.1.1, nftables 1.0.6, umoci 0.4.7, skopeo 1.9.3 and busybox-static 1.35.0.
  Check that Debian's package archive is reachable (apt-get update), or install these versions by
  hand, then run this again. See docs/local-cluster-real-kubelet.md.
MSG
  exit 1
fi
# Debian's package enables a system containerd where systemd runs; this path runs its own per node.
for pin in "${PINS[@]}"; do
  pkg=${pin%%=*}
  have=$(installed_version "$pkg")
  [[ $have == "${pin#*=}"* ]] || { echo "node-deps: $pkg is at '${have:-none}' after apt-get, expected ${pin#*=}" >&2; exit 1; }
done
echo "node-deps: installed ${missing[*]}" >&2
