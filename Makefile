# danki: a Kubernetes warm-up operator for JVM services.
# `make` (or `make help`) lists the targets. On a fresh machine `make demo` and `make test`
# install everything they need, pinned, into bin/.

SHELL := bash -o pipefail
.SHELLFLAGS := -ec
.DEFAULT_GOAL := help
REPO := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} \
	  /^[a-zA-Z0-9_-]+:.*?##/ { printf "  \033[36m%-22s\033[0m %s\n", $$1, $$2 } \
	  /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

# ---- pinned tools (built from source through the Go module proxy by tools/build-tools.sh) ----
BIN := $(REPO)/bin
export K6_VERSION := v1.8.1
export HELM3_VERSION := v3.22.0
export HELM4_VERSION := v4.3.1
export ETCD_VERSION := v3.7.3
export K8S_VERSION := v1.37.1
export K8S_STAGING_VERSION := v0.37.1
export ACTIONLINT_VERSION := v1.7.12
# CNCF Distribution's registry: each local-cluster instance serves its images with one (issue 30).
# Not REGISTRY_VERSION: the registry reads every REGISTRY_* variable as a setting of its config.
export DISTRIBUTION_VERSION := v3.1.2
# Anchore's syft: make sbom writes an SPDX JSON SBOM of each image built here, as the release
# pipeline's buildx does on GitHub (issue 30).
export SYFT_VERSION := v1.57.1
# CoreDNS: each local-cluster instance's cluster DNS, cluster.local from its own API server (issue 49).
export COREDNS_VERSION := v1.15.0

K6 := $(BIN)/k6
HELM := $(BIN)/helm
HELM3 := $(BIN)/helm3
KUBECTL := $(BIN)/kubectl
ACTIONLINT := $(BIN)/actionlint

# ---- danki's one version: the chart's, the images' and the CLI's (docs/releasing.md) ----
# Chart.yaml's `version` is the source; lint-version checks that appVersion, the parent POM's
# danki.version and a v* tag on HEAD equal it.
VERSION := $(shell sed -n 's/^version: *//p' $(REPO)/charts/danki/Chart.yaml)

# Work and state folders, ignored by git.
WORK := $(REPO)/.work
CLUSTER_DIR := $(REPO)/.cluster
export KUBECONFIG := $(CLUSTER_DIR)/admin.kubeconfig

# Maven in batch mode, with the Kotlin compiler in-process (a daemon would outlive the build).
MVN := mvn -B -ntp -Dkotlin.compiler.daemon=false -Dstyle.color=never
# Tests run on the classes that `make build` compiled. Kotlin's Maven plugin has no up-to-date check,
# so every `mvn test` compiled its modules again: about a minute for the operator, six times in make
# test. A target that uses it depends on build (or a module's stamp), which compiles the tests too. A
# run that reaches the CLI adds jar:jar: it puts the operator's classes in the jar the CLI resolves.
MVN_TEST := $(MVN) surefire:test -Dktlint.skip -Ddetekt.skip

##@ Tools

.PHONY: tools
tools: ## Build every pinned tool into bin/ (skips those already at their version).
	@tools/build-tools.sh all

.PHONY: tools-cluster
tools-cluster: ## Build the tools a local cluster and its suites need: etcd, the control plane, kubelet, registry, CoreDNS, k6.
	@tools/build-tools.sh cluster

.PHONY: tool-k6 tool-helm tool-helm4 tool-kube tool-kubelet tool-registry tool-coredns tool-actionlint tool-syft
tool-k6: ## Build the pinned k6 into bin/.
	@tools/build-tools.sh k6
tool-helm: ## Build the pinned helm 3 and helm 4 into bin/.
	@tools/build-tools.sh helm
tool-helm4: ## Build the pinned helm 4 alone into bin/ (bin/helm): what the demo installs with.
	@tools/build-tools.sh helm4
tool-kube: ## Build the pinned etcd, kube-apiserver, controller-manager, scheduler and kubectl.
	@tools/build-tools.sh etcd k8s
tool-kubelet: ## Build the pinned kubelet (the local cluster's nodes).
	@tools/build-tools.sh kubelet
tool-registry: ## Build the pinned OCI registry (CNCF Distribution) that serves each local cluster's images.
	@tools/build-tools.sh registry
tool-coredns: ## Build the pinned CoreDNS (the local cluster's DNS) into bin/.
	@tools/build-tools.sh coredns
tool-actionlint: ## Build the pinned actionlint (make lint-workflows).
	@tools/build-tools.sh actionlint
tool-syft: ## Build the pinned syft (make sbom).
	@tools/build-tools.sh syft

##@ Build

