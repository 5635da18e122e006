#!/usr/bin/env bash
# build-tools.sh - build danki's pinned tools (k6, helm 3 and 4, etcd, the Kubernetes
# control-plane binaries, the kubelet, the OCI registry, CoreDNS, actionlint and syft) from source through the Go module proxy only:
# no release downloads, because our machines reach nothing but the package registries. Called by `make tools`.
#
# Usage: build-tools.sh [etcd|k8s|kubelet|registry|coredns|k6|helm|helm4|actionlint|syft|cluster|all]...   (default: all)
#        cluster: what a local cluster and its suites need (etcd, k8s, kubelet, registry, coredns, k6)
# Env:   PREFIX   where throwaway Go modules live (default: <repo>/.build)
#        BIN      where binaries are written      (default: <repo>/bin)
#
# Idempotent: a binary that already exists in $BIN with the pinned version is
# skipped; delete it to rebuild. Needs Go >= 1.26 (k8s 1.37, helm 3.22/4.3, etcd
# 3.7 all declare `go 1.26.0`).
# Measured on 2 cores / 24 GiB, empty GOCACHE, modules already downloaded, in
# this order: k6 128 s, helm3+helm4 356 s, etcd 32 s, the five k8s binaries 635 s
# (~19 min total, another job was using CPU too). Disk: ~6 GB GOCACHE + ~2 GB
# module cache. Peak RSS of one go build step ~2.6 GB. The registry: 5 min 19 s (niced, beside a
# Maven build, load 8 to 12; its modules downloaded beforehand). syft v1.57.1: 5 min 59 s niced with a
# GOCACHE of its own, empty (load 5 to 17; its modules downloaded beforehand, 58 s), 1.1 GB of cache,
# peak RSS 1.3 GB.
# CoreDNS v1.15.0 (4 plugins): 53 s with client-go's modules already downloaded; 2.6 min from empty
# module and build caches, in a first make demo (whose caches then held 430 MB of modules, 645 MB of builds).
set -euo pipefail

# ---- pinned versions: set once, in the Makefile, and passed in ---------------
: "${K6_VERSION:?set by the Makefile}" "${HELM3_VERSION:?}" "${HELM4_VERSION:?}" "${ETCD_VERSION:?}"
: "${K8S_VERSION:?}" "${K8S_STAGING_VERSION:?}" "${DISTRIBUTION_VERSION:?}" "${ACTIONLINT_VERSION:?}" "${SYFT_VERSION:?}"
: "${COREDNS_VERSION:?}"
HELM3_K8S_MINOR=${HELM3_K8S_MINOR:-37}  # helm v3.22.0 is built against k8s.io/client-go v0.37.0
K8S_CMDS=(kube-apiserver kube-controller-manager kube-scheduler kubectl)  # the kubelet: build_kubelet

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${PREFIX:-$REPO/.build}
BIN=${BIN:-$REPO/bin}
export GOFLAGS=${GOFLAGS:--buildvcs=false}
export CGO_ENABLED=0
mkdir -p "$BIN"

log() { printf '==> %s\n' "$*" >&2; }

# has_version BINARY VERSION ARGS...: true if `$BIN/BINARY ARGS` prints VERSION
has_version() {
  local b=$1 v=$2 out; shift 2
  [[ -x "$BIN/$b" ]] || return 1
  out=$("$BIN/$b" "$@" 2>/dev/null) || return 1   # no `| grep -q`: SIGPIPE + pipefail
  [[ $out == *"$v"* ]]
}

build_k6() {
  if has_version k6 "$K6_VERSION" version; then log "k6 $K6_VERSION present"; return; fi
  log "building k6 $K6_VERSION"
  GOBIN="$BIN" go install -trimpath -ldflags='-s -w' "go.k6.io/k6@$K6_VERSION"
}

# actionlint (make lint-workflows) reads its version from the Go build info, so a plain
# `go install` reports the pinned version.
build_actionlint() {
  if has_version actionlint "$ACTIONLINT_VERSION" -version; then log "actionlint $ACTIONLINT_VERSION present"; return; fi
  log "building actionlint $ACTIONLINT_VERSION"
  GOBIN="$BIN" go install -trimpath -ldflags='-s -w' "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
}

# CNCF Distribution's registry, which serves each local-cluster instance's images. Its go.mod has no
# replace directives, so plain `go install` works. The -X flags are its Makefile's: without them
# `registry --version` says "v3.1.2+unknown".
build_registry() {
  if has_version registry "$DISTRIBUTION_VERSION" --version; then log "registry $DISTRIBUTION_VERSION present"; return; fi
  log "building registry $DISTRIBUTION_VERSION"
  local pkg=github.com/distribution/distribution/v3
  GOBIN="$BIN" go install -trimpath \
    -ldflags="-s -w -X $pkg/version.version=$DISTRIBUTION_VERSION -X $pkg/version.mainpkg=$pkg" \
    "$pkg/cmd/registry@$DISTRIBUTION_VERSION"
}

