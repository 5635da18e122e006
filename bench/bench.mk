# Benchmarks of danki's warm-ups; included by the top-level Makefile.
# (`bench-experiments`, the sample service's published experiments, lives with the sample service.)

SPRING_SHOP_DIR := $(REPO)/bench/targets/spring-shop
# `make soak` runs on its own local-cluster instance, so it never disturbs the shared default one.
SOAK_CLUSTER_INSTANCE ?= 6
# `make bench` runs on its own instance of the real kubelet, shaped like a production cluster:
# BENCH_WORKERS worker nodes of BENCH_NODE_CPU each, where every pod of a scale-up gets a node of its
# own, and a system node of BENCH_SYSTEM_CPU (tainted) for the operator and its k6. The control
# plane, kubelets and containerd stay outside every node's budget.
BENCH_CLUSTER_INSTANCE ?= 7
BENCH_WORKERS ?= 4
BENCH_NODE_CPU ?= 350m
BENCH_SYSTEM_CPU ?= 500m
# The period of every node's CFS quota (local-cluster/kubelet/node-env.sh): 10 ms, where a JVM that spends
# its node's quota stalls a few ms at most; BENCH_CFS_PERIOD=100ms measures with the kernel's default.
BENCH_CFS_PERIOD ?= 10ms
SPRING_SHOP_JAR := $(SPRING_SHOP_DIR)/target/spring-shop.jar
SPRING_SHOP_SOURCES := $(shell find $(SPRING_SHOP_DIR)/src -type f 2>/dev/null)

# A standalone Maven project (not in the root reactor): only the benchmarks build it.
$(SPRING_SHOP_JAR): $(SPRING_SHOP_DIR)/pom.xml $(SPRING_SHOP_SOURCES)
	@echo "==> building bench/targets/spring-shop (mvn package, tests skipped)"
	$(MVN) -q -f $(SPRING_SHOP_DIR)/pom.xml package -DskipTests
	@touch $@

##@ Benchmarks

.PHONY: bench-targets
bench-targets: $(SAMPLE_STAMP) $(SPRING_SHOP_JAR) ## Build the benchmarks' warm-up targets: the sample service and spring-shop.

.PHONY: bench
bench: build tools-cluster tool-helm bench-targets ## Warm-up benchmarks on BENCH_WORKERS (4) nodes of BENCH_NODE_CPU (350m) and a system node of BENCH_SYSTEM_CPU (500m): one pod and 1 -> 4 per target and strategy, scale, operator cost; BENCH_SECTIONS=aot (or added to the list) danki's AOT cache on JDK 25, BENCH_SECTIONS=boost the CPU boost while gated; writes bench/results/warmup.md and .json, keeping sections not run.
	@CLUSTER_INSTANCE=$(BENCH_CLUSTER_INSTANCE) CLUSTER_NODES=$$(($(BENCH_WORKERS) + 1)) \
	  NODE_CPU=$(BENCH_NODE_CPU) SYSTEM_NODE_CPU=$(BENCH_SYSTEM_CPU) NODE_CFS_PERIOD=$(BENCH_CFS_PERIOD) \
	  BENCH_WORKERS=$(BENCH_WORKERS) REPO=$(REPO) KUBECTL=$(KUBECTL) K6=$(K6) HELM=$(HELM) MAKE="$(MAKE)" KEEP=$(KEEP) \
	  $(REPO)/bench/warmup/run-bench.sh

.PHONY: bench-results
bench-results: ## Re-render bench/results/warmup.md and .json from the last bench run's data in .work/bench (other sections from bench/results/warmup-records.jsonl).
	@python3 $(REPO)/bench/warmup/results.py $(WORK)/bench/records.jsonl $(REPO)/bench/results/warmup.json \
	  >$(REPO)/bench/results/warmup.md

.PHONY: test-bench-reports
test-bench-reports: ## The bench's report writers (bench/warmup/*_test.py) on synthetic records: sections, goals, merging with an earlier run.
	@python3 -m unittest discover -s $(REPO)/bench/warmup -p '*_test.py'

.PHONY: bench-stop-rule
bench-stop-rule: bench-targets tool-k6 ## History: requests needed, concurrency and the old latency rule, on fresh JVMs of both targets on loopback; writes bench/results/stop-rule-loopback.md and .json (about 60 min). The rule of today is chosen on the cluster: bench-stop-rule-cluster.
	@K6=$(K6) python3 $(REPO)/bench/stop-rule/run.py
	@python3 $(REPO)/bench/stop-rule/report.py $(WORK)/bench-stop-rule/records.jsonl $(REPO)/bench/results/stop-rule-loopback.json \
	  >$(REPO)/bench/results/stop-rule-loopback.md
	@cat $(REPO)/bench/results/stop-rule-loopback.md

