#!/usr/bin/env bash
# smoke.sh - quick check that a running local cluster can run pods (default: the shared instance
# 0), for `make test-e2e` before the end-to-end suites: every Node is Ready, one danki/http-status
# pod becomes Ready, answers curl on its pod IP, and is cleaned up. Every wait is bounded.
# Prints `N passed, N failed` last; exits non-zero on failure.
set -uo pipefail
# shellcheck disable=SC1091 # sourced relative to this script
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-env.sh"
K=("$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" --request-timeout=10s)
NS=cluster-smoke
PASSED=0 FAILED=0
check() { local what=$1; shift; if "$@"; then PASSED=$((PASSED + 1)); echo "PASS  $what"; else FAILED=$((FAILED + 1)); echo "FAIL  $what"; fi; }
nodes_ready() { [[ -n $("${K[@]}" get nodes -o name 2>/dev/null) ]] && "${K[@]}" wait node --all --for=condition=Ready --timeout=30s >/dev/null; }
trap '"${K[@]}" delete namespace $NS --wait=false >/dev/null 2>&1 || true' EXIT

check "every node of instance $I is Ready (make cluster-up first)" nodes_ready
if ((FAILED == 0)); then
  "${K[@]}" create namespace $NS >/dev/null 2>&1
  for ((n = 0; n < 120; n++)); do "${K[@]}" -n $NS get serviceaccount default >/dev/null 2>&1 && break; sleep 0.25; done
  "${K[@]}" -n $NS run smoke --image=danki/http-status:dev --port=8080 \
    --overrides='{"spec":{"containers":[{"name":"smoke","image":"danki/http-status:dev","readinessProbe":{"tcpSocket":{"port":8080},"periodSeconds":1}}]}}' >/dev/null
  check "an http-status pod becomes Ready within 60 s" "${K[@]}" -n $NS wait pod/smoke --for=condition=Ready --timeout=60s
  ip=$("${K[@]}" -n $NS get pod smoke -o jsonpath='{.status.podIP}')
  check "it answers on its pod IP ($ip)" bash -c "[[ \$(curl -s --max-time 3 http://$ip:8080/) == 200* ]]"
fi
echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
