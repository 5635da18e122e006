# Make targets for sample-service; included by the top-level Makefile.

SAMPLE_DIR := $(REPO)/sample-service
SAMPLE_JAR := $(SAMPLE_DIR)/target/sample-service-all.jar
# Stamp of the last module-only build: `make build` builds every module, these targets only ours.
SAMPLE_STAMP := $(SAMPLE_DIR)/target/.sample-jar.stamp
SAMPLE_SOURCES := $(shell find $(SAMPLE_DIR)/src -type f 2>/dev/null)
PG := $(REPO)/tools/postgres.sh

$(SAMPLE_STAMP): $(SAMPLE_SOURCES) $(SAMPLE_DIR)/pom.xml $(REPO)/pom.xml
	@echo "==> building sample-service (mvn package, tests skipped)"
	$(MVN) -q -pl sample-service -am package -DskipTests -Dktlint.skip -Ddetekt.skip
	@touch $@

##@ Sample service

.PHONY: sample-jar
sample-jar: $(SAMPLE_STAMP) ## Build sample-service/target/sample-service-all.jar only.

.PHONY: pg-up pg-down
pg-up: ## Start a throwaway PostgreSQL on a free loopback port (installs Debian's postgresql if missing).
	@$(PG) up
	@echo "DATABASE_URL=$$($(PG) url)"
pg-down: ## Stop the throwaway PostgreSQL and delete its data directory.
	@$(PG) down

.PHONY: run-sample
run-sample: $(SAMPLE_STAMP) ## Run sample-service in the foreground (env: PORT, HOST, CALL_GROUP_SIZE, DATABASE_URL, ...).
	java -jar $(SAMPLE_JAR)

.PHONY: bench-experiments
bench-experiments: $(SAMPLE_STAMP) tool-k6 ## Reproduce the five published experiments on real PostgreSQL; writes bench/results/experiments.md.
	@$(REPO)/bench/experiments/run.sh

# PostgreSQL is stopped whatever the tests' outcome; the IT suite and the k6 smoke run share it.
.PHONY: test-it-sample
test-it: test-it-sample
# Its own data directory, so it never stops a PostgreSQL started with `make pg-up`.
test-it-sample: export PG_WORK_DIR := $(WORK)/postgres-it
test-it-sample: $(SAMPLE_STAMP) tool-k6 ## sample-service *IT on real PostgreSQL, then a short smoke run of each k6 script and custom-flow example.
	@$(PG) up
	@rc=0; url="$$($(PG) url)"; \
	  DATABASE_URL="$$url" $(MVN_TEST) -Pit -pl sample-service || rc=$$?; \
	  if [ $$rc -eq 0 ]; then DATABASE_URL="$$url" K6=$(K6) $(SAMPLE_DIR)/scripts/k6-smoke.sh || rc=$$?; fi; \
	  if [ $$rc -eq 0 ]; then K6=$(K6) $(REPO)/k6-scripts/examples/smoke.sh || rc=$$?; fi; \
	  $(PG) down; exit $$rc
