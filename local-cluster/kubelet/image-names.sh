# shellcheck shell=bash disable=SC2034 # sourced: the names are used by the scripts that source it
# image-names.sh - the references of the images the local cluster builds here; sourced by
# node-images.sh, which builds them, node-env.sh, which names the sandbox image, and
# registry/push.sh, which pushes the others into the instance's registry.
# `localhost/` marks an image built here that users never pull from a public registry (the bases);
# the nodes' containerd sends `localhost/` and `docker.io/` (danki's own) to the instance's registry.

# The pod sandbox, from the Kubernetes module's build/pause/linux/pause.c (its Makefile's TAG).
PAUSE_TAG=3.10.2
PAUSE_IMAGE=localhost/danki/pause:$PAUSE_TAG
# Stands in for the Dockerfile's JRE_IMAGE (eclipse-temurin 17 JRE): a jlink'd runtime of the host's
# JDK 17 on the host's glibc, at Temurin's JAVA_HOME, with busybox as the shell and core tools.
JRE_IMAGE=localhost/danki/jre:17
# Stands in for the Dockerfile's JRE25_IMAGE (eclipse-temurin 25 JRE): the same, jlink'd from the host's
# Temurin 25 JDK, with its default CDS archive as Temurin's JRE has one.
JRE25_IMAGE=localhost/danki/jre:25
# Stands in for the Dockerfile's RUNNER_BASE_IMAGE (debian slim): glibc, coreutils, busybox for the rest.
SLIM_IMAGE=localhost/danki/debian:12-slim
# The Dockerfile's runtime stages (node-images.sh builds them from it), tagged as the chart and the
# tests name them. Stage name = image name after danki/.
APP_STAGES=(operator sample-service k6-runner spring-shop sample-service-jdk25 spring-shop-jdk25)
APP_TAG=dev
# What make demo runs (demo-images): the operator the chart installs, sample-service-jdk25 (the exam
# Deployments' image: JDK 25, so exam-warm gets danki's AOT cache) and k6-runner (the runner image,
# which seals each AOT cache). The JRE 17 and 25 bases and the slim one.
DEMO_STAGES=(operator sample-service-jdk25 k6-runner)
# chart_tag: the chart's appVersion, the tag it installs when none is set; registry/push.sh tags danki's
# images with it as well as APP_TAG, so charts and manifests work as users write them.
chart_tag() { sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$REPO/charts/danki/Chart.yaml"; }
# Stands in for the test images' PYTHON_IMAGE: the host's Python 3.11 on the slim base.
PYTHON_IMAGE=localhost/danki/python:3.11
# The test images' stages, in local-cluster/images/Dockerfile.
TEST_STAGES=(http-status http-fetch)

# registry_images: what each instance's registry serves, one "archive repository:tag" a line (the
# archive is .build/node-images/<archive>.tar). In the registry a reference's path is the repository,
# whether the pod names it on localhost/ or docker.io/. The nodes import the pause image; it is here
# too because containerd 1.6 does not pin it, and the kubelet's image GC may remove it from a node.
registry_images() {
  local chart st
  chart=$(chart_tag)
  [[ -n $chart ]] || { echo "no appVersion in $REPO/charts/danki/Chart.yaml" >&2; return 1; }
  echo "pause ${PAUSE_IMAGE#localhost/}"
  echo "jre ${JRE_IMAGE#localhost/}"
  echo "jre25 ${JRE25_IMAGE#localhost/}"
  echo "slim ${SLIM_IMAGE#localhost/}"
  echo "python ${PYTHON_IMAGE#localhost/}"
  for st in "${APP_STAGES[@]}"; do printf '%s danki/%s:%s\n' "$st" "$st" "$APP_TAG" "$st" "$st" "$chart"; done
  for st in "${TEST_STAGES[@]}"; do echo "$st danki/$st:$APP_TAG"; done
}
