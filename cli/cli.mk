# Make targets for the danki CLI (cli/); included by the top-level Makefile.

CLI_DIR := $(REPO)/cli
# relative, as in the root Makefile's $(JARS), so make sees one target with one rule
CLI_JAR := cli/target/cli-all.jar
# e2e of `danki prewarm` runs on the default cluster in make test (e2e-suites), next to the operator's.
CLI_E2E_LOG := $(CLI_DIR)/target/prewarm-e2e.log

##@ CLI

.PHONY: cli
cli: $(BIN)/danki $(BIN)/kubectl-danki ## Build the danki CLI (cli/target/cli-all.jar) and its wrappers bin/danki and bin/kubectl-danki.

# $(CLI_JAR) is one of the root Makefile's $(JARS), built by `make build` with the other modules.
$(BIN)/danki $(BIN)/kubectl-danki: $(CLI_DIR)/scripts/danki $(CLI_JAR)
	@mkdir -p $(BIN)
	install -m 0755 $(CLI_DIR)/scripts/danki $@

build: cli

.PHONY: test-it-cli
test-it: test-it-cli
test-it-cli: tool-kube build ## CLI *IT (errors, HPA path, danki bench on the sample service) against a real kube-apiserver.
	@mkdir -p $(OPERATOR_KAT_BIN)
	@for t in etcd kube-apiserver kubectl; do ln -sf $(BIN)/$$t $(OPERATOR_KAT_BIN)/$$t; done
	@test -x $(K6) || $(MAKE) --no-print-directory tool-k6
	KUBE_API_TEST_DIR=$(OPERATOR_KAT_DIR) DANKI_K6_BINARY=$(K6) DANKI_K6_SCRIPT=$(REPO)/k6-scripts/warmup.js \
	  $(MVN_TEST) jar:jar -Pit -pl operator,cli -Dtest='dev/danki/cli/**/*IT' -Dsurefire.failIfNoSpecifiedTests=false

.PHONY: e2e-cli
e2e-suites: e2e-cli
e2e-cli: cli build chart-helm ## `danki prewarm` end to end on the running local cluster: operator, sample service, real k6 (KUBECONFIG).
	@test -f "$$KUBECONFIG" || { echo "e2e-cli: no kubeconfig at $$KUBECONFIG (make cluster-up first)"; exit 1; }
	REPO=$(REPO) KUBECTL=$(KUBECTL) K6=$(K6) OPERATOR_JAR=$(OPERATOR_JAR) $(CLI_DIR)/e2e/prewarm-e2e.sh 2>&1 | tee $(CLI_E2E_LOG)

# The runbook's commands, extracted from the document itself, on the default cluster in make test.
e2e-suites: runbook-check
.PHONY: runbook-check
runbook-check: cli build chart-helm ## Run the commands of docs/runbook-pre-exam-scale-up.md against the running local cluster (KUBECONFIG).
	@test -f "$$KUBECONFIG" || { echo "runbook-check: no kubeconfig at $$KUBECONFIG (make cluster-up first)"; exit 1; }
	REPO=$(REPO) VERSION=$(VERSION) KUBECTL=$(KUBECTL) HELM=$(HELM3) KUBECONFIG=$(KUBECONFIG) CLUSTER_INSTANCE=$(CLUSTER_INSTANCE) $(CLI_DIR)/e2e/runbook-check.sh

lint: lint-cli-scripts
.PHONY: lint-cli-scripts
lint-cli-scripts: tool-shellcheck
	$(SHELLCHECK) $(CLI_DIR)/scripts/danki $(CLI_DIR)/e2e/*.sh
