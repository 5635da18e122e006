# shellcheck shell=bash disable=SC2154 # sourced after cluster-env.sh and cluster-pki.sh; they set the paths and cert
# cluster-dns.sh - the instance's cluster DNS: CoreDNS (bin/coredns, tools/build-tools.sh) serving
# cluster.local and the reverse zones from the instance's API server, on the instance's bridge address
# ($DNS_IP:53), which every pod reaches through its node's bridge as it reaches the API server. The
# kubelets name it as clusterDNS (kubelet/node-config.sh). Sourced by cluster-up.sh.
#
# Names outside cluster.local are refused, not forwarded: pods here have no route out of the machine.

# dns_pki: CoreDNS's client certificate (system:coredns) and its kubeconfig
dns_pki() {
  cert coredns system:coredns ""
  chmod 600 "$PKI/coredns.key"
  kubeconfig coredns
}

# dns_rbac: what the kubernetes plugin lists and watches, as the upstream deployment's ClusterRole
dns_rbac() {
  "$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" apply -f - >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:coredns"}
rules:
- {apiGroups: [""], resources: [services, pods, namespaces], verbs: [list, watch]}
- {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:coredns"}
EOF
}

# write_corefile: CoreDNS's configuration. ready answers 200 once the kubernetes plugin has synced
# Services and EndpointSlices; without fallthrough an unknown name in these zones is NXDOMAIN at once.
write_corefile() {
  cat >"$DNS_COREFILE" <<EOF
# Written by local-cluster/cluster-up.sh for instance $I; rewritten on every cluster-up.
cluster.local:53 in-addr.arpa:53 ip6.arpa:53 {
    bind $DNS_IP
    errors
    ready 127.0.0.1:$DNS_READY_PORT
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $CLUSTER_DIR/coredns.kubeconfig local
        pods insecure
        ttl 5
    }
}
EOF
}