.PHONY: bench-stop-rule-cluster
bench-stop-rule-cluster: build tools-cluster tool-helm bench-targets ## The stop rule on the bench's cluster: JIT traces of 5 pods per target (BENCH_SECTIONS=trace), candidate rules replayed on them, and danki's floor swept (sweep); writes bench/results/stop-rule.md and stop-rule-traces.json, and the sweep into warmup.md and .json (about 60 min).
	@$(MAKE) --no-print-directory bench BENCH_SECTIONS="trace sweep"
	@$(MAKE) --no-print-directory stop-rule-results

.PHONY: stop-rule-results
stop-rule-results: ## Re-render bench/results/stop-rule.md from the last traces (.work/bench/traces.jsonl, else stop-rule-traces.json) and the sweep in warmup.json.
	@if [ -s $(WORK)/bench/traces.jsonl ]; then \
	  python3 $(REPO)/bench/warmup/stop_rules.py $(WORK)/bench/traces.jsonl $(REPO)/bench/results/stop-rule-traces.json >/dev/null; fi
	@python3 $(REPO)/bench/warmup/stop_rule_report.py $(REPO)/bench/results/stop-rule-traces.json \
	  $(REPO)/bench/results/warmup.json >$(REPO)/bench/results/stop-rule.md

.PHONY: soak
soak: build tools ## Soak: SOAK_MINUTES (default 30) of scale churn and failing warm-ups on local-cluster instance 6, the operator's RSS, heap, fds, threads and k6 processes sampled; writes bench/results/soak.md and .json (about SOAK_MINUTES + 3 min).
	@REPO=$(REPO) KUBECTL=$(KUBECTL) HELM=$(HELM) MAKE="$(MAKE)" KEEP=$(KEEP) \
	  CLUSTER_INSTANCE=$(SOAK_CLUSTER_INSTANCE) python3 $(REPO)/bench/soak/run.py

.PHONY: soak-results
soak-results: ## Re-render bench/results/soak.md (tables, charts, verdict) from bench/results/soak.json.
	@python3 $(REPO)/bench/soak/report.py $(REPO)/bench/results/soak.json >$(REPO)/bench/results/soak.md

# A separate instance, so the measurement never shares a control plane with another run.
BAD_PLAN_CLUSTER_INSTANCE ?= 11

.PHONY: bench-bad-plan
bench-bad-plan: build tool-kube tool-k6 ## 40 Deployments scaled at once, 28 with an invalid plan: seconds from ContainersReady to danki's decision; appends to bench/results/bad-plan.json and .md (OPERATOR_JAR, LABEL to measure another build; about 4 min).
	@REPO=$(REPO) KUBECTL=$(KUBECTL) K6=$(K6) MAKE="$(MAKE)" KEEP=$(KEEP) \
	  CLUSTER_INSTANCE=$(BAD_PLAN_CLUSTER_INSTANCE) python3 $(REPO)/bench/bad-plan/run.py

.PHONY: bench-cache
bench-cache: build tool-kube tool-k6 ## The operator's RSS, live heap and time to first decision with 1,000 and 10,000 pods in the cluster (half danki's), its jar run as a process against a real kube-apiserver; BEFORE_JAR=path/to/operator-all.jar measures another build beside it; writes bench/results/pod-cache.md and .json (about 15 min).
	@mkdir -p $(OPERATOR_KAT_BIN)
	@for t in etcd kube-apiserver kubectl; do ln -sf $(BIN)/$$t $(OPERATOR_KAT_BIN)/$$t; done
	KUBE_API_TEST_DIR=$(OPERATOR_KAT_DIR) $(MVN) -Pbench-cache -pl operator test -Dktlint.skip -Ddetekt.skip
	@cat $(REPO)/bench/results/pod-cache.md

.PHONY: bench-webhook
bench-webhook: tool-kube ## The webhook's admission latency (p50, p99) on a cache hit, a miss and a Deployment not opted in, against a real kube-apiserver; writes bench/results/webhook-admission.md and .json (about 1 min).
	@mkdir -p $(OPERATOR_KAT_BIN)
	@for t in etcd kube-apiserver kubectl; do ln -sf $(BIN)/$$t $(OPERATOR_KAT_BIN)/$$t; done
	KUBE_API_TEST_DIR=$(OPERATOR_KAT_DIR) $(MVN) -Pbench-webhook -pl operator test -Dktlint.skip -Ddetekt.skip
	@cat $(REPO)/bench/results/webhook-admission.md
