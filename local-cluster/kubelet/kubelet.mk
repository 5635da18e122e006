# Make targets of the real-kubelet nodes, the local cluster's default; included by the top-level Makefile.
# The real kubelet on containerd, several nodes with a CPU budget each:
#   make cluster-up CLUSTER_INSTANCE=20 CLUSTER_NODES=3 [NODE_CPU=500m] [NODE_CFS_PERIOD=10ms] [NODE_MEMORY=2Gi] [SYSTEM_NODE_CPU=700m]
#   make cluster-down CLUSTER_INSTANCE=20
# `make cluster-up` builds what the nodes need first (real-kubelet-deps, the registry, CLUSTER_IMAGES); `make test` runs
# test-real-kubelet. See docs/local-cluster-real-kubelet.md.

# Instance of the real-kubelet acceptance test (0..31), so it never disturbs the shared default cluster.
TEST_REAL_KUBELET_INSTANCE ?= 20

##@ Real kubelet (the local cluster's nodes)

.PHONY: node-deps node-images real-kubelet-deps test-real-kubelet
node-deps: ## Install the nodes' runtime with apt, pinned: containerd, runc, CNI plugins, nftables, umoci, skopeo, busybox-static.
	@$(LOCAL_CLUSTER)/kubelet/node-deps.sh

node-images: node-deps ## Build the pause image every node imports, without Docker (the other bases come with make images); skips it unchanged.
	@REPO=$(REPO) $(LOCAL_CLUSTER)/kubelet/node-images.sh build node

# What `make cluster-up` needs besides the control plane, the registry and the DNS: the kubelet, the
# node runtime and the pause image, and the net agent's jar.
real-kubelet-deps: tool-kubelet node-images $(NET_AGENT_JAR)

# `images` first: it rebuilds any image whose jar a target since test-images packaged anew (byte-equal
# when the sources are, as the POMs pin the jars' timestamps), so the app-images part checks what it runs.
test-real-kubelet: tool-kube tool-registry tool-coredns real-kubelet-deps images ## Acceptance test of the real-kubelet cluster: 3 nodes on instance TEST_REAL_KUBELET_INSTANCE, default 20 (part of make test).
	@REPO=$(REPO) BIN=$(BIN) CLUSTER_INSTANCE=$(TEST_REAL_KUBELET_INSTANCE) $(LOCAL_CLUSTER)/test/real-kubelet.sh

# Without a cluster, in make test-unit: the host sysctls' record under instances that start at once.
.PHONY: test-host-sysctls
test-host-sysctls: ## kubelet/host-sysctls.sh with 4 instances saving and restoring side by side (a stub sysctl; the host's are untouched).
	@$(LOCAL_CLUSTER)/test/host-sysctls-lock.sh

test-unit: test-host-sysctls

# danki's own images: `make images` and `make test-images`, in images.mk.

.PHONY: lint-real-kubelet
lint-real-kubelet: tool-shellcheck ## shellcheck the real-kubelet scripts and their test, compile the Python ones (part of make lint).
	$(SHELLCHECK) -x -P SCRIPTDIR $(LOCAL_CLUSTER)/kubelet/*.sh $(LOCAL_CLUSTER)/test/real-kubelet.sh \
	  $(LOCAL_CLUSTER)/test/host-sysctls-lock.sh \
	  $(LOCAL_CLUSTER)/test/real-kubelet/*.sh $(LOCAL_CLUSTER)/cluster-*.sh $(LOCAL_CLUSTER)/registry/*.sh
	python3 -m py_compile $(LOCAL_CLUSTER)/kubelet/dockerfile-stage.py
	python3 -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' $(LOCAL_CLUSTER)/kubelet/cni-danki-net

lint: lint-real-kubelet
