#!/usr/bin/env bash
# node-images.sh - the images of the real-kubelet cluster, built on this machine without Docker:
# a root file system in a folder, `umoci repack` into an OCI layout, `umoci config` for user, env
# and entrypoint, `skopeo copy` to an OCI archive. Each node's containerd imports the pause image;
# every other archive is pushed into the instance's registry (registry/push.sh), where pods pull it.
#
# Usage: node-images.sh build [node|base|apps|test|demo]...   build what changed (default: base) into $IMAGES_DIR
#          node: pause, which every node imports
#          base: pause, the JRE bases (for Temurin's JREs 17 and 25), the slim base (for Debian slim)
#          apps: danki/{operator,sample-service,k6-runner,spring-shop}:dev and
#                danki/{sample-service,spring-shop}-jdk25:dev from the Dockerfile's runtime stages
#                (dockerfile-stage.py), on the local bases; needs the jars and bin/k6
#          test: a Python base (the host's 3.11) and danki/{http-status,http-fetch}:dev from
#                local-cluster/images/Dockerfile
#          demo: only what make demo runs (DEMO_STAGES, image-names.sh) and their bases
#        node-images.sh import SOCKET    import the pause image into the containerd at SOCKET (k8s.io)
#        node-images.sh check            compare each app and test image with its Dockerfile stage
# Env:   REPO, BIN, K8S_VERSION (for pause.c), IMAGES_DIR (default $REPO/.build/node-images),
#        JDK_HOME (default Debian's JDK 17), JDK25_HOME (default /usr/lib/jvm/temurin-25-jdk-amd64)
#
# An image is rebuilt only when its stamp (a hash of its inputs: this script, pause.c, the JDK, the
# Debian packages and the files copied in, its base's stamp) differs from the one next to its archive.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=${REPO:-$(cd "$HERE/../.." && pwd)}
BIN=${BIN:-$REPO/bin}
export REPO BIN # read by dockerfile-stage.py
IMAGES_DIR=${IMAGES_DIR:-$REPO/.build/node-images}
# shellcheck source=image-names.sh
source "$HERE/image-names.sh"
JDK_HOME=${JDK_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JDK25_HOME=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
TEST_DOCKERFILE=$REPO/local-cluster/images/Dockerfile
# Temurin's JRE has the Java SE modules and the jdk.* runtime ones, without the development tools.
JRE_MODULES=java.se,jdk.charsets,jdk.crypto.cryptoki,jdk.crypto.ec,jdk.dynalink,jdk.httpserver,jdk.jfr,jdk.localedata,jdk.management,jdk.management.agent,jdk.management.jfr,jdk.naming.dns,jdk.naming.rmi,jdk.net,jdk.nio.mapmode,jdk.random,jdk.sctp,jdk.security.auth,jdk.security.jgss,jdk.unsupported,jdk.xml.dom,jdk.zipfs
# JDK 23 moved jdk.random into java.base.
JRE25_MODULES=${JRE_MODULES/,jdk.random/}
# Where the Dockerfile's spring-shop-jdk25-extract stage's /extracted/ is on this machine (dockerfile-stage.py).
SPRING_EXTRACT_DIR=$REPO/.build/spring-shop-jdk25-extract

log() { printf '==> %s\n' "$*" >&2; }
die() { echo "node-images: $*" >&2; exit 1; }
now_ms() { date +%s%3N; }

pause_source() {
  : "${K8S_VERSION:?set by the Makefile}"
  local dir
  dir=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
  [[ -f $dir/build/pause/linux/pause.c ]] || die "no build/pause/linux/pause.c in k8s.io/kubernetes@$K8S_VERSION ($dir)"
  echo "$dir/build/pause/linux/pause.c"
}

# stamp name inputs...: a hash of this script and the inputs' contents (files) or text (others)
stamp() {
  local name=$1 x; shift
  { cat "${BASH_SOURCE[0]}" "$HERE/image-names.sh" "$HERE/dockerfile-stage.py"; echo "$name"
    for x in "$@"; do if [[ -f $x ]]; then cat "$x"; else echo "$x"; fi; done; } | sha256sum | cut -d' ' -f1
}
is_current() { [[ -f $IMAGES_DIR/$1.tar && $(cat "$IMAGES_DIR/$1.stamp" 2>/dev/null) == "$2" ]]; }

# add_layer oci tag rootfs: one layer on top of oci:tag with what rootfs holds. Through unpack and
# repack: umoci 0.4.7's `insert` writes a layer without the last file's padding and the end blocks,
# which GNU tar and containerd's unpacker reject once that file's size is not a multiple of 512.
add_layer() {
  local oci=$1 tag=$2 rootfs=$3 bundle=$WORK/bundle
  rm -rf "$bundle"
  umoci unpack --image "$oci:$tag" "$bundle" >/dev/null
  cp -a "$rootfs/." "$bundle/rootfs/"
  umoci repack --image "$oci:$tag" "$bundle"
  rm -rf "$bundle"
}

# pack name ref rootfs config-args...: rootfs -> OCI layout (one layer) -> OCI archive name.tar.
# An OCI archive keeps the layers compressed and names each blob by its digest, so an import skips
# the base layers a node already has: half the time of a docker archive.
pack() {
  local name=$1 ref=$2 rootfs=$3; shift 3
  local oci=$WORK/oci
  rm -rf "$oci"
  umoci init --layout "$oci"
  umoci new --image "$oci:$name"
  add_layer "$oci" "$name" "$rootfs"
  umoci config --image "$oci:$name" --os linux --architecture amd64 "$@"
  rm -f "$IMAGES_DIR/$name.tar"
  skopeo --insecure-policy copy --quiet "oci:$oci:$name" "oci-archive:$IMAGES_DIR/$name.tar:$ref"
}

build_pause() {
  local src hash t0
  src=$(pause_source)
  hash=$(stamp pause "$src" "$(gcc --version | head -1)" "$(dpkg-query -W -f='${Version}' libc6-dev)")
  if is_current pause "$hash"; then log "$PAUSE_IMAGE up to date"; return; fi
  t0=$(now_ms)
  local rootfs=$WORK/pause-rootfs; mkdir -p "$rootfs"
  # The flags of build/pause/Makefile.
  gcc -Os -Wall -Werror -static -DVERSION="v$PAUSE_TAG-danki" -o "$rootfs/pause" "$src"
  strip "$rootfs/pause"
  # As the upstream image: user 65535, entrypoint /pause.
  pack pause "$PAUSE_IMAGE" "$rootfs" --config.user 65535:65535 --config.entrypoint /pause
  echo "$hash" >"$IMAGES_DIR/pause.stamp"
  log "built $PAUSE_IMAGE in $(($(now_ms) - t0)) ms ($(du -h "$IMAGES_DIR/pause.tar" | cut -f1))"
}

# copy_libs rootfs: every shared library the ELF files in rootfs need, from the host, into
# /usr/lib/x86_64-linux-gnu (the dynamic loader into /usr/lib64, reached as /lib64)
copy_libs() {
  local rootfs=$1 lib f
  local libdir=$rootfs/usr/lib/x86_64-linux-gnu
  mkdir -p "$libdir" "$rootfs/usr/lib64"
  while read -r lib; do
    cp -L "$lib" "$libdir/$(basename "$lib")"
  done < <(find "$rootfs" -type f \( -name '*.so' -o -perm -u+x \) -print0 |
    while IFS= read -r -d '' f; do
      file -b "$f" | grep -q '^ELF.*dynamic' || continue
      ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
    done | sort -u | grep -v "^$rootfs")
  # glibc loads libgcc_s at run time (thread cancellation); ldd cannot see that.
  cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$libdir/"
  cp -L /lib64/ld-linux-x86-64.so.2 "$rootfs/usr/lib64/"
  echo /usr/lib/x86_64-linux-gnu >"$rootfs/etc/ld.so.conf"
  ldconfig -r "$rootfs"
}

# base_rootfs rootfs: what every local base has: Debian's merged /usr, busybox as sh and core
# tools, root and nobody, /tmp
base_rootfs() {
  local rootfs=$1 a
  mkdir -p "$rootfs"/{usr/bin,usr/sbin,etc,opt,root} "$rootfs/tmp"
  chmod 1777 "$rootfs/tmp"
  for a in bin sbin lib lib64; do ln -s "usr/$a" "$rootfs/$a"; done
  cp /bin/busybox "$rootfs/usr/bin/busybox"
  while read -r a; do
    a=${a#/}; a=${a#usr/}
    [[ -e $rootfs/usr/$a ]] || ln -s /usr/bin/busybox "$rootfs/usr/$a"
  done < <(/bin/busybox --list-full)
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
}

# host_binary rootfs path: the host's file at path (/bin/x or /usr/bin/x) into rootfs's merged /usr, in
# place of the busybox applet link of that name
host_binary() {
  local rootfs=$1 f=$2
  rm -f "$rootfs/usr${f#/usr}"
  cp "$f" "$rootfs/usr${f#/usr}"
}

base_packages() { dpkg-query -W -f='${Package} ${Version}\n' libc6 libstdc++6 libgcc-s1 zlib1g busybox-static "$@" 2>/dev/null; }

# build_jre name ref jdk_home modules packages jlink-options...: a JRE base jlink'd from jdk_home;
# its stamp has the JDK's release file and the versions of the Debian packages named
build_jre() {
  local name=$1 ref=$2 jdk=$3 modules=$4 packages=$5 hash t0; shift 5
  [[ -x $jdk/bin/jlink ]] || die "no jlink in $jdk"
  # shellcheck disable=SC2086 # package names, none with spaces
  hash=$(stamp "$name" "$jdk/release" "$modules" "$*" "$(base_packages $packages util-linux)")
  if is_current "$name" "$hash"; then log "$ref up to date"; return; fi
  t0=$(now_ms)
  local rootfs=$WORK/$name-rootfs
  base_rootfs "$rootfs"
  mkdir -p "$rootfs/opt/java"
  "$jdk/bin/jlink" --add-modules "$modules" --output "$rootfs/opt/java/openjdk" \
    --strip-debug --no-man-pages --no-header-files "$@" >/dev/null
  # Debian's CA certificates in every JRE (in Debian's JDK cacerts is a link into /etc): the image gets the file.
  rm -f "$rootfs/opt/java/openjdk/lib/security/cacerts"
  cp -L /etc/ssl/certs/java/cacerts "$rootfs/opt/java/openjdk/lib/security/cacerts"
  # Temurin's Ubuntu has util-linux's setpriv, whose --pdeathsig the operator starts k6 with;
  # busybox's setpriv lacks it, and every warm-up would fail with k6 exit code 1.
  host_binary "$rootfs" /usr/bin/setpriv
  copy_libs "$rootfs"
  # Temurin's environment, except the locale: glibc's built-in C.UTF-8 needs no locale files.
  pack "$name" "$ref" "$rootfs" \
    --config.env JAVA_HOME=/opt/java/openjdk \
    --config.env PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --config.env LANG=C.UTF-8 \
    --config.env "JAVA_VERSION=jdk-$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$jdk/release")"
  echo "$hash" >"$IMAGES_DIR/$name.stamp"
  log "built $ref in $(($(now_ms) - t0)) ms ($(du -h "$IMAGES_DIR/$name.tar" | cut -f1))"
}

build_jre17() {
  build_jre jre "$JRE_IMAGE" "$JDK_HOME" "$JRE_MODULES" openjdk-17-jre-headless --compress=2
}

# Temurin 25 ships no jmods: its jlink links from the run-time image (JEP 493). --generate-cds-archive
# gives the JRE the default CDS archive Temurin's JRE has (lib/server/classes.jsa): an AOT cache is
# written and used without it too, but a JVM started without a cache would be slower than on Temurin's
# JRE, and the AOT cache's gain overstated. zip-6 is what --compress=2 was before JDK 21 deprecated it.
build_jre25() {
  build_jre jre25 "$JRE25_IMAGE" "$JDK25_HOME" "$JRE25_MODULES" "" --compress=zip-6 --generate-cds-archive
}

# extract_spring_shop: spring-shop's fat jar in Spring Boot's extracted layout, with the JDK 25's java,
# as the Dockerfile's spring-shop-jdk25-extract stage does (its /extracted/ is SPRING_EXTRACT_DIR).
# Extracted again only when the jar or the JDK changed: the extraction writes a new launcher jar, and
# a new one would rebuild the image.
extract_spring_shop() {
  local jar=$REPO/bench/targets/spring-shop/target/spring-shop.jar hash out=$SPRING_EXTRACT_DIR/spring-shop
  [[ -f $jar ]] || die "missing $jar (run: make bench-targets)"
  hash=$(cat "$jar" "$JDK25_HOME/release" | sha256sum | cut -d' ' -f1)
  if [[ -d $out && $(cat "$SPRING_EXTRACT_DIR.stamp" 2>/dev/null) == "$hash" ]]; then return; fi
  rm -rf "$SPRING_EXTRACT_DIR"
  mkdir -p "$SPRING_EXTRACT_DIR"
  "$JDK25_HOME/bin/java" -Djarmode=tools -jar "$jar" extract --destination "$out" >/dev/null
  echo "$hash" >"$SPRING_EXTRACT_DIR.stamp"
  log "extracted $(basename "$jar") into ${out#"$REPO"/} ($(find "$out" -type f | wc -l) files)"
}

# build_slim: the stand-in for debian:bookworm-slim (the runner base): glibc, and Debian's dash as sh and
# coreutils over busybox's applets of the same names, as the slim image has them (busybox's sh runs its
# own applets before any file on PATH). The AOT cache's verify container runs on it, and coreutils'
# sha256sum hashes a 71 MiB cache in half to two thirds of busybox's time (0.62 against 0.93-1.26 s at
# 350m CPU), time a new pod spends before its JVM starts.
build_slim() {
  local hash t0 f
  hash=$(stamp slim "$(base_packages coreutils dash)")
  if is_current slim "$hash"; then log "$SLIM_IMAGE up to date"; return; fi
  t0=$(now_ms)
  local rootfs=$WORK/slim-rootfs
  base_rootfs "$rootfs"
  while read -r f; do
    [[ -f $f && ! -L $f ]] || continue
    host_binary "$rootfs" "$f"
  done < <(dpkg -L coreutils | grep -E '^(/usr)?/s?bin/')
  host_binary "$rootfs" /usr/bin/dash
  ln -sf dash "$rootfs/usr/bin/sh"
  copy_libs "$rootfs"
  cp -L /lib/x86_64-linux-gnu/libm.so.6 "$rootfs/usr/lib/x86_64-linux-gnu/"
  pack slim "$SLIM_IMAGE" "$rootfs" --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  echo "$hash" >"$IMAGES_DIR/slim.stamp"
  log "built $SLIM_IMAGE in $(($(now_ms) - t0)) ms ($(du -h "$IMAGES_DIR/slim.tar" | cut -f1))"
}

# build_python: the slim base with Debian's Python 3.11 (interpreter, standard library without its
# tests and tools, the libraries its modules load), for the test images
build_python() {
  local hash t0 py=/usr/bin/python3.11 lib=/usr/lib/python3.11
  [[ -x $py && -d $lib ]] || die "no Debian Python 3.11 in $py and $lib (apt-get install python3.11)"
  hash=$(stamp python "$(base_packages python3.11-minimal libpython3.11-stdlib)")
  if is_current python "$hash"; then log "$PYTHON_IMAGE up to date"; return; fi
  t0=$(now_ms)
  local rootfs=$WORK/python-rootfs
  base_rootfs "$rootfs"
  cp "$py" "$rootfs/usr/bin/python3.11"
  ln -s python3.11 "$rootfs/usr/bin/python3"
  mkdir -p "$rootfs/usr/lib"
  cp -a "$lib" "$rootfs/usr/lib/"
  rm -rf "$rootfs/usr/lib/python3.11"/{test,idlelib,tkinter,turtledemo,ensurepip,lib2to3,config-3.11-x86_64-linux-gnu}
  copy_libs "$rootfs"
  pack python "$PYTHON_IMAGE" "$rootfs" --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --config.env LANG=C.UTF-8
  echo "$hash" >"$IMAGES_DIR/python.stamp"
  log "built $PYTHON_IMAGE in $(($(now_ms) - t0)) ms ($(du -h "$IMAGES_DIR/python.tar" | cut -f1))"
}

# base_of ARG: the local base archive standing in for the Dockerfile's base image ARG
base_of() {
  case $1 in
    JRE_IMAGE) echo jre ;;
    JRE25_IMAGE) echo jre25 ;;
    RUNNER_BASE_IMAGE) echo slim ;;
    PYTHON_IMAGE) echo python ;;
    *) die "no local base image for the Dockerfile's $1" ;;
  esac
}