# A jar is rebuilt only when its module's sources or a POM changed.
POMS := pom.xml $(wildcard */pom.xml */*/pom.xml)
JARS := local-cluster/net-agent/target/net-agent-all.jar sample-service/target/sample-service-all.jar \
	operator/target/operator-all.jar cli/target/cli-all.jar

.PHONY: build
build: $(JARS) ## Build the operator, sample service, net agent and CLI jars.

# It also touches the module-only builds' stamps (sample.mk, operator.mk): it has just built their jars,
# which make test otherwise built again.
$(JARS) &: $(POMS) $(shell find local-cluster/net-agent/src sample-service/src operator/src cli/src -type f 2>/dev/null)
	@echo "==> building jars (mvn package, tests skipped)"
	$(MVN) -q package -DskipTests -Dktlint.skip -Ddetekt.skip
	@touch $(JARS) $(SAMPLE_STAMP) $(OPERATOR_STAMP)

##@ Lint

.PHONY: lint
lint: lint-version lint-kotlin ## Run every linter (versions, Kotlin, shell, Helm chart, Dockerfile, GitHub workflows).

.PHONY: version lint-version
version: ## Print danki's version (charts/danki/Chart.yaml's `version`).
	@echo $(VERSION)
# RELEASE_TAG: the tag a release is cut from, checked as well (the release workflow passes it).
lint-version: ## Check Chart.yaml's version and appVersion, the POM's danki.version and a v* tag on HEAD agree.
	@tools/version-check.sh "$(VERSION)" $(RELEASE_TAG)

# actionlint runs shellcheck on the workflows' run: blocks (it finds it on PATH).
.PHONY: lint-workflows
lint: lint-workflows
lint-workflows: tool-actionlint tool-shellcheck ## actionlint on .github/workflows/ (ci.yml, release.yml), their run: blocks through shellcheck; then broken copies must fail it.
	@$(REPO)/tools/lint-workflows.sh $(ACTIONLINT)

.PHONY: lint-tools
lint: lint-tools
lint-tools: tool-shellcheck ## shellcheck the repository's own tool scripts (tools/*.sh).
	$(SHELLCHECK) -x -P SCRIPTDIR $(REPO)/tools/*.sh

.PHONY: lint-readme
lint: lint-readme
lint-readme: ## The README (and docs/development.md, docs/performance.md) name only make targets, annotations, chart values and files that exist.
	python3 $(REPO)/tools/readme-check.py --self-test
	python3 $(REPO)/tools/readme-check.py $(REPO)/README.md $(REPO)/docs/development.md $(REPO)/docs/performance.md

.PHONY: lint-kotlin
lint-kotlin: ## ktlint and detekt on every Kotlin module.
	$(MVN) -q ktlint:check detekt:check

.PHONY: format
format: ## Format Kotlin sources with ktlint.
	$(MVN) -q ktlint:format

##@ Test

# make test runs in two steps of lanes (tools/lanes.sh). First everything that needs no cluster: the Go
# builds of the cluster's own tools (etcd, the control plane, the kubelet, the registry, k6; about 11 of a
# cold machine's 15 minutes of Go builds, on both cores) beside the Kotlin lint, jars and unit tests, the
# other linters (which build helm and actionlint) and the images. Then the cluster suites in two lanes,
# beside the image checks, which build syft on a cold machine (test-images-niced). The API-server and
# PostgreSQL tests (7 min) open the cluster suites' shorter lane (NODES_LANE_FIRST), beside the end-to-end
# lane, which is the longer by about 4 minutes. Two lanes may need the same tool: build-tools.sh builds
# each under a lock, so the second waits for the first and finds it present.
.PHONY: test
test: ## Everything CI runs: lint, unit, image, API-server/PostgreSQL, cluster (real kubelet), end-to-end and fault tests.
	@MAKE="$(MAKE)" $(REPO)/tools/lanes.sh 'tools: tools-cluster' 'jvm: lint-kotlin test-unit lint images'
	@$(MAKE) --no-print-directory test-clusters NODES_LANE_FIRST=test-it CLUSTERS_SIDE_LANE='checks: test-images-niced'

.PHONY: test-unit
test-unit: build test-bench-reports ## Unit tests (*Test) of every module, and of the bench's report writers.
	$(MVN_TEST) jar:jar

# The suites that need a local cluster, in two lanes at once (tools/lanes.sh), each on its own
# instances: the end-to-end suites on the default one; the real-kubelet acceptance, the fault suite and
# the webhook race one after the other on theirs. Alone, the lanes took 26 and 22 minutes in a row. The
# race goes last: by then the other lane runs its lighter chart suites, and the race's bursts of 30
# pods must each be admitted within the webhook's timeout (with the machine at load 60, one was not).
.PHONY: test-clusters
test-clusters: build tools-cluster images chart-helm tool-jq ## The cluster suites: test-e2e beside test-real-kubelet, test-faults and test-webhook-race.
	@MAKE="$(MAKE)" $(REPO)/tools/lanes.sh 'e2e: test-e2e' 'nodes: $(NODES_LANE_FIRST) test-real-kubelet test-faults test-webhook-race' \
	  $(if $(CLUSTERS_SIDE_LANE),'$(CLUSTERS_SIDE_LANE)')

# Beside the cluster suites in make test, at low priority: on a cold machine it builds syft first, and the
# suites' waits and timeouts matter more than its minutes.
.PHONY: test-images-niced
test-images-niced:
	@nice -n 10 $(MAKE) --no-print-directory test-images

# Fragments add their suites as prerequisites of these two targets.
.PHONY: test-it test-e2e e2e-suites
test-it: ## Tests against a real kube-apiserver and real PostgreSQL (*IT).
test-e2e: build tools-cluster ## End-to-end tests on the local cluster with real JVM pods and real k6.
	@$(MAKE) --no-print-directory cluster-up
	@rc=0; $(MAKE) --no-print-directory e2e-suites E2E_CHART_HELMS=helm4 || rc=$$?; \
	  $(MAKE) --no-print-directory cluster-down; exit $$rc

include local-cluster/cluster.mk
include local-cluster/kubelet/kubelet.mk
include sample-service/sample.mk
include operator/operator.mk
include cli/cli.mk
include charts/chart.mk
include bench/bench.mk
include local-cluster/kubelet/images.mk
include demo/demo.mk
