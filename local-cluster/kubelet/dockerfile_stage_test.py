#!/usr/bin/env python3
"""Unit tests of dockerfile-stage.py: the stage parser, .dockerignore rules and, above all, the image
check, which must name every drift between a built image and its Dockerfile stage.

  python3 local-cluster/kubelet/dockerfile_stage_test.py   (make test-images runs it)
"""
import contextlib
import gzip
import hashlib
import importlib.util
import io
import json
import os
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
_spec = importlib.util.spec_from_file_location("dockerfile_stage", os.path.join(HERE, "dockerfile-stage.py"))
ds = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ds)

STAGE = """\
ARG JRE_IMAGE=eclipse-temurin:17
FROM ${JRE_IMAGE} AS app
LABEL org.opencontainers.image.title="an app"
COPY app/ /opt/app/
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=60" \\
    MODE=prod
WORKDIR /opt/app
EXPOSE 8080
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/opt/app/app.jar"]
"""
JAR = b"the jar's bytes"


def oci_archive(path, config, files):
    """A one-layer OCI archive at path with this image config and {image path: (bytes, uid)}."""
    layer_buf = io.BytesIO()
    with tarfile.open(fileobj=layer_buf, mode="w") as layer:
        for name, (data, uid) in files.items():
            info = tarfile.TarInfo(name.lstrip("/"))
            info.size, info.uid, info.gid = len(data), uid, uid
            layer.addfile(info, io.BytesIO(data))
    blobs = {}

    def put(data):
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        blobs[digest] = data
        return {"digest": digest, "size": len(data)}

    layer_desc = put(gzip.compress(layer_buf.getvalue()))
    config_desc = put(json.dumps({"config": config}).encode())
    manifest_desc = put(json.dumps({"schemaVersion": 2, "config": config_desc, "layers": [layer_desc]}).encode())
    with tarfile.open(path, "w") as tar:
        for name, data in [("index.json", json.dumps({"manifests": [manifest_desc]}).encode())] + [
            ("blobs/sha256/" + d.split(":")[1], b) for d, b in blobs.items()
        ]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def image_config(**changes):
    """The config `docker build` gives the stage above, on a base with JAVA_HOME, then changes."""
    cfg = {
        "User": "65532:65532",
        "Env": ["JAVA_HOME=/opt/java/openjdk", "JAVA_TOOL_OPTIONS=-XX:MaxRAMPercentage=60", "MODE=prod"],
        "Entrypoint": ["java", "-jar", "/opt/app/app.jar"],
        "WorkingDir": "/opt/app",
        "ExposedPorts": {"8080/tcp": {}},
        "Labels": {"org.opencontainers.image.title": "an app"},
    }
    cfg.update(changes)
    return cfg


