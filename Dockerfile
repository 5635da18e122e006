# syntax=docker/dockerfile:1.7
# danki images: `make docker-build` builds the operator, sample-service and k6-runner targets.
#   docker build --target operator       -t danki/operator:<tag> .
#   docker build --target sample-service -t danki/sample-service:<tag> .
#   docker build --target k6-runner      -t danki/k6-runner:<tag> .   (custom flows' runner pods)
#   docker build --target spring-shop    -t danki/spring-shop:<tag> .  (the benchmarks' second target)
#   docker build --target sample-service-jdk25 -t danki/sample-service-jdk25:<tag> .  (JDK 25: AOT cache)
#   docker build --target spring-shop-jdk25    -t danki/spring-shop-jdk25:<tag> .
#
# Base images are pinned by version below. To pin them by digest as well (recommended for
# releases), see docs/install.md, "Pinning base images by digest": resolve each tag with
# `docker buildx imagetools inspect <image:tag>` and pass `--build-arg JRE_IMAGE=<image:tag>@sha256:...`
# (and JRE25_IMAGE, MAVEN_IMAGE, GO_IMAGE) or write the digest into the ARG defaults.
# `make lint-docker` (charts/scripts/lint-dockerfile.py) checks this file statically.

ARG MAVEN_IMAGE=maven:3.9.9-eclipse-temurin-17
ARG GO_IMAGE=golang:1.26.8-bookworm
ARG JRE_IMAGE=eclipse-temurin:17.0.15_6-jre-noble
# The JDK 25 variants' JRE: JDK 25 writes an AOT cache in one step (-XX:AOTCacheOutput, JEP 514).
ARG JRE25_IMAGE=eclipse-temurin:25.0.3_9-jre-noble
ARG RUNNER_BASE_IMAGE=debian:12.12-slim

# ---- build: the operator and sample service fat jars (Maven, JDK 17) ----
FROM ${MAVEN_IMAGE} AS build
WORKDIR /src
# POMs first, so a source-only change reuses the dependency layer's cache.
COPY pom.xml ./
COPY operator/pom.xml operator/
COPY sample-service/pom.xml sample-service/
COPY local-cluster/net-agent/pom.xml local-cluster/net-agent/
# every module the root POM lists must be there, even one not built here
COPY cli/pom.xml cli/
COPY operator/src operator/src
COPY sample-service/src sample-service/src
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -ntp -Dkotlin.compiler.daemon=false -DskipTests -Dktlint.skip -Ddetekt.skip \
      -pl operator,sample-service -am package

# ---- spring-shop-build: the benchmarks' Spring Boot shop, a standalone Maven project ----
# Its own stage: not in the root reactor, so a change to it never rebuilds the operator's jar.
FROM ${MAVEN_IMAGE} AS spring-shop-build
WORKDIR /src/bench/targets/spring-shop
COPY bench/targets/spring-shop/pom.xml ./
COPY bench/targets/spring-shop/src src
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -ntp -DskipTests package

# ---- k6: the pinned k6, built from source through the Go module proxy ----
FROM ${GO_IMAGE} AS k6
# Must equal K6_VERSION in the Makefile; `make lint-docker` checks it.
ARG K6_VERSION=v1.8.1
ENV CGO_ENABLED=0 GOFLAGS=-trimpath
RUN --mount=type=cache,target=/root/.cache/go-build \
    go install -ldflags="-s -w" "go.k6.io/k6@${K6_VERSION}"

# ---- operator: JRE + operator jar + k6 + k6-scripts ----
FROM ${JRE_IMAGE} AS operator
LABEL org.opencontainers.image.title="danki operator" \
      org.opencontainers.image.description="Warms JVM pods with k6 before they join their Service"
COPY --from=k6 /go/bin/k6 /usr/local/bin/k6
COPY k6-scripts/ /opt/danki/k6-scripts/
COPY --from=build /src/operator/target/operator-all.jar /opt/danki/operator.jar
# The chart leaves DANKI_K6_BINARY and DANKI_K6_SCRIPT empty, so these image defaults apply.
# java.io.tmpdir is /tmp, the chart's emptyDir, because the root filesystem is read-only. The heap
# gets 25 % of the container's memory: its k6 children share the container's limit.
ENV DANKI_K6_BINARY=/usr/local/bin/k6 \
    DANKI_K6_SCRIPT=/opt/danki/k6-scripts/warmup.js \
    K6_NO_USAGE_REPORT=true \
    JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=25 -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp"
