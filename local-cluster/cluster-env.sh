# shellcheck shell=bash disable=SC2034 # sourced: the variables are used by the scripts that source it
# cluster-env.sh - settings of one local-cluster instance; sourced by the cluster-* scripts.
#
# Instance 0 is the shared default (API server on 6443, bridge danki0, pods in 198.18.0.0/24).
# CLUSTER_INSTANCE=N (1..199) gives a second, isolated cluster that can run at the same time:
# every port moves by 100*N (etcd 2379+100N, API 6443+N, controller-manager 10257+100N,
# scheduler 10259+100N), the bridge is dankiN and its pods get 198.18.N.0/24, which keeps every
# instance inside 198.18.0.0/15 (the range reserved for benchmark tests).
# Env read: REPO, BIN, CLUSTER_DIR (default: $REPO/.cluster for instance 0, $REPO/.cluster/instance-N
#           else; both ignored by git),
#           CLUSTER_INSTANCE (default 0).

LC_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=${REPO:-$(cd "$LC_HOME/.." && pwd)}
BIN=${BIN:-$REPO/bin}
CLUSTER_INSTANCE=${CLUSTER_INSTANCE:-0}
if ! [[ $CLUSTER_INSTANCE =~ ^[0-9]+$ ]] || ((CLUSTER_INSTANCE > 199)); then
  echo "CLUSTER_INSTANCE must be a number from 0 to 199, got '$CLUSTER_INSTANCE'" >&2
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

BRIDGE=danki$I
# Fixed (locally administered): a bridge without one takes its lowest port's MAC, which changes as
# pods come and go, leaving pods with a gateway MAC that no longer exists.
BRIDGE_MAC=$(printf '02:64:6b:00:%02x:01' "$I")
POD_CIDR=198.18.$I.0/24
BRIDGE_IP=198.18.$I.1
NODE_NAME=danki$I-node
SERVICE_CIDR=10.96.0.0/12
SERVICE_IP=10.96.0.1
API_URL=https://127.0.0.1:$API_PORT

# Start order; cluster-down stops them in reverse.
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler node-agent)
AGENT_JAR=$LC_HOME/node-agent/target/node-agent-all.jar

# CLUSTER_KUBELET=real (the default, instances 0..31): the real kubelet on containerd runs the
# instance's Nodes (CLUSTER_NODES of them, default 3); see local-cluster/kubelet/ and
# docs/local-cluster-real-kubelet.md. CLUSTER_KUBELET=agent runs the node agent instead (pods as host
# processes, one node). A started instance keeps the mode cluster-up recorded.
if [[ -f $CLUSTER_DIR/kubelet-mode ]]; then
  CLUSTER_KUBELET=$(<"$CLUSTER_DIR/kubelet-mode")
elif [[ -f $PIDS_DIR/node-agent.pid ]]; then
  CLUSTER_KUBELET=agent # started before cluster-up recorded the mode of every instance
fi
CLUSTER_KUBELET=${CLUSTER_KUBELET:-real}
case $CLUSTER_KUBELET in
  agent) ;;
  real) COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler) ;; # nodes: kubelet/node-up.sh
  *) echo "CLUSTER_KUBELET must be real (the default) or agent, got '$CLUSTER_KUBELET'" >&2; exit 2 ;;
esac

pid_of() { cat "$PIDS_DIR/$1.pid" 2>/dev/null || true; }
is_running() { local p; p=$(pid_of "$1"); [[ -n $p ]] && kill -0 "$p" 2>/dev/null; }
