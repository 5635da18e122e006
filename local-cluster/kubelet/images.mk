# Make targets of the images built here without a registry (local-cluster/kubelet/node-images.sh):
# danki's images from the Dockerfile's runtime stages, the test images, and the local bases under
# them. Included by the top-level Makefile after bench/bench.mk, which builds spring-shop's jar.
# `make test` runs test-images, so the Dockerfile cannot drift from the images the tests run.
# See docs/local-cluster-real-kubelet.md, "Images, without a registry".

IMAGES_JARS := operator/target/operator-all.jar sample-service/target/sample-service-all.jar $(SPRING_SHOP_JAR)

##@ Images (no registry)

.PHONY: image-deps images test-images
image-deps: ## Install the image tools with apt, pinned: umoci, skopeo, busybox-static (part of node-deps).
	@$(LOCAL_CLUSTER)/kubelet/node-deps.sh images

images: image-deps $(IMAGES_JARS) tool-k6 ## Build every image: the bases, danki/{operator,sample-service,k6-runner,spring-shop}:dev and danki/{http-status,http-fetch}:dev; skips those whose inputs did not change.
	@REPO=$(REPO) BIN=$(BIN) $(LOCAL_CLUSTER)/kubelet/node-images.sh build base apps test

test-images: images ## Each image against its Dockerfile stage (user, entrypoint, env, workdir, labels, files), after the check's own unit tests (part of make test).
	@python3 $(LOCAL_CLUSTER)/kubelet/dockerfile_stage_test.py
	@REPO=$(REPO) BIN=$(BIN) $(LOCAL_CLUSTER)/kubelet/node-images.sh check