class ImageCheck(unittest.TestCase):
    """cmd_check on a real OCI archive: silent and 0 when it matches, each drift named and 1."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.repo = self.dir.name
        os.mkdir(os.path.join(self.repo, "app"))
        with open(os.path.join(self.repo, "app", "app.jar"), "wb") as f:
            f.write(JAR)
        self.dockerfile = self.write_dockerfile(STAGE)
        self.archive = os.path.join(self.repo, "app.tar")

    def tearDown(self):
        self.dir.cleanup()

    def write_dockerfile(self, text):
        path = os.path.join(self.repo, "Dockerfile")
        with open(path, "w") as f:
            f.write(text)
        return path

    def check(self, config=None, files=None):
        """(exit code, printed differences) of checking an archive built from config and files."""
        oci_archive(self.archive, config or image_config(), files or {"/opt/app/app.jar": (JAR, 0)})
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = ds.cmd_check(self.dockerfile, "app", self.archive, self.repo, self.repo)
        return rc, out.getvalue()

    def assert_drift(self, rc, out, *phrases):
        self.assertEqual(rc, 1, out)
        for phrase in phrases:
            self.assertIn(phrase, out)

    def test_matching_image_passes(self):
        self.assertEqual(self.check(), (0, ""))

    def test_changed_user_in_the_dockerfile_fails(self):
        self.write_dockerfile(STAGE.replace("USER 65532:65532", "USER 1000:1000"))
        self.assert_drift(*self.check(), "User: image has '65532:65532', the Dockerfile says '1000:1000'")

    def test_changed_env_in_the_dockerfile_fails(self):
        self.write_dockerfile(STAGE.replace("MODE=prod", "MODE=debug"))
        self.assert_drift(*self.check(), "Env: image lacks 'MODE=debug'")

    def test_image_without_an_env_entry_fails(self):
        self.assert_drift(*self.check(image_config(Env=["MODE=prod"])), "Env: image lacks 'JAVA_TOOL_OPTIONS=")

    def test_changed_entrypoint_fails(self):
        self.assert_drift(*self.check(image_config(Entrypoint=["java", "-jar", "app.jar"])), "Entrypoint: image has")

    def test_changed_workdir_fails(self):
        self.assert_drift(*self.check(image_config(WorkingDir="/")), "WorkingDir: image has '/'")

    def test_missing_label_fails(self):
        self.assert_drift(*self.check(image_config(Labels={})), "Labels: image has {}")

    def test_missing_exposed_port_fails(self):
        self.assert_drift(*self.check(image_config(ExposedPorts={"9090/tcp": {}})), "ExposedPorts:")

    def test_file_with_other_content_fails(self):
        rc, out = self.check(files={"/opt/app/app.jar": (b"an older jar", 0)})
        self.assert_drift(rc, out, "file /opt/app/app.jar differs from app/app.jar")

    def test_missing_file_fails(self):
        rc, out = self.check(files={"/opt/app/other.jar": (JAR, 0)})
        self.assert_drift(rc, out, "file /opt/app/app.jar missing (COPY of app/app.jar)")

    def test_file_not_owned_by_root_fails(self):
        rc, out = self.check(files={"/opt/app/app.jar": (JAR, 65532)})
        self.assert_drift(rc, out, "is owned by 65532:65532, COPY makes it 0:0")

    def test_every_drift_is_named(self):
        rc, out = self.check(image_config(User="0", WorkingDir="/"), {"/opt/app/app.jar": (b"x", 0)})
        self.assert_drift(rc, out, "User:", "WorkingDir:", "differs")
        self.assertEqual(len(out.splitlines()), 3, out)


class StageParser(unittest.TestCase):
    def test_stage_config_and_copies(self):
        with tempfile.NamedTemporaryFile("w", suffix=".Dockerfile") as f:
            f.write(STAGE)
            f.flush()
            plan = ds.parse_stage(f.name, "app")
        self.assertEqual(plan["base"], "JRE_IMAGE")
        self.assertEqual(plan["config"]["Env"], ["JAVA_TOOL_OPTIONS=-XX:MaxRAMPercentage=60", "MODE=prod"])
        self.assertEqual(plan["config"]["User"], "65532:65532")
        self.assertEqual(plan["copies"], [{"from": None, "src": "app/", "dst": "/opt/app/"}])

    def test_run_in_a_runtime_stage_is_refused(self):
        with tempfile.NamedTemporaryFile("w", suffix=".Dockerfile") as f:
            f.write(STAGE + "RUN echo hi\n")
            f.flush()
            with self.assertRaises(SystemExit):
                ds.parse_stage(f.name, "app")

    def test_every_runtime_stage_of_the_dockerfile_builds_here(self):
        bases = {"operator": "JRE_IMAGE", "sample-service": "JRE_IMAGE", "spring-shop": "JRE_IMAGE",
                 "k6-runner": "RUNNER_BASE_IMAGE", "sample-service-jdk25": "JRE25_IMAGE",
                 "spring-shop-jdk25": "JRE25_IMAGE"}
        for stage, base in bases.items():
            plan = ds.parse_stage(os.path.join(REPO, "Dockerfile"), stage)
            self.assertEqual(plan["base"], base, stage)
            self.assertEqual(plan["config"]["User"], "65532:65532", stage)
            for c in plan["copies"]:
                self.assertTrue(c["from"] is None or c["from"] in ds.ARTIFACTS, f"{stage}: COPY --from={c['from']}")


class DockerIgnore(unittest.TestCase):
    PATTERNS = ["**/target", "bench", "!bench/targets/spring-shop/src", "k6-scripts/*.log"]

    def test_rules(self):
        cases = {
            "operator/src/Main.kt": False,
            "operator/target/operator.jar": True,
            "bench/results/warmup.md": True,
            "bench/targets/spring-shop/src/Shop.java": False,
            "bench/targets/spring-shop/README.md": True,
            "k6-scripts/run.log": True,
            "k6-scripts/warmup.js": False,
        }
        for path, want in cases.items():
            self.assertEqual(ds.ignored(path, self.PATTERNS), want, path)

    def test_last_matching_line_wins(self):
        self.assertTrue(ds.ignored("bench/targets/spring-shop/src/A.java", self.PATTERNS + ["bench"]))


if __name__ == "__main__":
    unittest.main()
