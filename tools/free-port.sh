#!/usr/bin/env bash
# free-port.sh - sourced: free_port prints a loopback port that nothing listens on, for the throwaway
# servers our tests start on the host (tools/postgres.sh, sample-service/scripts/service.sh).
#
# The ports are drawn above every fixed port of the local clusters, which may run beside those servers
# (make test runs the PostgreSQL tests beside the end-to-end lane): the kubelets' are
# 30000 + 100 * instance + ... (local-cluster/kubelet/node-env.sh), up to 32099.
free_port() {
  local port
  for port in $(shuf -i 33000-45000 -n 50); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  echo "free_port: no free loopback port found in 50 tries" >&2
  return 1
}
