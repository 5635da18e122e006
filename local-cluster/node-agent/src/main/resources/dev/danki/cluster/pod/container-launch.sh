# container-launch.sh - prepares a container's file system, then execs its command. The node agent
# runs it with `sh -c` inside `ip netns exec`, which gives it a private mount namespace that is a
# slave of the host's: what it mounts here is never seen by the host.
#
#   sh -c "$(cat container-launch.sh)" launch <stage> <workdir> <repo> [<source> <target> ro|rw]... -- <argv>...
#
# Each <source> (a host file or folder: a volume, the service-account files, the termination-log
# file) is bind-mounted at <target>, parents before children. The host's file system is the
# container's, so a <target> that does not exist must not be created on the host (no
# /dev/termination-log in the host's /dev, no /scripts in its /): its nearest existing parent gets a
# private tmpfs layer showing the same entries ("shadow"), and the target is made in that layer.
# A process never sees a mount over its own root, so when that parent is / itself, a private copy
# of / is built under <stage> and the command runs chrooted into it. <stage> is an empty host folder
# for the mount points this needs. Fails with exit status 111 and a message in the container log.
#
# <repo> holds the images' files (the catalog's commands run from it). A volume mounted over one of
# its parents, such as the chart's /tmp emptyDir over a clone under /tmp, must not hide it: then the
# mounts go into a private copy of / (where the host's paths, and so the later sources, stay
# readable until the chroot) and <repo> is mounted back at its own path inside that volume.

stage=$1 workdir=$2 repo=$(realpath -m -- "$3")
shift 3
root=""     # the private copy of / once one was needed, else empty
private=" " # folders (as the container sees them) where making a new entry touches no host folder
count=0

fail() {
  echo "container launch: $*" >&2
  exit 111
}

# replicate <from> <to>: fills the empty tmpfs <to> with every entry of <from>: folders as recursive
# bind mounts (with what is mounted below them), files, sockets and FIFOs as bind mounts (the same
# live inodes), symbolic links and device nodes as copies (equivalent, and one cp for all).
replicate() {
  from=$1 to=$2
  set --
  for entry in "$from"/* "$from"/.[!.]* "$from"/..?*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    name=${entry##*/}
    if [ -L "$entry" ] || [ -c "$entry" ] || [ -b "$entry" ]; then
      set -- "$@" "$entry"
    elif [ -d "$entry" ]; then
      # -p: mount itself may have made its /run/mount in a fresh /run layer already
      mkdir -p "$to/$name" && mount --rbind "$entry" "$to/$name" || return 1
    else
      : >"$to/$name" && mount --bind "$entry" "$to/$name" || return 1
    fi
  done
  [ $# -eq 0 ] || cp -a "$@" "$to/"
}

# shadow <dir>: gives the existing folder <dir> a private tmpfs layer with the same entries.
shadow() {
  copy=$stage/shadow$count
  count=$((count + 1))
  { mkdir -p "$copy" && mount --rbind "$root$1" "$copy"; } || fail "cannot copy $1"
  mount -t tmpfs -o "mode=$(stat -c %a "$root$1")" danki-private "$root$1" || fail "cannot shadow $1"
  replicate "$copy" "$root$1" || fail "cannot fill the private layer of $1"
  private="$private$1 "
}

# private_root: a private copy of /, entered by chroot when the command starts.
private_root() {
  { mkdir -p "$stage/host-root" "$stage/root" && mount --rbind / "$stage/host-root"; } || fail "cannot copy /"
  mount -t tmpfs -o mode=755 danki-root "$stage/root" || fail "cannot make a private /"
  replicate "$stage/host-root" "$stage/root" || fail "cannot fill the private /"
  root=$stage/root
  private="$private/ "
}

# make_target <target> d|f: creates the missing <target> (a folder or a file) in private space.
make_target() {
  target=$1 kind=$2
  [ -e "$root$target" ] && return 0
  parent=${target%/*}
  while [ ! -d "$root${parent:-/}" ]; do parent=${parent%/*}; done
  parent=${parent:-/}
  case $private in
    *" $parent "*) ;;
    *) if [ "$parent" = / ]; then private_root; else shadow "$parent"; fi ;;
  esac
  path=${parent%/} rest=${target#"$parent"}
  rest=${rest#/}
  while [ -n "$rest" ]; do
    path=$path/${rest%%/*}
    case $rest in */*) rest=${rest#*/} ;; *) rest="" ;; esac
    if [ -z "$rest" ] && [ "$kind" = f ]; then
      : >"$root$path" || fail "cannot create $path"
    else
      mkdir "$root$path" || fail "cannot create $path"
      private="$private$path "
    fi
  done
}

while [ $# -gt 0 ] && [ "$1" != -- ]; do
  # symbolic links resolved as the host's / has them, which a private copy repeats (/var/run -> /run)
  source=$1 target=$(realpath -m -- "$2") access=$3
  shift 3
  hides_repo=false
  case $repo/ in "${target%/}"/?*) hides_repo=true ;; esac
  if [ "$hides_repo" = true ] && [ -z "$root" ]; then private_root; fi
  if [ -d "$source" ]; then make_target "$target" d; else make_target "$target" f; fi
  mount --bind "$source" "$root$target" || fail "cannot mount $source at $target"
  if [ "$access" = ro ]; then
    mount -o remount,bind,ro "$root$target" || fail "cannot make $target read-only"
  fi
  # an entry made inside a mounted volume lands in that volume's own folder, not in a host folder
  private="$private$target "
  if [ "$hides_repo" = true ]; then
    make_target "$repo" d
    mount --bind "$repo" "$root$repo" || fail "cannot mount $repo back inside $target"
  fi
done
shift

if [ -n "$root" ]; then exec chroot "$root" env -C "$workdir" "$@"; fi
cd "$workdir" || fail "cannot enter $workdir"
exec "$@"
