# shellcheck shell=bash disable=SC2154 # sourced after cluster-env.sh and node-env.sh; node_env K sets the paths
# node-config.sh - the configuration files of one node, written under nodes/nK/ by node-up.sh:
# containerd's config.toml with its registry hosts (hosts.toml), the CNI network and the kubelet's
# KubeletConfiguration.

# write_containerd_config: a private containerd (root, state, socket, runc root, CNI dirs all
# under the node's folder), with the CRI settings this machine needs.
write_containerd_config() {
  mkdir -p "$CONTAINERD_DIR"/{root,state,opt} "$CNI_CONF_DIR"
  cat >"$CONTAINERD_DIR/config.toml" <<EOF
# Written by local-cluster/kubelet/node-up.sh for node $NODE_NAME_K; rewritten on every node-up.
version = 2
root = "$CONTAINERD_DIR/root"
state = "$CONTAINERD_DIR/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "$CONTAINERD_SOCK"

[plugins."io.containerd.internal.v1.opt"]
  path = "$CONTAINERD_DIR/opt"

[plugins."io.containerd.grpc.v1.cri"]
  # Built here by node-images.sh and imported at node-up, as part of the node: every other image is pulled.
  sandbox_image = "$PAUSE_IMAGE"
  # Root here lacks CAP_SYS_RESOURCE: without this every sandbox fails with
  # "nsexec: failed to update /proc/self/oom_score_adj: Permission denied".
  restrict_oom_score_adj = true
  # exec, attach and port-forward streams, proxied by the kubelet; a free port on loopback.
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  # Pod network namespaces under the state dir, not /var/run/netns: node-down finds them there.
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        # No systemd here: the kubelet's cgroupDriver is cgroupfs too.
        SystemdCgroup = false
        Root = "$CONTAINERD_DIR/state/runc"
  [plugins."io.containerd.grpc.v1.cri".registry]
    # One folder per registry host with its hosts.toml (write_registry_hosts).
    config_path = "$CONTAINERD_DIR/certs.d"
  [plugins."io.containerd.grpc.v1.cri".cni]
    # Debian's plugins and danki-net, linked into one folder (containerd 1.6 takes one bin_dir).
    bin_dir = "$CNI_BIN_DIR"
    conf_dir = "$CNI_CONF_DIR"
    max_conf_num = 1
EOF
}

# write_registry_hosts: the hosts that the instance's registry stands for, each with a hosts.toml that
# names only the registry, over plain HTTP: docker.io (danki's images as users write them,
# danki/operator:0.1.0), localhost (the local bases) and the registry's own address. No fallback: a
# tag the registry lacks is a 404 and the pod's ErrImagePull at once. Any other host goes to
# containerd's closed proxy (node-up.sh) and fails as fast.
# containerd 1.6 refuses a hosts.toml without a [host] table ("invalid `host` tree") and then falls
# back to Docker Hub; it tries `server` after the hosts, and without one it adds Docker Hub's. So the
# registry is both, `server` for push only: a pull asks it once.
write_registry_hosts() {
  local host
  for host in docker.io localhost "$REGISTRY_ADDR"; do
    mkdir -p "$CONTAINERD_DIR/certs.d/$host"
    cat >"$CONTAINERD_DIR/certs.d/$host/hosts.toml" <<EOF
# Written by local-cluster/kubelet/node-up.sh: $host is served by instance $I's registry.
server = "http://$REGISTRY_ADDR"
capabilities = ["push"]

[host."http://$REGISTRY_ADDR"]
  capabilities = ["pull", "resolve"]
EOF
  done
}

# write_cni_config: the node's bridge with host-local addresses from its /24. The bridge address is
# each pod's default gateway, so pods reach the host and, routed by it (the plugin turns on IPv4
# forwarding), the pods of the other nodes; no masquerade, nothing leaves the machine. The CRI adds
# the loopback interface itself. Then danki-net (cni-danki-net): the net agent loads the pod's
# NetworkPolicy rules into its namespace before the sandbox is ready, or the ADD fails.
write_cni_config() {
  mkdir -p "$CNI_CONF_DIR" "$NODE_DIR/cni/ipam" "$CNI_BIN_DIR"
  local p
  for p in bridge host-local loopback; do ln -sf "/usr/lib/cni/$p" "$CNI_BIN_DIR/$p"; done
  ln -sf "$LC_HOME/kubelet/cni-danki-net" "$CNI_BIN_DIR/danki-net"
  cat >"$CNI_CONF_DIR/10-danki.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "$NODE_NAME_K",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$NODE_BRIDGE",
      "isGateway": true,
      "isDefaultGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "$NODE_POD_CIDR", "gateway": "$NODE_IP" }]],
        "dataDir": "$NODE_DIR/cni/ipam"
      }
    },
    { "type": "danki-net", "agent": "http://127.0.0.1:$NET_AGENT_PORT" }
  ]
}
EOF
}

