#!/usr/bin/env bash
# cluster-status.sh - one line per component of a local cluster instance: running or not, PID,
# RSS, health; then the Node and the pods the agent runs. Exits 0 only when everything is up.
# Env: CLUSTER_INSTANCE, CLUSTER_DIR (see cluster-env.sh).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cluster-env.sh"

CURL_ADMIN=(--cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key")
health() {
  case $1 in
    etcd) curl -s --max-time 1 "http://127.0.0.1:$ETCD_CLIENT_PORT/health" | grep -q '"health":"true"' ;;
    kube-apiserver) [[ $(curl -s --max-time 1 "${CURL_ADMIN[@]}" "$API_URL/readyz") == ok ]] ;;
    kube-controller-manager) [[ $(curl -s --max-time 1 -k "https://127.0.0.1:$KCM_PORT/healthz") == ok ]] ;;
    kube-scheduler) [[ $(curl -s --max-time 1 -k "https://127.0.0.1:$SCHEDULER_PORT/healthz") == ok ]] ;;
    node-agent)
      [[ $("$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" --request-timeout=2s get node "$NODE_NAME" \
        -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null) == True ]] ;;
  esac
}

echo "cluster instance $I  state $CLUSTER_DIR  API $API_URL  bridge $BRIDGE ($POD_CIDR)"
up=0
for c in "${COMPONENTS[@]}"; do
  pid=$(pid_of "$c")
  if is_running "$c"; then
    rss=$(awk '/VmRSS/{printf "%d MiB", $2/1024}' "/proc/$pid/status" 2>/dev/null)
    if health "$c"; then state=healthy; up=$((up + 1)); else state=unhealthy; fi
    printf '  %-24s %-9s pid %-8s rss %s\n' "$c" "$state" "$pid" "$rss"
  else
    printf '  %-24s %s\n' "$c" "stopped"
  fi
done
netns=$(ip netns list 2>/dev/null | grep -c "^danki$I-" || true)
echo "  pod network namespaces: $netns"
if ((up == ${#COMPONENTS[@]})); then
  "$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" get nodes -o wide
  echo "KUBECONFIG=$KUBECONFIG_PATH"
  exit 0
fi
exit 1