# build_app dockerfile stage: a runtime stage on its local base: one layer with the stage's files,
# the stage's config over the base's (dockerfile-stage.py), tagged danki/<stage>:dev
build_app() {
  local dockerfile=$1 stage=$2 hash t0 base files
  local ref=danki/$stage:$APP_TAG stage_py=$HERE/dockerfile-stage.py
  # the base's ARG on the first line, then the files the stage copies
  files=$("$stage_py" inputs "$dockerfile" "$stage") || die "cannot build $ref (see above)"
  base=$(base_of "${files%%$'\n'*}")
  if [[ $files == *$'\n'* ]]; then files=${files#*$'\n'}; else files=; fi
  # shellcheck disable=SC2086 # one path a line, none with spaces
  hash=$(stamp "$stage" "$dockerfile" "$(cat "$IMAGES_DIR/$base.stamp")" "${files:+$(sha256sum $files)}")
  if is_current "$stage" "$hash"; then log "$ref up to date"; return; fi
  t0=$(now_ms)
  local rootfs=$WORK/$stage-rootfs oci=$WORK/oci
  mkdir -p "$rootfs"
  "$stage_py" stage "$dockerfile" "$stage" "$rootfs" >"$WORK/$stage.plan.json"
  rm -rf "$oci"
  skopeo --insecure-policy copy --quiet "oci-archive:$IMAGES_DIR/$base.tar" "oci:$oci:$stage"
  add_layer "$oci" "$stage" "$rootfs"
  "$stage_py" config "$oci" "$stage" "$WORK/$stage.plan.json"
  rm -f "$IMAGES_DIR/$stage.tar"
  skopeo --insecure-policy copy --quiet "oci:$oci:$stage" "oci-archive:$IMAGES_DIR/$stage.tar:docker.io/$ref"
  echo "$hash" >"$IMAGES_DIR/$stage.stamp"
  log "built $ref in $(($(now_ms) - t0)) ms ($(du -h "$IMAGES_DIR/$stage.tar" | cut -f1))"
}

# build_bases: the pause image and the bases the app images are built on (JRE 17, JRE 25, the slim one).
build_bases() { build_pause; build_jre17; build_jre25; build_slim; }

build() {
  for t in gcc umoci skopeo ldconfig file python3; do command -v "$t" >/dev/null || die "$t is needed (make node-deps)"; done
  mkdir -p "$IMAGES_DIR"
  WORK=$(mktemp -d "$IMAGES_DIR/.work.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
  local what st
  for what in "${@:-base}"; do
    case $what in
      node) build_pause ;;
      base) build_bases ;;
      apps) extract_spring_shop; for st in "${APP_STAGES[@]}"; do build_app "$REPO/Dockerfile" "$st"; done ;;
      test) build_python; for st in "${TEST_STAGES[@]}"; do build_app "$TEST_DOCKERFILE" "$st"; done ;;
      demo) build_bases; for st in "${DEMO_STAGES[@]}"; do build_app "$REPO/Dockerfile" "$st"; done ;;
      *) die "unknown image set: $what (node|base|apps|test|demo)" ;;
    esac
  done
}

