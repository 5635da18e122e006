#!/usr/bin/env bash
# acceptance.sh - acceptance test of the local cluster (issue 2, items 1-5, and what runner pods
# need: volumes, termination messages, deadlines, NetworkPolicies), on its own instance
# (CLUSTER_INSTANCE, default 9) so the shared default cluster is never touched. The parts in
# acceptance/, one idea each, run in this order in one shell, sharing the cluster:
#  cluster-up         1. cold cluster-up, the Node is Ready, a second cluster-up does nothing
#  replicas           2. two replicas get distinct 198.18.x.x IPs, answer curl, fill the EndpointSlice
#  readiness-gate     3. gated pods stay out until the gate is True; the agent keeps the gate
#  missing-image      5. an image not in the catalog gives ErrImagePull naming the catalog
#  in-cluster-client  a pod's kubectl reaches the API server as its service account
#  volumes            configMap, secret, emptyDir and subPath mounts; a missing ConfigMap waits
#  termination-message  termination messages (file, custom path, log fallback, lastState); Never, OnFailure
#  active-deadline    a pod past activeDeadlineSeconds ends Failed, DeadlineExceeded
#  network-policy     egress (ipBlock) and ingress (podSelector, named port) policies; delete restores
#  probes             liveness restarts, also of a container that ignores SIGTERM
#  jvm-start          how long a JVM pod takes to be Ready (measured only)
#  deletion           4. deletion kills processes, removes the netns and the host's neighbour entry;
#                     shorter grace wins; scale to 0
#  address-rest       a deleted pod's address is not handed out again at once
#  status-writes      a quiet pod's status is not rewritten (same resourceVersion over 40 s)
#  restart-and-down   4. warm cluster-up, agent crash and restart, cluster-down leaves nothing
# Prints `N passed, N failed` last; exits non-zero on any failure. Every wait is bounded.
set -uo pipefail
export CLUSTER_INSTANCE=${CLUSTER_INSTANCE:-9}
((CLUSTER_INSTANCE != 0)) || { echo "refusing to run on the shared default instance 0" >&2; exit 2; }
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../cluster-env.sh
source "$HERE/../cluster-env.sh"
export CLUSTER_DIR KUBECONFIG=$KUBECONFIG_PATH
K=("$KUBECTL" --request-timeout=10s)
NS=acceptance
# shellcheck source=acceptance/lib.sh
source "$HERE/acceptance/lib.sh"

cleanup() { "$LC_HOME/cluster-down.sh" >/dev/null 2>&1 || true; }
trap cleanup EXIT

echo "== local-cluster acceptance test on instance $I (state $CLUSTER_DIR)"
"$LC_HOME/cluster-down.sh" >/dev/null 2>&1 || true
rm -rf "$CLUSTER_DIR"

PARTS=(cluster-up replicas readiness-gate missing-image in-cluster-client volumes termination-message active-deadline
  network-policy probes jvm-start deletion address-rest status-writes restart-and-down)
for part in "${PARTS[@]}"; do
  echo "-- $part"
  part_start=$(now_ms)
  # shellcheck source=/dev/null # one of acceptance/*.sh
  source "$HERE/acceptance/$part.sh"
  note "($part: $(secs $(($(now_ms) - part_start))) s)"
done

echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
