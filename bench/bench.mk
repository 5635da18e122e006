# Benchmarks of danki's warm-ups; included by the top-level Makefile.
# (`bench-experiments`, the sample service's published experiments, lives with the sample service.)

##@ Benchmarks

.PHONY: bench
bench: build tools ## Warm-up benchmarks: quality and cost per strategy, scale, operator cost; writes bench/results/warmup.md (about 45 min on 2 cores).
	@REPO=$(REPO) KUBECTL=$(KUBECTL) K6=$(K6) HELM=$(HELM) MAKE="$(MAKE)" KEEP=$(KEEP) $(REPO)/bench/warmup/run-bench.sh

.PHONY: bench-results
bench-results: ## Re-render bench/results/warmup.md from the last bench run's data in .work/bench.
	@python3 $(REPO)/bench/warmup/results.py $(WORK)/bench/records.jsonl >$(REPO)/bench/results/warmup.md

.PHONY: bench-stop-rule
bench-stop-rule: $(SAMPLE_STAMP) tool-k6 ## Which warm-up stop rule stops soonest and still warms (sample service on loopback); writes bench/results/stop-rule.md.
	@REPO=$(REPO) K6=$(K6) $(REPO)/bench/stop-rule/run.sh
