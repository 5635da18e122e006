#!/usr/bin/env bash
# node-images.sh - the images of the real-kubelet cluster, built on this machine without a registry:
# a root file system in a folder, `umoci insert` into an OCI layout, `umoci config` for user, env
# and entrypoint, `skopeo copy` to a docker archive; each node's containerd imports the archives.
#
# Usage: node-images.sh build            build the images whose inputs changed (into $IMAGES_DIR)
#        node-images.sh import SOCKET    import every archive into the containerd at SOCKET (k8s.io)
# Env:   REPO, K8S_VERSION (for pause.c), IMAGES_DIR (default $REPO/.build/node-images)
#
# An image is rebuilt only when its stamp (a hash of its inputs: this script, pause.c, the JDK and
# the Debian packages copied in) differs from the one written next to its archive.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=${REPO:-$(cd "$HERE/../.." && pwd)}
IMAGES_DIR=${IMAGES_DIR:-$REPO/.build/node-images}
# shellcheck source=image-names.sh
source "$HERE/image-names.sh"
JDK_HOME=${JDK_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
# Temurin's JRE has the Java SE modules and the jdk.* runtime ones, without the development tools.
JRE_MODULES=java.se,jdk.charsets,jdk.crypto.cryptoki,jdk.crypto.ec,jdk.dynalink,jdk.httpserver,jdk.jfr,jdk.localedata,jdk.management,jdk.management.agent,jdk.management.jfr,jdk.naming.dns,jdk.naming.rmi,jdk.net,jdk.nio.mapmode,jdk.random,jdk.sctp,jdk.security.auth,jdk.security.jgss,jdk.unsupported,jdk.xml.dom,jdk.zipfs

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
  { cat "${BASH_SOURCE[0]}" "$HERE/image-names.sh"; echo "$name"
    for x in "$@"; do if [[ -f $x ]]; then cat "$x"; else echo "$x"; fi; done; } | sha256sum | cut -d' ' -f1
}
is_current() { [[ -f $IMAGES_DIR/$1.tar && $(cat "$IMAGES_DIR/$1.stamp" 2>/dev/null) == "$2" ]]; }

# pack name ref rootfs config-args...: rootfs -> OCI layout (one layer) -> docker archive name.tar
pack() {
  local name=$1 ref=$2 rootfs=$3; shift 3
  local oci=$WORK/oci
  rm -rf "$oci"
  umoci init --layout "$oci"
  umoci new --image "$oci:$name"
  umoci insert --image "$oci:$name" "$rootfs" /
  umoci config --image "$oci:$name" --os linux --architecture amd64 "$@"
  rm -f "$IMAGES_DIR/$name.tar"
  skopeo --insecure-policy copy --quiet "oci:$oci:$name" "docker-archive:$IMAGES_DIR/$name.tar:$ref"
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

build_jre() {
  local hash t0
  [[ -x $JDK_HOME/bin/jlink ]] || die "no jlink in $JDK_HOME (Debian's openjdk-17-jdk-headless)"
  hash=$(stamp jre "$JDK_HOME/release" "$JRE_MODULES" \
    "$(dpkg-query -W -f='${Package} ${Version}\n' libc6 libstdc++6 libgcc-s1 zlib1g busybox-static openjdk-17-jre-headless 2>/dev/null)")
  if is_current jre "$hash"; then log "$JRE_IMAGE up to date"; return; fi
  t0=$(now_ms)
  local rootfs=$WORK/jre-rootfs a
  mkdir -p "$rootfs"/{usr/bin,usr/sbin,etc,opt/java,root} "$rootfs/tmp"
  chmod 1777 "$rootfs/tmp"
  # Debian's merged /usr, as in Ubuntu noble, Temurin's base.
  for a in bin sbin lib lib64; do ln -s "usr/$a" "$rootfs/$a"; done
  "$JDK_HOME/bin/jlink" --add-modules "$JRE_MODULES" --output "$rootfs/opt/java/openjdk" \
    --strip-debug --no-man-pages --no-header-files --compress=2
  # Debian's cacerts is a link into /etc; the image gets the file.
  rm -f "$rootfs/opt/java/openjdk/lib/security/cacerts"
  cp -L /etc/ssl/certs/java/cacerts "$rootfs/opt/java/openjdk/lib/security/cacerts"
  cp /bin/busybox "$rootfs/usr/bin/busybox"
  while read -r a; do
    a=${a#/}; a=${a#usr/}
    [[ -e $rootfs/usr/$a ]] || ln -s /usr/bin/busybox "$rootfs/usr/$a"
  done < <(/bin/busybox --list-full)
  copy_libs "$rootfs"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
  # Temurin's environment, except the locale: glibc's built-in C.UTF-8 needs no locale files.
  pack jre "$JRE_IMAGE" "$rootfs" \
    --config.env JAVA_HOME=/opt/java/openjdk \
    --config.env PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --config.env LANG=C.UTF-8 \
    --config.env "JAVA_VERSION=jdk-$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$JDK_HOME/release")"
  echo "$hash" >"$IMAGES_DIR/jre.stamp"
  log "built $JRE_IMAGE in $(($(now_ms) - t0)) ms ($(du -h "$IMAGES_DIR/jre.tar" | cut -f1))"
}

build() {
  for t in gcc umoci skopeo ldconfig file; do command -v "$t" >/dev/null || die "$t is needed (make node-deps)"; done
  mkdir -p "$IMAGES_DIR"
  WORK=$(mktemp -d "$IMAGES_DIR/.work.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
  build_pause
  build_jre
}

# import socket: every archive into that containerd's k8s.io namespace (the CRI's)
import() {
  local sock=$1 f
  for f in "$IMAGES_DIR"/pause.tar "$IMAGES_DIR"/jre.tar; do
    [[ -f $f ]] || die "missing $f (run: make node-images)"
    ctr --address "$sock" --namespace k8s.io images import "$f" >/dev/null
  done
}

case ${1:-} in
  build) build ;;
  import) [[ -n ${2:-} ]] || die "usage: node-images.sh import SOCKET"; import "$2" ;;
  *) echo "usage: node-images.sh build | import SOCKET" >&2; exit 2 ;;
esac
