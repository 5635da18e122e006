# `make demo`: danki's main job end to end on the local cluster; included by the top-level Makefile.

##@ Demo

.PHONY: demo
demo: ## Build, start the local cluster, install danki, scale a warmed and a cold Deployment 1->3, compare; writes demo-report.html (KEEP=1 keeps it running).
	@REPO=$(REPO) VERSION=$(VERSION) KUBECTL=$(KUBECTL) K6=$(K6) HELM=$(HELM) MAKE="$(MAKE)" KEEP=$(KEEP) $(REPO)/demo/run-demo.sh

.PHONY: demo-report
demo-report: ## Re-render demo-report.html from the last demo run's data in .work/demo.
	@python3 $(REPO)/demo/report.py html $(WORK)/demo $(REPO)/demo-report.html

.PHONY: demo-picture
demo-picture: ## The README's picture (docs/demo-exam-start.png) from the last demo-report.html, by headless chromium.
	@test -f $(REPO)/demo-report.html || { echo "no demo-report.html: run make demo first" >&2; exit 1; }
	@python3 $(REPO)/demo/picture.py $(REPO)/demo-report.html $(REPO)/docs/demo-exam-start.png

# ---- the report in a real browser -----------------------------------------------------------------
# Debian's chromium (apt) driven by playwright-core (npm, pinned, in bin/node); Playwright's own browser
# downloads are never used: the test launches /usr/bin/chromium.
PLAYWRIGHT_CORE_VERSION := 1.65.1
BROWSER_TOOLS := $(BIN)/node
PLAYWRIGHT_CORE := $(BROWSER_TOOLS)/node_modules/playwright-core/package.json
REPORT_TEST_DIR := $(WORK)/report-browser-test

.PHONY: tool-browser
tool-browser: ## Install chromium (apt, when missing) and playwright-core $(PLAYWRIGHT_CORE_VERSION) (npm, into bin/node).
	@test -x /usr/bin/chromium || { echo "==> installing chromium (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
	@/usr/bin/chromium --version
	@grep -q '"version": "$(PLAYWRIGHT_CORE_VERSION)"' $(PLAYWRIGHT_CORE) 2>/dev/null || { \
	  echo "==> installing playwright-core $(PLAYWRIGHT_CORE_VERSION) (npm) into $(BROWSER_TOOLS)"; \
	  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --silent --no-audit --no-fund --prefix $(BROWSER_TOOLS) \
	    playwright-core@$(PLAYWRIGHT_CORE_VERSION); }

.PHONY: test-report-browser
test: test-report-browser
test-report-browser: tool-browser ## demo-report.html from the recorded run's figures, checked in headless chromium.
	@rm -rf $(REPORT_TEST_DIR) && mkdir -p $(REPORT_TEST_DIR)
	python3 $(REPO)/demo/tests/make_fixture.py $(REPORT_TEST_DIR)
	python3 $(REPO)/demo/report.py html $(REPORT_TEST_DIR) $(REPORT_TEST_DIR)/demo-report.html
	node $(REPO)/demo/tests/report_browser_test.mjs $(BROWSER_TOOLS) $(REPORT_TEST_DIR)/demo-report.html \
	  $(REPORT_TEST_DIR)/expected.json $(REPORT_TEST_DIR)/demo-report.png

# ---- the demo's own checks ---------------------------------------------------------------------------
.PHONY: test-demo-scripts e2e-demo-watch
test: test-demo-scripts
test-demo-scripts: ## Unit tests of the demo's Python helpers (which pod states stop the demo).
	python3 -m unittest discover -s $(REPO)/demo/tests -p 'test_*.py'

e2e-suites: e2e-demo-watch
e2e-demo-watch: ## On the running local cluster: a pod that cannot start stops the demo's waits at once, with its reason and last log lines.
	@REPO=$(REPO) KUBECTL=$(KUBECTL) KUBECONFIG=$(KUBECONFIG) $(REPO)/demo/tests/watch-pods-e2e.sh
