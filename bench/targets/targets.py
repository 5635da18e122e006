"""The warm-up targets of danki's benchmarks, described once for every harness.

- sample: the project's own sample service (Ktor on Netty, an exam server): the demo's exam flow.
- spring-shop: a Spring Boot app on Tomcat (bench/targets/spring-shop), standing in for an app danki
  does not own, so that defaults are not tuned to one app.

A target says how to start it as a process on loopback, how to run it as a pod of the local cluster,
what danki warms it with, and how "the first 100 real requests" are sent to it.
"""

import os
from dataclasses import dataclass, field, replace

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _demo_paths():
    """The danki.dev/paths value of the demo's exam-warm Deployment (demo/manifests/warmup/warmup-annotations.yaml).

    The value is a YAML block scalar: the lines after its key that are indented deeper than the key.
    """
    path = os.path.join(REPO, "demo", "manifests", "warmup", "warmup-annotations.yaml")
    lines = open(path).read().splitlines()
    key = next(i for i, line in enumerate(lines) if line.strip() == "danki.dev/paths: |")
    indent = len(lines[key]) - len(lines[key].lstrip()) + 2
    block = []
    for line in lines[key + 1 :]:
        if not line.startswith(" " * indent):
            break
        block.append(line[indent:])
    return "\n".join(block) + "\n"


@dataclass(frozen=True)
class Target:
    name: str
    jar: str
    """Path of the fat jar, relative to the repository."""
    image: str
    """The image that runs the jar (the Dockerfile's stage of the same name, built by `make images`)."""
    pod_jar: str
    """Where the image keeps the jar (the Dockerfile's COPY): how its JVM is told apart among the host's processes."""
    ready_path: str
    metrics_path: str
    """The Prometheus page with the JVM's JIT counter (danki.dev/jit-metrics)."""
    warmup_paths: str
    """What danki warms it with: the danki.dev/paths value."""
    first100: dict = field(default_factory=dict)
    """The first real requests: a k6 script (relative to the repo) and its env, sent at 20/s."""
    full_warm_paths: str = ""
    """What brings it to its fully warm steady state: the users' requests, in the danki.dev/paths format."""
    env: dict = field(default_factory=dict)
    """Extra environment of the process on loopback (its port comes from PORT)."""
    jvm_args: tuple = ()

    def jar_path(self):
        return os.path.join(REPO, self.jar)


SAMPLE = Target(
    name="sample",
    jar="sample-service/target/sample-service-all.jar",
    image="danki/sample-service:dev",
    pod_jar="/opt/danki/sample-service.jar",
    ready_path="/readyz",
    metrics_path="/metrics",
    warmup_paths=_demo_paths(),
    # 100 candidates starting an exam (GET the exam, POST a full sheet) at 20/s: the exam start, on the exams
    # the plan warms (1 and 2). With exam-start.js's default of 20 exams, 18 of them were generated and
    # cached by the first users' requests, whatever the warm-up had done: the bench measured an unwarmed
    # cache, not the JIT
    first100={"script": "k6-scripts/exam-start.js", "env": {"RATE": "20", "DURATION": "5", "PHASE": "first",
                                                          "EXAMS": "2"}},
    # the exam routes with their writes committed, as candidates' are
    full_warm_paths=_demo_paths(),
    env={"HOST": "127.0.0.1"},
)

SPRING = Target(
    name="spring-shop",
    jar="bench/targets/spring-shop/target/spring-shop.jar",
    image="danki/spring-shop:dev",
    pod_jar="/opt/danki/spring-shop.jar",
    ready_path="/actuator/health/readiness",
    metrics_path="/actuator/prometheus",
    warmup_paths=open(os.path.join(REPO, "bench", "targets", "spring-shop", "warmup-paths.txt")).read(),
    # users at 20/s: the same endpoints as the warm-up, with other products, categories and carts
    first100={"script": "bench/warmup/fixed-warmup.js",
              "env": {"COUNT": "100", "RATE": "20", "WARMUP_HEADER": "0",
                      "PATHS": open(os.path.join(REPO, "bench", "targets", "spring-shop", "user-paths.txt")).read()}},
    full_warm_paths=open(os.path.join(REPO, "bench", "targets", "spring-shop", "user-paths.txt")).read(),
    env={"SERVER_ADDRESS": "127.0.0.1"},
)

TARGETS = {t.name: t for t in (SAMPLE, SPRING)}

SPRING_JDK25_POD_JAR = "/opt/danki/spring-shop/spring-shop.jar"
"""The launcher jar of the JDK 25 image's extracted Spring Boot layout (Dockerfile stage spring-shop-jdk25):
an AOT cache wants the extracted layout, whose JVM command line names this jar, not the fat one."""

JDK25_TARGETS = {t.name: t for t in (
    replace(SAMPLE, name="sample-jdk25", image="danki/sample-service-jdk25:dev"),
    replace(SPRING, name="spring-shop-jdk25", image="danki/spring-shop-jdk25:dev", pod_jar=SPRING_JDK25_POD_JAR),
)}
"""The targets on JDK 25, which can start from danki's AOT cache (the bench's aot section). Cluster only, so
not in TARGETS: on loopback they would run the same jar on the host's JVM as their originals."""