# write_kubelet_config host-millicores host-memory-KiB: the KubeletConfiguration; allocatable CPU
# (and memory, with NODE_MEMORY) = the budget
write_kubelet_config() {
  local host_millis=$1 host_kib=$2 memory_reserved="" taints=""
  if [[ $NODE_ROLE == system ]]; then
    taints="registerWithTaints: [{key: $NODE_ROLE_LABEL, value: system, effect: NoSchedule}]"
  fi
  if [[ -n $NODE_MEMORY_MIB ]]; then
    memory_reserved="  memory: $((host_kib - (NODE_MEMORY_MIB + EVICTION_MEMORY_MIB) * 1024))Ki"
  fi
  mkdir -p "$KUBELET_DIR" "$LOGS/pods-n$NODE_K" "$NODE_DIR/volume-plugins"
  cat >"$KUBELET_DIR/config.yaml" <<EOF
# Written by local-cluster/kubelet/node-up.sh for node $NODE_NAME_K; rewritten on every node-up.
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This host has cgroup v1 only; kubelet 1.37 refuses it unless told. No systemd: cgroupfs.
failCgroupV1: false
cgroupDriver: cgroupfs
# Pods go under /$NODE_CGROUP/kubepods; node-up puts the node's CPU budget on /$NODE_CGROUP.
cgroupRoot: /$NODE_CGROUP
cgroupsPerQOS: true
enforceNodeAllocatable: [pods]
# Capacity is the host's ${host_millis}m; all but the budget is reserved, so allocatable CPU says
# ${NODE_CPU_MILLIS_K}m, what the quota enforces, and the scheduler spreads pods by it.
# With NODE_MEMORY, the host's memory less the budget and the eviction threshold is reserved too:
# allocatable memory is the budget, and the kubelet limits kubepods to it plus the threshold.
systemReserved:
  cpu: $((host_millis - NODE_CPU_MILLIS_K))m
$memory_reserved
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
imageServiceEndpoint: unix://$CONTAINERD_SOCK
address: $NODE_IP
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
podCIDR: $NODE_POD_CIDR
# With the instance's logs, so they outlive node-down (which removes the node's folder).
podLogsDir: $LOGS/pods-n$NODE_K
volumePluginDir: $NODE_DIR/volume-plugins
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: $PKI/ca.crt }
authorization:
  mode: Webhook
# The kubelet's iptables chains (KUBE-FIREWALL, hint chains) would change the host's firewall.
makeIPTablesUtilChains: false
# Sets the host sysctls it wants; node-up saved them and node-down restores them (host-sysctls.sh).
protectKernelDefaults: false
failSwapOn: false
# The instance's CoreDNS (cluster-dns.sh) on its bridge address: pods of dnsPolicy ClusterFirst get it as
# their nameserver with the cluster's search domains.
clusterDNS: [$DNS_IP]
clusterDomain: $CLUSTER_DOMAIN
# A system node (SYSTEM_NODE_CPU) runs only the pods that tolerate its taint.
$taints
resolvConf: /etc/resolv.conf
# The machine's disk is shared: evict only when it is nearly full.
evictionHard:
  memory.available: ${EVICTION_MEMORY_MIB}Mi
  nodefs.available: 5%
  imagefs.available: 5%
  nodefs.inodesFree: 5%
# A node under memory pressure (a pod that outgrew the budget) is tainted NoSchedule until the
# pressure has been gone this long; the default 5 min kept later pods Pending that long.
evictionPressureTransitionPeriod: 10s
imageGCHighThresholdPercent: 95
imageGCLowThresholdPercent: 90
containerLogMaxSize: 10Mi
containerLogMaxFiles: 2
EOF
}