WORKDIR /opt/danki
EXPOSE 8080
# 65532: the conventional "nonroot" UID; the chart's runAsUser matches it.
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/opt/danki/operator.jar"]

# ---- sample-service: JRE + the sample Ktor service ----
FROM ${JRE_IMAGE} AS sample-service
LABEL org.opencontainers.image.title="danki sample service" \
      org.opencontainers.image.description="A Ktor service with a cold JVM, for danki's demos and tests"
COPY --from=build /src/sample-service/target/sample-service-all.jar /opt/danki/sample-service.jar
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=60 -Djava.io.tmpdir=/tmp"
WORKDIR /opt/danki
EXPOSE 8080
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/opt/danki/sample-service.jar"]

# ---- k6-runner: k6 + danki's k6 scripts, for the runner pods of custom flows ----
# No JVM and no operator: a runner pod runs a tenant's flow and nothing else (docs/security.md).
FROM ${RUNNER_BASE_IMAGE} AS k6-runner
LABEL org.opencontainers.image.title="danki k6 runner" \
      org.opencontainers.image.description="Runs a tenant's k6 flow against one pod, for danki's runner pods"
COPY --from=k6 /go/bin/k6 /usr/local/bin/k6
COPY k6-scripts/ /opt/danki/k6-scripts/
ENV K6_NO_USAGE_REPORT=true
WORKDIR /tmp
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/k6", "run", "--no-usage-report", "--quiet", "--address", "", "/opt/danki/k6-scripts/runner.js"]

# ---- spring-shop: JRE + bench/targets/spring-shop, a Spring Boot app danki does not own ----
FROM ${JRE_IMAGE} AS spring-shop
LABEL org.opencontainers.image.title="danki spring-shop" \
      org.opencontainers.image.description="A Spring Boot web shop with a cold JVM, the second target of danki's benchmarks"
COPY --from=spring-shop-build /src/bench/targets/spring-shop/target/spring-shop.jar /opt/danki/spring-shop.jar
# Tomcat's work folder goes to java.io.tmpdir: /tmp, an emptyDir under a read-only root filesystem.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=60 -Djava.io.tmpdir=/tmp"
WORKDIR /opt/danki
EXPOSE 8080
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/opt/danki/spring-shop.jar"]

# ---- spring-shop-jdk25-extract: spring-shop's fat jar unpacked into Spring Boot's extracted layout ----
# An AOT cache holds classes from plain jars on the class path only, not from a fat jar's nested jars:
# the extracted layout (a launcher jar whose manifest names lib/*.jar) is what the cache can keep.
FROM ${JRE25_IMAGE} AS spring-shop-jdk25-extract
COPY --from=spring-shop-build /src/bench/targets/spring-shop/target/spring-shop.jar /tmp/spring-shop.jar
RUN java -Djarmode=tools -jar /tmp/spring-shop.jar extract --destination /extracted/spring-shop

# ---- sample-service-jdk25: the sample service on JDK 25, which can start from danki's AOT cache ----
FROM ${JRE25_IMAGE} AS sample-service-jdk25
LABEL org.opencontainers.image.title="danki sample service (JDK 25)" \
      org.opencontainers.image.description="A Ktor service with a cold JVM on JDK 25, for danki's AOT cache demos and tests"
COPY --from=build /src/sample-service/target/sample-service-all.jar /opt/danki/sample-service.jar
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=60 -Djava.io.tmpdir=/tmp"
WORKDIR /opt/danki
EXPOSE 8080
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/opt/danki/sample-service.jar"]

# ---- spring-shop-jdk25: spring-shop on JDK 25, in the extracted layout an AOT cache can hold ----
FROM ${JRE25_IMAGE} AS spring-shop-jdk25
LABEL org.opencontainers.image.title="danki spring-shop (JDK 25)" \
      org.opencontainers.image.description="A Spring Boot web shop with a cold JVM on JDK 25, extracted for the AOT cache, for danki's benchmarks"
COPY --from=spring-shop-jdk25-extract /extracted/spring-shop/ /opt/danki/spring-shop/
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=60 -Djava.io.tmpdir=/tmp"
WORKDIR /opt/danki
EXPOSE 8080
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/opt/danki/spring-shop/spring-shop.jar"]
