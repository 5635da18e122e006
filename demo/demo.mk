# `make demo`: danki's main job end to end on the local cluster; included by the top-level Makefile.

##@ Demo

.PHONY: demo
demo: ## Build, start the local cluster, install danki, scale a warmed and a cold Deployment 1->4, compare; writes demo-report.html (KEEP=1 keeps it running).
	@REPO=$(REPO) KUBECTL=$(KUBECTL) K6=$(K6) HELM=$(HELM) MAKE="$(MAKE)" KEEP=$(KEEP) $(REPO)/demo/run-demo.sh

.PHONY: demo-report
demo-report: ## Re-render demo-report.html from the last demo run's data in .work/demo.
	@python3 $(REPO)/demo/report.py html $(WORK)/demo $(REPO)/demo-report.html