check() {
  local st df rc=0
  for st in "${APP_STAGES[@]}" "${TEST_STAGES[@]}"; do
    df=$REPO/Dockerfile
    [[ " ${TEST_STAGES[*]} " != *" $st "* ]] || df=$TEST_DOCKERFILE
    [[ -f $IMAGES_DIR/$st.tar ]] || die "missing $IMAGES_DIR/$st.tar (run: make images)"
    if "$HERE/dockerfile-stage.py" check "$df" "$st" "$IMAGES_DIR/$st.tar"; then
      log "danki/$st:$APP_TAG matches the $st stage of ${df#"$REPO"/}"
    else rc=1; fi
  done
  return $rc
}

# import socket: the pause image into that containerd's k8s.io namespace (the CRI's). It is part of
# the node, as a kind node image carries it: every pod's sandbox needs it, so a node runs pods without
# a pull. Every other image comes from the instance's registry (which has the pause image as well).
import() {
  local sock=$1
  [[ -f $IMAGES_DIR/pause.tar ]] || die "missing $IMAGES_DIR/pause.tar (run: make node-images)"
  ctr --address "$sock" --namespace k8s.io images import "$IMAGES_DIR/pause.tar" >/dev/null
}

case ${1:-} in
  build) shift; build "$@" ;;
  import) [[ -n ${2:-} ]] || die "usage: node-images.sh import SOCKET"; import "$2" ;;
  check) check ;;
  *) echo "usage: node-images.sh build [node|base|apps|test|demo]... | import SOCKET | check" >&2; exit 2 ;;
esac