# CoreDNS, each local-cluster instance's cluster DNS (cluster.local from its API server). Built from a
# throwaway module whose main is coredns.go's with only the plugins the Corefile uses
# (local-cluster/cluster-dns.sh): the full set links the cloud providers' SDKs, dnstap, quic and more,
# which a cold machine would download and compile for nothing. -version prints CoreDNS-<version>.
COREDNS_PLUGINS=(bind errors ready kubernetes)
build_coredns() {
  local d="$PREFIX/corednstools" p present=1
  has_version coredns "CoreDNS-${COREDNS_VERSION#v}" -version || present=0
  for p in "${COREDNS_PLUGINS[@]}"; do has_version coredns "$p" -plugins || present=0; done
  if ((present)); then log "coredns $COREDNS_VERSION present"; return; fi
  log "building coredns $COREDNS_VERSION (plugins: ${COREDNS_PLUGINS[*]})"
  mkdir -p "$d"
  printf 'module danki.local/corednstools\n\ngo 1.26.0\n\nrequire github.com/coredns/coredns %s\n' \
    "$COREDNS_VERSION" >"$d/go.mod"
  {
    printf '// Written by tools/build-tools.sh: CoreDNS with the plugins the local cluster uses.\npackage main\n\nimport (\n'
    for p in "${COREDNS_PLUGINS[@]}"; do printf '\t_ "github.com/coredns/coredns/plugin/%s"\n' "$p"; done
    printf '\n\t"github.com/coredns/coredns/coremain"\n)\n\nfunc main() { coremain.Run() }\n'
  } >"$d/main.go"
  (cd "$d" && go mod tidy &&
   go build -trimpath -ldflags="-s -w -X github.com/coredns/coredns/coremain.GitCommit=$COREDNS_VERSION" \
     -o "$BIN/coredns" .)
}

# syft (make sbom). Its go.mod has no replace directives, so plain `go install` works. The -X flag and
# the tags are its .goreleaser.yaml's: without the flag `syft version` says "[not provided]"; the
# release passes the version without its "v".
build_syft() {
  if has_version syft "${SYFT_VERSION#v}" version; then log "syft $SYFT_VERSION present"; return; fi
  log "building syft $SYFT_VERSION"
  GOBIN="$BIN" go install -trimpath -tags containers_image_openpgp,exclude_graphdriver_btrfs \
    -ldflags="-s -w -X main.version=${SYFT_VERSION#v}" \
    "github.com/anchore/syft/cmd/syft@$SYFT_VERSION"
}

