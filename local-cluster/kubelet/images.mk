# Make targets of the images built here without Docker (local-cluster/kubelet/node-images.sh):
# danki's images from the Dockerfile's runtime stages, the test images, and the local bases under
# them; `make images` pushes them into the registry of each running instance it concerns
# (local-cluster/registry/push.sh). Included by the top-level Makefile after bench/bench.mk, which
# builds spring-shop's jar. `make test` runs test-images, so the Dockerfile cannot drift from the
# images the tests run. See docs/local-cluster-real-kubelet.md, "Images, from a local registry".

IMAGES_JARS := operator/target/operator-all.jar sample-service/target/sample-service-all.jar $(SPRING_SHOP_JAR)

##@ Images

.PHONY: image-deps images test-images
image-deps: ## Install the image tools with apt, pinned: umoci, skopeo, busybox-static (part of node-deps).
	@$(LOCAL_CLUSTER)/kubelet/node-deps.sh images

# Then into the registries of the default instance and of CLUSTER_INSTANCE, those that run, so a rebuilt
# image reaches a running cluster; a node that has the old one under the same tag keeps it for pods
# with imagePullPolicy IfNotPresent (the default for :dev and :0.1.0), as on any cluster.
images: image-deps $(IMAGES_JARS) tool-k6 ## Build every image (the bases, danki/{operator,sample-service,k6-runner,spring-shop}:dev, danki/{http-status,http-fetch}:dev; skips those unchanged) and push them into the running default (and CLUSTER_INSTANCE's) cluster's registry.
	@REPO=$(REPO) BIN=$(BIN) $(LOCAL_CLUSTER)/kubelet/node-images.sh build base apps test
	@for i in $(sort 0 $(CLUSTER_INSTANCE)); do \
	  if [ "$$i" = 0 ]; then dir=$(CLUSTER_DIR); else dir=; fi; \
	  REPO=$(REPO) BIN=$(BIN) CLUSTER_INSTANCE=$$i CLUSTER_DIR=$$dir $(LOCAL_CLUSTER)/registry/push.sh --if-running; \
	done

test-images: images ## Each image against its Dockerfile stage (user, entrypoint, env, workdir, labels, files), after the check's own unit tests (part of make test).
	@python3 $(LOCAL_CLUSTER)/kubelet/dockerfile_stage_test.py
	@REPO=$(REPO) BIN=$(BIN) $(LOCAL_CLUSTER)/kubelet/node-images.sh check
