#!/usr/bin/env bash
# real-kubelet.sh - acceptance test of the local cluster, real kubelets on containerd (issue 25): the
# wiring is ours to test, the kubelet's behaviour is not. On its own instance (CLUSTER_INSTANCE,
# default 20) with CLUSTER_NODES=3 nodes of NODE_CPU=500m and NODE_MEMORY=1Gi each, the parts in real-kubelet/ run in
# this order in one shell:
#  cluster-up      cold cluster-up, three Nodes Ready, each node's allocatable CPU is its budget; the
#                  registry holds every image, and each node's containerd pulls from it
#  base-image      a pod of the local JRE image runs as user 65532 and is Ready; logs and exec work
#  cpu-budget      a CPU-bound pod on a 0.5-CPU node gets at most ~0.55 CPU (its cpuacct over 5 s)
#  memory-budget   on a 1Gi node a 600 MB buffer fits and a 1300 MB one is OOM-killed
#  readiness-gate  a gated pod stays out of its Service's EndpointSlice (ready=false) until the gate is True
#  services        a pod reads the API through https://10.96.0.1 with its token; ClusterIPs route on and across nodes
#  dns             CoreDNS is pods' nameserver: Services resolve by name on two nodes, a pod reaches one by its
#                  short name, an unknown name is NXDOMAIN at once; no MissingClusterDNS Event
#  network-policy  ingress and egress policies deny and allow, from a container's first instant; net agent restart
#  restart         node 3's containerd (SIGKILL) and kubelet (SIGTERM) restarted; its pod keeps running
#  storage         a claim on the storage class danki-local binds; a pod as 65532 writes through it, one on another node reads
#  app-images      danki's images from the Dockerfile's stages match them and run (when built); each
#                  pod's imageID is the registry's digest for its tag; a missing image is ErrImagePull
#  deletion        deleted pods go: processes, cgroups, network namespaces
#  crash           nodes 1 and 2 lose kubelet and containerd to SIGKILL under running pods; node 3 runs one
#  down            cluster-down leaves no process, mount, netns, link, cgroup, shim socket, nft table or volume folder; the sysctls are back;
#                  the registry is stopped, its storage kept and garbage-collected
# Prints `N passed, N failed` last; exits non-zero on any failure. Every wait is bounded; the
# instance is taken down on exit, whatever happened.
set -uo pipefail
export CLUSTER_INSTANCE=${CLUSTER_INSTANCE:-20} CLUSTER_NODES=3 NODE_CPU=500m NODE_MEMORY=1Gi
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../cluster-env.sh
source "$HERE/../cluster-env.sh"
# shellcheck source=../kubelet/node-env.sh
source "$LC_HOME/kubelet/node-env.sh"
# shellcheck source=../kubelet/host-sysctls.sh
source "$LC_HOME/kubelet/host-sysctls.sh"
# shellcheck source=../cluster-components.sh
source "$LC_HOME/cluster-components.sh"
# shellcheck source=../registry/config.sh
source "$LC_HOME/registry/config.sh"
# shellcheck source=../registry/digests.sh
source "$LC_HOME/registry/digests.sh"
IMAGES_DIR=${IMAGES_DIR:-$REPO/.build/node-images}
export CLUSTER_DIR KUBECONFIG=$KUBECONFIG_PATH
K=("$KUBECTL" --request-timeout=10s)
NS=real-kubelet
# shellcheck source=real-kubelet/lib.sh
source "$HERE/real-kubelet/lib.sh"

cleanup() { "$LC_HOME/cluster-down.sh" >/dev/null 2>&1 || true; }
trap cleanup EXIT

echo "== real-kubelet acceptance test on instance $I (state $CLUSTER_DIR)"
"$LC_HOME/cluster-down.sh" >/dev/null 2>&1 || true
rm -rf "$CLUSTER_DIR"
# What the host looks like before: the down part compares the same after cluster-down.
# shellcheck disable=SC2034 # used by the parts
SYSCTLS_BEFORE=$(for k in "${HOST_SYSCTLS[@]}"; do echo "$k=$(sysctl -n "$k")"; done)
# shellcheck disable=SC2034 # used by the parts
NETNS_BEFORE=$(ip netns list 2>/dev/null | awk '{print $1}' | sort)
# A killed shim leaves its socket file in /run/containerd/s with nobody listening on it; the live
# shims of other instances (started or stopped meanwhile) listen on theirs. Orphans from before are not ours.
orphan_shim_sockets() { comm -23 <(find /run/containerd/s -type s 2>/dev/null | sort) <(ss -xlH 2>/dev/null | awk '{print $5}' | sort -u); }
# shellcheck disable=SC2034 # used by the parts
ORPHAN_SHIM_SOCKETS_BEFORE=$(orphan_shim_sockets)

# web_pod NAME NODE LABEL: a pod of the JRE base on node NODE (1..3) labelled LABEL (key=value) that
# answers its own name on port 8080 (busybox httpd) and is Ready once it listens; the services and
# network-policy parts serve with it.
web_pod() {
  local name=$1 node=$2 label=$3
  cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: $name, labels: {${label%=*}: "${label#*=}"}}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n$node}
  terminationGracePeriodSeconds: 1
  securityContext: {runAsUser: 65532, runAsGroup: 65532}
  containers:
  - name: web
    image: $JRE_IMAGE
    command: [sh, -c, 'mkdir -p /tmp/www && echo \$HOSTNAME >/tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www']
    ports: [{containerPort: 8080, name: http}]
    readinessProbe: {tcpSocket: {port: http}, periodSeconds: 1}
EOF2
}

PARTS=(cluster-up base-image cpu-budget memory-budget readiness-gate services dns network-policy restart storage app-images deletion crash down)
# TEST_PARTS="cluster-up services down" runs only those parts (in this order; cluster-up and down belong in it).
[[ -z ${TEST_PARTS:-} ]] || read -r -a PARTS <<<"$TEST_PARTS"
for part in "${PARTS[@]}"; do
  echo "-- $part"
  part_start=$(now_ms)
  # shellcheck source=/dev/null # one of real-kubelet/*.sh
  source "$HERE/real-kubelet/$part.sh"
  note "($part: $(secs $(($(now_ms) - part_start))) s)"
done

echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