# helm 3 and 4 have no replace directives: plain `go install` works. Both
# binaries are called "helm", so install into a scratch GOBIN and rename.
# build_helm4 builds helm 4 alone (bin/helm), for what installs with one helm: the demo.
build_helm4() { build_helm "4 $HELM4_VERSION"; }
build_helm() {
  local v mod name ver p versions=("$@")
  ((${#versions[@]})) || versions=("3 $HELM3_VERSION" "4 $HELM4_VERSION")
  for v in "${versions[@]}"; do
    read -r mod ver <<<"$v"; name=helm$mod
    if has_version "$name" "$ver" version --short; then log "$name $ver present"; continue; fi
    log "building $name $ver"
    local tmp="$PREFIX/.gobin-$name"; mkdir -p "$tmp"
    # Same -X flags as helm's Makefile; without them `helm version` says "v3.22"
    # and helm 3 assumes Kubernetes v1.20 for .Capabilities / deprecation lint.
    # (helm 4 reads the client-go version from the Go build info by itself.)
    local vpkg="helm.sh/helm/v$mod/internal/version"
    local ld="-s -w -X $vpkg.version=$ver -X $vpkg.gitTreeState=clean"
    if [[ $mod == 3 ]]; then
      for p in pkg/lint/rules pkg/chartutil; do
        ld+=" -X helm.sh/helm/v3/$p.k8sVersionMajor=1 -X helm.sh/helm/v3/$p.k8sVersionMinor=$HELM3_K8S_MINOR"
      done
    fi
    GOBIN="$tmp" go install -trimpath -ldflags="$ld" "helm.sh/helm/v$mod/cmd/helm@$ver"
    mv "$tmp/helm" "$BIN/$name"; rmdir "$tmp"
  done
  ln -sf helm4 "$BIN/helm"
}

# etcd's server/ and etcdctl/ go.mod files carry `replace ... => ../api` etc.,
# so `go install go.etcd.io/etcd/server/v3@...` is refused. A throwaway module
# that requires them works, because replace directives of dependencies are ignored.
build_etcd() {
  if has_version etcd "${ETCD_VERSION#v}" --version && has_version etcdctl "${ETCD_VERSION#v}" version; then
    log "etcd $ETCD_VERSION present"; return
  fi
  log "building etcd/etcdctl $ETCD_VERSION"
  local d="$PREFIX/etcdtools"; mkdir -p "$d"
  cat >"$d/go.mod" <<EOF
module danki.local/etcdtools

go 1.26.0

require (
	go.etcd.io/etcd/server/v3 $ETCD_VERSION
	go.etcd.io/etcd/etcdctl/v3 $ETCD_VERSION
)

tool (
	go.etcd.io/etcd/server/v3
	go.etcd.io/etcd/etcdctl/v3
)
EOF
  (cd "$d" && go mod tidy &&
   go build -trimpath -ldflags='-s -w' -o "$BIN/etcd" go.etcd.io/etcd/server/v3 &&
   go build -trimpath -ldflags='-s -w' -o "$BIN/etcdctl" go.etcd.io/etcd/etcdctl/v3)
}

# k8s.io/kubernetes replaces every k8s.io/* staging module with ./staging/...;
# a consumer module must replace them all with the published v0.Y.Z tags.
# The list is read from k8s.io/kubernetes's own go.mod.
build_k8s() { build_k8s_cmds k8stools kubernetes "${K8S_CMDS[@]}"; }

# The kubelet has a throwaway module of its own, so the control plane's module stays as it is.
# Measured: 1 min 51 s on 2 cores (load 7 to 10) after the control plane's build warmed the cache.
build_kubelet() { build_k8s_cmds kubelettools kubelet kubelet; }

# build_k8s_cmds module-dir label cmd...: build the k8s.io/kubernetes commands not already in $BIN
# at $K8S_VERSION, from a throwaway module in $PREFIX/module-dir.
build_k8s_cmds() {
  local dir=$1 label=$2; shift 2
  local cmds=("$@") missing=() c
  for c in "${cmds[@]}"; do
    case $c in
      kubectl) has_version "$c" "$K8S_VERSION" version --client || missing+=("$c") ;;
      *)       has_version "$c" "$K8S_VERSION" --version || missing+=("$c") ;;
    esac
  done
  if ((${#missing[@]} == 0)); then log "$label $K8S_VERSION present"; return; fi
  log "building ${missing[*]} $K8S_VERSION"
  local d="$PREFIX/$dir"; mkdir -p "$d"
  local kmod
  kmod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
  {
    printf 'module danki.local/%s\n\ngo 1.26.0\n\ngodebug default=go1.26\n\n' "$dir"
    printf 'require k8s.io/kubernetes %s\n\ntool (\n' "$K8S_VERSION"
    for c in "${cmds[@]}"; do printf '\tk8s.io/kubernetes/cmd/%s\n' "$c"; done
    printf ')\n\nreplace (\n'
    sed -n '/^replace (/,/^)/p' "$kmod" |
      awk -v v="$K8S_STAGING_VERSION" '/=>/ {printf "\t%s => %s %s\n", $1, $1, v}'
    printf ')\n'
  } >"$d/go.mod"
  (cd "$d" && go mod tidy)
  # Same flags as hack/lib/golang.sh for a release build (static, stripped).
  local ld="" p minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
  for p in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    ld+=" -X '$p.gitVersion=$K8S_VERSION' -X '$p.gitMajor=1' -X '$p.gitMinor=$minor'"
    ld+=" -X '$p.gitTreeState=clean' -X '$p.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)'"
  done
  local pkgs=(); for c in "${missing[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  (cd "$d" && go build -trimpath -tags selinux,notest,grpcnotrace \
     -ldflags "all=$ld -s -w" -o "$BIN/" "${pkgs[@]}")
}

# locked TOOL: build TOOL holding its own lock. make test's lanes can ask for the same tool at once (the
# Go builds' lane and the lint's, say, both for k6); the second waits for the first, then finds the
# binary present at its version and skips it. A lock per tool, so other tools build meanwhile.
# A second name is the lock's (helm4 builds what helm does, so it waits on helm's lock).
locked() {
  local fd
  exec {fd}>"$BIN/.build-${2:-$1}.lock"
  flock "$fd"
  "build_$1"
  exec {fd}>&-
}

cluster=(etcd k8s kubelet registry coredns k6)
all=("${cluster[@]}" helm actionlint syft)  # a cluster's own tools first
targets=("$@"); ((${#targets[@]})) || targets=(all)
for t in "${targets[@]}"; do
  case $t in
    k6 | helm | etcd | k8s | kubelet | registry | coredns | actionlint | syft) locked "$t" ;;
    helm4) locked helm4 helm ;;
    cluster) for tool in "${cluster[@]}"; do locked "$tool"; done ;;
    all) for tool in "${all[@]}"; do locked "$tool"; done ;;
    *) echo "unknown target: $t (etcd|k8s|kubelet|registry|coredns|k6|helm|helm4|actionlint|syft|cluster|all)" >&2; exit 2 ;;
  esac
done
