# shellcheck shell=bash disable=SC2034 # sourced: the variables are used by the scripts that source it
# cluster-env.sh - settings of one local-cluster instance; sourced by the cluster-* scripts.
#
# Instance 0 is the shared default (API server on 6443, bridge danki0 at 198.18.0.1).
# CLUSTER_INSTANCE=N (1..31) gives a second, isolated cluster that can run at the same time:
# every port moves by 100*N (registry 5000+100N, etcd 2379+100N, API 6443+N, controller-manager
# 10257+100N, scheduler 10259+100N, CoreDNS's readiness 8181+100N) and the bridge is dankiN at 198.18.N.1,
# the address of the API server and of the cluster DNS (port 53) for pods.
# Its nodes are real kubelets on containerd (kubelet/node-env.sh: their own bridges in 198.19.0.0/16).
# Env read: REPO, BIN, CLUSTER_DIR (default: $REPO/.cluster for instance 0, $REPO/.cluster/instance-N
#           else; both ignored by git),
#           CLUSTER_INSTANCE (default 0).

LC_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=${REPO:-$(cd "$LC_HOME/.." && pwd)}
BIN=${BIN:-$REPO/bin}
CLUSTER_INSTANCE=${CLUSTER_INSTANCE:-0}
# 32 instances of 8 node slots each fill 198.19.0.0/16 (kubelet/node-env.sh).
if ! [[ $CLUSTER_INSTANCE =~ ^[0-9]+$ ]] || ((CLUSTER_INSTANCE > 31)); then
  echo "CLUSTER_INSTANCE must be a number from 0 to 31 (each has 8 node slots in 198.19.0.0/16), got '$CLUSTER_INSTANCE'" >&2
  exit 2
fi
# The node agent (CLUSTER_KUBELET=agent, pods as host processes) was removed; the real kubelet is the only node.
if [[ -n ${CLUSTER_KUBELET:-} && $CLUSTER_KUBELET != real ]]; then
  echo "CLUSTER_KUBELET=$CLUSTER_KUBELET: the node agent was removed and the real kubelet is the only node; unset CLUSTER_KUBELET" >&2
  exit 2
fi
I=$CLUSTER_INSTANCE
if ((I == 0)); then
  CLUSTER_DIR=${CLUSTER_DIR:-$REPO/.cluster}
elif [[ -z ${CLUSTER_DIR:-} && -d $REPO/.cluster-$I/pids ]]; then
  CLUSTER_DIR=$REPO/.cluster-$I # started by an earlier version of these scripts
else
  CLUSTER_DIR=${CLUSTER_DIR:-$REPO/.cluster/instance-$I}
fi

PKI=$CLUSTER_DIR/pki
LOGS=$CLUSTER_DIR/logs
PIDS_DIR=$CLUSTER_DIR/pids
KUBECONFIG_PATH=$CLUSTER_DIR/admin.kubeconfig
KUBECTL=$BIN/kubectl

PORT_SHIFT=$((100 * I))
ETCD_CLIENT_PORT=$((2379 + PORT_SHIFT))
ETCD_PEER_PORT=$((2380 + PORT_SHIFT))
ETCD_METRICS_PORT=$((2381 + PORT_SHIFT))
API_PORT=$((6443 + I))
KCM_PORT=$((10257 + PORT_SHIFT))
SCHEDULER_PORT=$((10259 + PORT_SHIFT))
# The instance's OCI registry (CNCF Distribution, registry/): the nodes pull every image but the
# pause image from it (kubelet/node-config.sh), plain HTTP on loopback. 5000 is the registry's own
# default; +100*N keeps it clear of etcd's x79-x81 and the API server's 6443-6474.
REGISTRY_PORT=$((5000 + PORT_SHIFT))
REGISTRY_ADDR=127.0.0.1:$REGISTRY_PORT
REGISTRY_DIR=$CLUSTER_DIR/registry

# The API server advertises the bridge's address: pods reach it there, and the net agent routes
# the `kubernetes` Service to it.
BRIDGE=danki$I
# Fixed (locally administered): a bridge without one takes its lowest port's MAC.
BRIDGE_MAC=$(printf '02:64:6b:00:%02x:01' "$I")
BRIDGE_IP=198.18.$I.1
SERVICE_CIDR=10.96.0.0/12
SERVICE_IP=10.96.0.1
API_URL=https://127.0.0.1:$API_PORT

# The cluster DNS (cluster-dns.sh): CoreDNS on the bridge's address, port 53, which no other instance
# uses; the kubelets give it to pods as their nameserver. Its readiness on loopback.
DNS_IP=$BRIDGE_IP
DNS_READY_PORT=$((8181 + PORT_SHIFT))
DNS_COREFILE=$CLUSTER_DIR/Corefile
CLUSTER_DOMAIN=cluster.local

# Storage for PersistentVolumeClaims (cluster-storage.sh): the StorageClass and a pool of PV_POOL_SIZE
# hostPath volumes of PV_CAPACITY each, folders under VOLUMES_DIR. 16: a claim per Deployment for the
# demo, the tests and the bench, with room to spare; a claim beyond the pool stays Pending.
STORAGE_CLASS=danki-local
PV_POOL_SIZE=${PV_POOL_SIZE:-16}
PV_CAPACITY=1Gi
VOLUMES_DIR=$CLUSTER_DIR/volumes

# Start order; cluster-down stops them in reverse. The nodes: kubelet/node-up.sh and node-down.sh.
# The registry first: images are pushed while the control plane starts, and it stops after the nodes.
# CoreDNS last: it reads the API server, and stops first.
COMPONENTS=(registry etcd kube-apiserver kube-controller-manager kube-scheduler coredns)

# node_agent_leftover: the instance was started by an older checkout with the node agent (its
# cluster-up recorded kubelet-mode agent); only cluster-down.sh, which removes it, may touch it.
node_agent_leftover() { [[ $(cat "$CLUSTER_DIR/kubelet-mode" 2>/dev/null) == agent || -f $PIDS_DIR/node-agent.pid ]]; }
refuse_node_agent_leftover() {
  node_agent_leftover || return 0
  echo "instance $I was started with the node agent, which was removed; take it down first: make cluster-down CLUSTER_INSTANCE=$I" >&2
  exit 2
}

pid_of() { cat "$PIDS_DIR/$1.pid" 2>/dev/null || true; }
is_running() { local p; p=$(pid_of "$1"); [[ -n $p ]] && kill -0 "$p" 2>/dev/null; }
