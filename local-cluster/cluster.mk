# Make targets for local-cluster; included by the top-level Makefile.
# The embedded local cluster: a real control plane plus real kubelets on containerd, several nodes
# with their own CPU budgets (local-cluster/kubelet/), and the net agent (local-cluster/net-agent)
# for Services and NetworkPolicy. See docs/local-cluster.md.
# CLUSTER_INSTANCE=N (1..31) runs a second, isolated cluster next to the shared default one:
#   make cluster-up CLUSTER_INSTANCE=7   -> state in .cluster/instance-7, API on 6450.

LOCAL_CLUSTER := $(REPO)/local-cluster
NET_AGENT_JAR := $(LOCAL_CLUSTER)/net-agent/target/net-agent-all.jar
NET_AGENT_SOURCES := $(shell find $(LOCAL_CLUSTER)/net-agent/src -type f 2>/dev/null)
CLUSTER_INSTANCE ?= 0
# The scripts take CLUSTER_DIR from the environment; a non-default instance gets its own folder.
# CLUSTER_KUBELET is passed on only so that the scripts refuse agent, the removed node agent, clearly.
CLUSTER_ENV = $(strip REPO=$(REPO) BIN=$(BIN) CLUSTER_INSTANCE=$(CLUSTER_INSTANCE) \
	$(if $(filter 0,$(CLUSTER_INSTANCE)),CLUSTER_DIR=$(CLUSTER_DIR)) \
	$(foreach v,CLUSTER_KUBELET CLUSTER_NODES NODE_CPU NODE_CFS_PERIOD NODE_MEMORY SYSTEM_NODE_CPU,$(if $($(v)),$(v)=$($(v)))))

##@ Local cluster

# Only the net agent's jar, so cluster-up does not wait for the operator and sample-service builds.
$(NET_AGENT_JAR): pom.xml $(LOCAL_CLUSTER)/net-agent/pom.xml $(NET_AGENT_SOURCES)
	@echo "==> building the net agent"
	$(MVN) -q -pl local-cluster/net-agent -am package -DskipTests -Dktlint.skip -Ddetekt.skip
	@touch $@

.PHONY: net-agent
net-agent: $(NET_AGENT_JAR) ## Build only the net agent jar (Services and NetworkPolicy of the local cluster).

.PHONY: cluster-up cluster-down cluster-status
# The images cluster-up builds first: every image (images), so any suite's pods find theirs. make demo
# sets CLUSTER_IMAGES=demo-images, the two it runs.
CLUSTER_IMAGES ?= images
# The nodes need their runtime and the pause image (node-images) before they start; cluster-up pushes
# every other image built here into the instance's registry (tool-registry), where they pull it.
cluster-up: tool-kube tool-registry tool-coredns real-kubelet-deps $(CLUSTER_IMAGES) ## Start the local cluster (with its registry and CoreDNS) in the background (prints KUBECONFIG=...); no-op if running.
	@$(CLUSTER_ENV) $(LOCAL_CLUSTER)/cluster-up.sh

cluster-down: ## Stop the local cluster and remove what its nodes made (processes, mounts, namespaces, links, cgroups); the registry's storage stays, garbage-collected.
	@$(CLUSTER_ENV) $(LOCAL_CLUSTER)/cluster-down.sh

cluster-status: ## Show each local-cluster component (PID, RSS, health; CoreDNS among them) and the nodes.
	@$(CLUSTER_ENV) $(LOCAL_CLUSTER)/cluster-status.sh

# `make test-e2e` brings the default cluster up and runs e2e-suites; this check runs first.
.PHONY: cluster-smoke
cluster-smoke: ## Check that the running local cluster runs a pod (part of make test-e2e).
	@$(CLUSTER_ENV) $(LOCAL_CLUSTER)/test/smoke.sh

e2e-suites: cluster-smoke

.PHONY: cluster-restart
# SIGNAL=KILL (default TERM) is read by the script from the environment.
cluster-restart: ## Restart one running component (COMPONENT=registry|etcd|kube-apiserver|...|coredns|n1-kubelet|n1-containerd|net-agent, SIGNAL=KILL) with its cluster-up command line; waits until healthy.
	@test -n "$(COMPONENT)" || { echo "cluster-restart: set COMPONENT=registry|etcd|kube-apiserver|kube-controller-manager|kube-scheduler|coredns|nK-kubelet|nK-containerd|net-agent"; exit 2; }
	@$(CLUSTER_ENV) SIGNAL=$(or $(SIGNAL),TERM) $(LOCAL_CLUSTER)/cluster-restart.sh $(COMPONENT)
