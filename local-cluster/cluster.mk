# Make targets for local-cluster; included by the top-level Makefile.
# The embedded local cluster: a real control plane plus real kubelets on containerd, several nodes
# with their own CPU budgets (local-cluster/kubelet/); CLUSTER_KUBELET=agent runs the older node agent
# (local-cluster/node-agent), which plays the kubelet with pods as host processes. See docs/local-cluster.md.
# CLUSTER_INSTANCE=N (1..31; the node agent 1..199) runs a second, isolated cluster next to the shared
# default one:  make cluster-up CLUSTER_INSTANCE=7   -> state in .cluster/instance-7, API on 6450.

LOCAL_CLUSTER := $(REPO)/local-cluster
AGENT_JAR := $(LOCAL_CLUSTER)/node-agent/target/node-agent-all.jar
AGENT_SOURCES := $(shell find $(LOCAL_CLUSTER)/node-agent/src -type f 2>/dev/null)
CLUSTER_INSTANCE ?= 0
# Instance of the acceptance test, so it never disturbs the shared default cluster.
TEST_CLUSTER_INSTANCE ?= 9
# The scripts take CLUSTER_DIR from the environment; a non-default instance gets its own folder.
CLUSTER_ENV = $(strip REPO=$(REPO) BIN=$(BIN) CLUSTER_INSTANCE=$(CLUSTER_INSTANCE) \
	$(if $(filter 0,$(CLUSTER_INSTANCE)),CLUSTER_DIR=$(CLUSTER_DIR)) \
	$(foreach v,CLUSTER_KUBELET CLUSTER_NODES NODE_CPU NODE_MEMORY SYSTEM_NODE_CPU,$(if $($(v)),$(v)=$($(v)))))
# The real kubelet (the default) needs its runtime and every image before its nodes start: they import
# the images at start (local-cluster/kubelet/). CLUSTER_KUBELET=agent runs the node agent instead.
CLUSTER_NODE_DEPS = $(if $(filter agent,$(CLUSTER_KUBELET)),$(AGENT_JAR),real-kubelet-deps images)

##@ Local cluster

# Only the agent jar, so cluster-up does not wait for the operator and sample-service builds.
$(AGENT_JAR): pom.xml $(LOCAL_CLUSTER)/node-agent/pom.xml $(AGENT_SOURCES)
	@echo "==> building the node agent"
	$(MVN) -q -pl local-cluster/node-agent -am package -DskipTests -Dktlint.skip -Ddetekt.skip
	@touch $@

.PHONY: node-agent
node-agent: $(AGENT_JAR) ## Build only the node agent jar.

.PHONY: cluster-up cluster-down cluster-status
cluster-up: tool-kube $(CLUSTER_NODE_DEPS) ## Start the local cluster in the background (prints KUBECONFIG=...); no-op if running.
	@$(CLUSTER_ENV) $(LOCAL_CLUSTER)/cluster-up.sh

cluster-down: ## Stop the local cluster and remove its pods' processes, namespaces and veths.
	@$(CLUSTER_ENV) $(LOCAL_CLUSTER)/cluster-down.sh

cluster-status: ## Show each local-cluster component (PID, RSS, health) and the node.
	@$(CLUSTER_ENV) $(LOCAL_CLUSTER)/cluster-status.sh

.PHONY: test-cluster
test-cluster: tool-kube $(AGENT_JAR) ## Acceptance test of the node agent (CLUSTER_KUBELET=agent), on instance $(TEST_CLUSTER_INSTANCE); not in make test since the real kubelet is the default.
	@REPO=$(REPO) BIN=$(BIN) CLUSTER_KUBELET=agent CLUSTER_INSTANCE=$(TEST_CLUSTER_INSTANCE) $(LOCAL_CLUSTER)/test/acceptance.sh

# `make test-e2e` brings the default cluster up and runs e2e-suites; this check runs first.
.PHONY: cluster-smoke
cluster-smoke: ## Check that the running local cluster runs a pod (part of make test-e2e).
	@$(CLUSTER_ENV) $(LOCAL_CLUSTER)/test/smoke.sh

e2e-suites: cluster-smoke

.PHONY: cluster-restart
# SIGNAL=KILL (default TERM) is read by the script from the environment.
cluster-restart: ## Restart one running component (COMPONENT=etcd|kube-apiserver|...|node-agent, SIGNAL=KILL) with its cluster-up command line; waits until healthy.
	@test -n "$(COMPONENT)" || { echo "cluster-restart: set COMPONENT=etcd|kube-apiserver|kube-controller-manager|kube-scheduler|node-agent"; exit 2; }
	@$(CLUSTER_ENV) SIGNAL=$(or $(SIGNAL),TERM) $(LOCAL_CLUSTER)/cluster-restart.sh $(COMPONENT)
