# Make targets of the images built here without Docker (local-cluster/kubelet/node-images.sh):
# danki's images from the Dockerfile's runtime stages, the test images, and the local bases under
# them; `make images` pushes them into the registry of each running instance it concerns
# (local-cluster/registry/push.sh). Included by the top-level Makefile after bench/bench.mk, which
# builds spring-shop's jar. `make test` runs test-images, so the Dockerfile cannot drift from the
# images the tests run. See docs/local-cluster-real-kubelet.md, "Images, from a local registry".
# `make sbom` writes an SBOM of each (sbom.sh), which test-images checks (sbom_check.py).

IMAGES_JARS := operator/target/operator-all.jar sample-service/target/sample-service-all.jar $(SPRING_SHOP_JAR)

##@ Images

SBOM_DIR := $(REPO)/.build/sbom

.PHONY: image-deps images demo-images sbom test-images
image-deps: ## Install the image tools with apt, pinned: umoci, skopeo, busybox-static (part of node-deps).
	@$(LOCAL_CLUSTER)/kubelet/node-deps.sh images

# After a build, into the registries of the default instance and of CLUSTER_INSTANCE, those that run, so a
# rebuilt image reaches a running cluster; a node that has the old one under the same tag keeps it for pods
# with imagePullPolicy IfNotPresent (the default for :dev and :0.1.0), as on any cluster.
PUSH_TO_RUNNING = for i in $(sort 0 $(CLUSTER_INSTANCE)); do \
	  if [ "$$i" = 0 ]; then dir=$(CLUSTER_DIR); else dir=; fi; \
	  REPO=$(REPO) BIN=$(BIN) CLUSTER_INSTANCE=$$i CLUSTER_DIR=$$dir $(LOCAL_CLUSTER)/registry/push.sh --if-running; \
	done

images: image-deps $(IMAGES_JARS) tool-k6 ## Build every image (the bases, danki/{operator,sample-service,k6-runner,spring-shop}:dev, danki/{sample-service,spring-shop}-jdk25:dev, danki/{http-status,http-fetch}:dev; skips those unchanged) and push them into the running default (and CLUSTER_INSTANCE's) cluster's registry.
	@REPO=$(REPO) BIN=$(BIN) $(LOCAL_CLUSTER)/kubelet/node-images.sh build base apps test
	@$(PUSH_TO_RUNNING)

# Only the images make demo runs (DEMO_STAGES in image-names.sh) and their bases: a first make demo
# skips spring-shop's jar and images, sample-service on JRE 17 and the test images. Pushed as images does.
demo-images: image-deps operator/target/operator-all.jar sample-service/target/sample-service-all.jar tool-k6 ## Build only the images make demo runs (danki/{operator,sample-service-jdk25,k6-runner}:dev) and push them as images does.
	@REPO=$(REPO) BIN=$(BIN) $(LOCAL_CLUSTER)/kubelet/node-images.sh build demo
	@$(PUSH_TO_RUNNING)

sbom: images tool-syft ## Write an SPDX JSON SBOM of each image built here to .build/sbom/<image>.spdx.json with syft (skips those newer than their image).
	@REPO=$(REPO) BIN=$(BIN) SBOM_DIR=$(SBOM_DIR) $(LOCAL_CLUSTER)/kubelet/sbom.sh

# The SBOM check compares with what Maven resolves for the fat jars in the operator and sample-service
# images, written to each module's target/runtime-dependencies.txt; sample-service-jdk25 holds the same
# jar, so the same list. The spring-shop images' SBOMs are written but not checked, as before.
test-images: images sbom ## Each image against its Dockerfile stage (user, entrypoint, env, workdir, labels, files) and its SBOM against Maven's dependencies and K6_VERSION, after the checks' own tests (part of make test).
	@python3 $(LOCAL_CLUSTER)/kubelet/dockerfile_stage_test.py
	@REPO=$(REPO) BIN=$(BIN) $(LOCAL_CLUSTER)/kubelet/node-images.sh check
	@python3 $(LOCAL_CLUSTER)/kubelet/sbom_check.py --self-test
	@$(MVN) -q dependency:list -pl operator,sample-service -DincludeScope=runtime \
	  -DoutputAbsoluteArtifactFilename=true -DoutputFile=target/runtime-dependencies.txt -DappendOutput=false
	@python3 $(LOCAL_CLUSTER)/kubelet/sbom_check.py $(SBOM_DIR) --k6-version $(K6_VERSION) \
	  --maven operator=$(REPO)/operator/target/runtime-dependencies.txt \
	  --maven sample-service=$(REPO)/sample-service/target/runtime-dependencies.txt \
	  --maven sample-service-jdk25=$(REPO)/sample-service/target/runtime-dependencies.txt
