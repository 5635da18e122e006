#!/usr/bin/env bash
# Test of kubelet/host-sysctls.sh under instances that come up and go down at once, as make test's
# two lanes do: 4 owners each save and restore 25 times side by side. Each call must succeed (an
# earlier version lost a race on its temporary file: "mv: cannot stat .../sysctls.tmp", and node-up
# failed), and the last owner down must leave nothing behind. `sysctl` is a stub over files in a scratch
# folder, so the host's settings are never read or written. Ends with 'ok' or a FAIL line; exits 1 on
# failure.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
OWNERS=4
ROUNDS=25

HOST_STATE_DIR=$SCRATCH/state
# shellcheck source=../kubelet/host-sysctls.sh
source "$HERE/../kubelet/host-sysctls.sh"
# shellcheck disable=SC2317 # called by host-sysctls.sh
sysctl() { # the stub: -n KEY reads, -q -w KEY=VALUE writes
  case $1 in
    -n) cat "$SCRATCH/sysctl/$2" ;;
    -q) local kv=$3; echo "${kv#*=}" >"$SCRATCH/sysctl/${kv%%=*}" ;;
    *) echo "sysctl stub: unexpected $*" >&2; return 2 ;;
  esac
}
mkdir -p "$SCRATCH/sysctl"
for k in "${HOST_SYSCTLS[@]}"; do echo 0 >"$SCRATCH/sysctl/$k"; done

# owner N: one instance's node-up and node-down, ROUNDS times
owner() {
  local i
  for ((i = 0; i < ROUNDS; i++)); do
    save_host_sysctls "instance-$1"
    # what the kubelet does while its nodes run
    echo 1 >"$SCRATCH/sysctl/vm.overcommit_memory"
    restore_host_sysctls "instance-$1" 2>/dev/null
  done
}

pids=()
for ((n = 0; n < OWNERS; n++)); do
  owner "$n" >"$SCRATCH/owner-$n.log" 2>&1 &
  pids+=($!)
done
failed=0
for n in "${!pids[@]}"; do
  if ! wait "${pids[$n]}"; then
    echo "FAIL owner $n: $(tail -1 "$SCRATCH/owner-$n.log")"
    failed=1
  fi
done
if [[ -e $SCRATCH/state ]]; then
  echo "FAIL the last owner down left $(find "$SCRATCH/state" | tr '\n' ' ')"
  failed=1
fi
# the last restore wrote back what the first save read, though owners changed it in between
if [[ $(cat "$SCRATCH/sysctl/vm.overcommit_memory") != 0 ]]; then
  echo "FAIL vm.overcommit_memory is $(cat "$SCRATCH/sysctl/vm.overcommit_memory") after the last restore, not 0"
  failed=1
fi
((failed == 0)) || exit 1
echo "ok: $OWNERS owners x $ROUNDS rounds of save and restore side by side"
