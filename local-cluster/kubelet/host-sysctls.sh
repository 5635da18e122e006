# shellcheck shell=bash disable=SC2154 # sourced after node-env.sh (HOST_STATE_DIR)
# host-sysctls.sh - save and restore the host kernel settings that a node changes for the whole
# machine; sourced by node-up.sh and node-down.sh.
#
# The kubelet sets six of them at start (unless protectKernelDefaults, which refuses to start where
# they differ: pkg/kubelet/cm/container_manager_linux.go, setupKernelTunables), and the CNI bridge
# plugin turns on IPv4 forwarding (isGateway); node-up turns on bridge-nf-call-iptables (Services). Several instances may run nodes at once, so the
# record is machine-wide: the first owner up saves the values, the last owner down restores them.

HOST_SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables)

# Instances come up and go down side by side (make test's two lanes): the record and its owners are
# read and changed under one lock, outside the folder that the last owner removes.
HOST_STATE_LOCK=$HOST_STATE_DIR.lock

# with_host_state_lock command...: runs command in a subshell that holds the lock (flock waits for
# the other holder); the subshell keeps the caller's errexit, and its end releases the lock
with_host_state_lock() { (flock 9 && "$@") 9>"$HOST_STATE_LOCK"; }

# save_host_sysctls owner: record the values unless an earlier owner did, and register owner
save_host_sysctls() { with_host_state_lock _save_host_sysctls "$@"; }
_save_host_sysctls() {
  local owner=$1 k
  mkdir -p "$HOST_STATE_DIR/owners"
  if [[ ! -f $HOST_STATE_DIR/sysctls ]]; then
    for k in "${HOST_SYSCTLS[@]}"; do echo "$k=$(sysctl -n "$k")"; done >"$HOST_STATE_DIR/sysctls.tmp"
    mv "$HOST_STATE_DIR/sysctls.tmp" "$HOST_STATE_DIR/sysctls"
  fi
  : >"$HOST_STATE_DIR/owners/$owner"
}

# restore_host_sysctls owner: unregister owner; the last one writes the saved values back
restore_host_sysctls() { with_host_state_lock _restore_host_sysctls "$@"; }
_restore_host_sysctls() {
  local owner=$1 line
  rm -f "$HOST_STATE_DIR/owners/$owner"
  [[ -f $HOST_STATE_DIR/sysctls ]] || return 0
  if compgen -G "$HOST_STATE_DIR/owners/*" >/dev/null; then
    echo "host sysctls stay as the kubelet set them: other real-kubelet nodes run ($(ls "$HOST_STATE_DIR/owners"))" >&2
    return 0
  fi
  while IFS= read -r line; do
    sysctl -q -w "$line" >/dev/null
  done <"$HOST_STATE_DIR/sysctls"
  echo "host sysctls restored: $(tr '\n' ' ' <"$HOST_STATE_DIR/sysctls")" >&2
  rm -rf "$HOST_STATE_DIR"
}

# host_sysctls_differ: print the settings that differ from the saved values (empty when none)
host_sysctls_differ() {
  local line k
  [[ -f $HOST_STATE_DIR/sysctls ]] || return 0
  while IFS= read -r line; do
    k=${line%%=*}
    [[ $(sysctl -n "$k") == "${line#*=}" ]] || echo "$k=$(sysctl -n "$k") (saved ${line#*=})"
  done <"$HOST_STATE_DIR/sysctls"
}
