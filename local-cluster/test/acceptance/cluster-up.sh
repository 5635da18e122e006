# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# Item 1: cluster-up from cold, the Node is Ready, a second cluster-up says so and does nothing.

t=$(now_ms)
UP_ERR=$(mktemp)
up_out=$("$LC_HOME/cluster-up.sh" 2>"$UP_ERR"; echo "rc=$?") || true
COLD_MS=$(($(now_ms) - t))
check "1. cold cluster-up succeeds and prints KUBECONFIG=$KUBECONFIG_PATH" \
  grep -qx "KUBECONFIG=$KUBECONFIG_PATH" <<<"$up_out"
if ! grep -q "rc=0" <<<"$up_out"; then
  tail -30 "$UP_ERR"
  rm -f "$UP_ERR"
  echo "$PASSED passed, $FAILED failed"
  exit 1
fi
rm -f "$UP_ERR"
note "cold cluster-up: $(secs $COLD_MS) s (new certificates, empty etcd)"
check "1. kubectl get nodes shows $NODE_NAME Ready" node_ready
"${K[@]}" get nodes
t=$(now_ms)
again=$("$LC_HOME/cluster-up.sh" 2>&1)
check "1. a second cluster-up says the cluster is running and does nothing ($(secs $(($(now_ms) - t))) s)" \
  grep -q "already running" <<<"$again"
check "1. cluster-status reports every component healthy" "$LC_HOME/cluster-status.sh" >/dev/null

"${K[@]}" create namespace "$NS" >/dev/null
until_true 30 "${K[@]}" -n "$NS" get serviceaccount default >/dev/null 2>&1
