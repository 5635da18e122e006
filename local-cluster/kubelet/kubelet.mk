# Make targets of the opt-in real-kubelet cluster; included by the top-level Makefile.
# The real kubelet on containerd, several nodes with a CPU budget each (issue 25, foundation):
#   make cluster-up CLUSTER_KUBELET=real CLUSTER_INSTANCE=20 CLUSTER_NODES=3 [NODE_CPU=500m]
#   make cluster-down CLUSTER_INSTANCE=20
# Nothing here is part of `make tools`, the default `make cluster-up` or `make test`.
# See docs/local-cluster-real-kubelet.md.

##@ Real kubelet (opt-in)

.PHONY: node-deps node-images
node-deps: ## Install the nodes' runtime with apt, pinned: containerd, runc, CNI plugins, umoci, skopeo, busybox-static.
	@$(LOCAL_CLUSTER)/kubelet/node-deps.sh

node-images: node-deps ## Build the nodes' images (pause, JRE base) without a registry; skips those unchanged.
	@REPO=$(REPO) $(LOCAL_CLUSTER)/kubelet/node-images.sh build
