#!/usr/bin/env python3
"""Checks the SBOMs that make sbom writes (syft, SPDX JSON) against what the images were built from:
an SBOM that leaves out a dependency is worse than none, because a scan of it finds nothing to report.

  operator, sample-service (and sample-service-jdk25, the same jar on JDK 25): every runtime dependency
      Maven resolves for the module, at Maven's version;
      a jar that carries no META-INF/maven/<group>/<artifact>/pom.properties (Gradle's jars: Ktor,
      kotlinx, Micrometer) is named in a note instead, as nothing names it inside a fat jar, for syft or
      any other scanner (docs/releasing.md, Known limits). With no such excuse: the operator's
      io.fabric8:kubernetes-client.
  operator, k6-runner: the k6 binary, Go module go.k6.io/k6 at the Makefile's K6_VERSION.

  sbom_check.py SBOM_DIR --k6-version V --maven operator=FILE --maven sample-service=FILE [--maven IMAGE=FILE]...
      FILE: `mvn dependency:list -DincludeScope=runtime -DoutputAbsoluteArtifactFilename=true` output
  sbom_check.py --self-test     the same check on doctored SBOMs, each of which it must fail
(make test-images runs both.)
"""
import argparse
import io
import json
import os
import sys
import tempfile
import zipfile

K6_IMAGES = ("operator", "k6-runner")
# image -> (group, artifact prefix) that its SBOM must list whatever the jars carry. The sample service's
# io.ktor artifacts belong here too, once its fat jar names them: today none of them does.
REQUIRED = {"operator": ("io.fabric8", "kubernetes-client")}


def purls(sbom_path):
    """The package URLs of an SPDX JSON SBOM, without qualifiers: {"pkg:maven/g/a@v", ...}."""
    with open(sbom_path) as f:
        doc = json.load(f)
    found = set()
    for pkg in doc.get("packages", []):
        for ref in pkg.get("externalRefs", []):
            if ref.get("referenceType") == "purl":
                found.add(ref["referenceLocator"].split("?")[0].split("#")[0])
    return found


def maven_dependencies(list_path):
    """(group, artifact, version, jar path) of each jar in a dependency:list output file."""
    deps = []
    with open(list_path) as f:
        for line in f:
            line = line.split(" -- ")[0].strip()  # " -- module x (auto)": the JPMS name
            coords, sep, path = line.partition(":/")
            parts = coords.split(":")
            if not sep or len(parts) not in (5, 6) or parts[2] != "jar":
                continue
            deps.append((parts[0], parts[1], parts[-2], "/" + path))
    return deps


def has_maven_metadata(jar, group, artifact):
    """Whether the jar names itself; inside a fat jar, this file is all that names a dependency."""
    try:
        with zipfile.ZipFile(jar) as z:
            return f"META-INF/maven/{group}/{artifact}/pom.properties" in z.namelist()
    except (OSError, zipfile.BadZipFile):
        return True  # unreadable: then it is not excused


def versions_of(found, kind, name):
    return sorted(p.split("@", 1)[1] for p in found if p.startswith(f"pkg:{kind}/{name}@"))


def check(sbom_dir, k6_version, maven_lists, out=sys.stdout):
    """Every failure, one line each; notes go to out."""
    failures, cache = [], {}

    def sbom(image):
        if image not in cache:
            path = os.path.join(sbom_dir, image + ".spdx.json")
            cache[image] = purls(path) if os.path.isfile(path) else None
            if cache[image] is None:
                failures.append(f"{image}: no SBOM {path} (run: make sbom)")
        return cache[image]

    for image in K6_IMAGES:
        found = sbom(image)
        if found is not None and f"pkg:golang/go.k6.io/k6@{k6_version}" not in found:
            failures.append(f"{image}: no go.k6.io/k6 {k6_version} (has: {versions_of(found, 'golang', 'go.k6.io/k6')})")
    for image, list_path in sorted(maven_lists.items()):
        found, deps = sbom(image), maven_dependencies(list_path)
        if found is None:
            continue
        if not deps:
            failures.append(f"{image}: no runtime dependencies in {list_path}")
        group, prefix = REQUIRED.get(image, (None, None))
        if group and not any(g == group and a.startswith(prefix) for g, a, _, _ in deps):
            failures.append(f"{image}: Maven resolves no {group}:{prefix}* ({list_path})")
        listed, excused = 0, []
        for g, a, v, jar in deps:
            if f"pkg:maven/{g}/{a}@{v}" in found:
                listed += 1
                continue
            required = g == group and a.startswith(prefix)
            if not required and not has_maven_metadata(jar, g, a):
                excused.append(f"{g}:{a}")
                continue
            failures.append(f"{image}: no {g}:{a} {v} (has: {versions_of(found, 'maven', g + '/' + a)})")
        print(f"sbom {image}: {listed} of {len(deps)} runtime dependencies listed at Maven's version", file=out)
        if excused:
            print(f"  {len(excused)} not named by their jars, so in no SBOM of a fat jar: {', '.join(excused)}", file=out)
    return failures


def self_test():
    """Doctored SBOMs: the complete one passes, and each one missing a package must fail, naming it."""
    with tempfile.TemporaryDirectory() as tmp:
        def jar(group, artifact, named):
            path = os.path.join(tmp, artifact + ".jar")
            with zipfile.ZipFile(path, "w") as z:
                z.writestr(f"META-INF/maven/{group}/{artifact}/pom.properties" if named else "x.class", "")
            return path

        # (group, artifact, version, whether its jar names itself). kubernetes-client's names nothing
        # here: a required package is missing all the same.
        deps = {"operator": [("io.fabric8", "kubernetes-client", "7.0.0", False), ("g", "named", "1", True)],
                "sample-service": [("io.ktor", "ktor-server-core", "3.0.0", False), ("g", "netty", "4", True)]}
        lists = {}
        for image, rows in deps.items():
            lists[image] = os.path.join(tmp, image + ".txt")
            with open(lists[image], "w") as f:
                f.write("The following files have been resolved:\n")
                for g, a, v, named in rows:
                    f.write(f"   {g}:{a}:jar:{v}:compile:{jar(g, a, named)} -- module x (auto)\n")
        k6 = "pkg:golang/go.k6.io/k6@v1.0.0"
        complete = {"operator": [k6, "pkg:maven/io.fabric8/kubernetes-client@7.0.0?type=jar", "pkg:maven/g/named@1"],
                    "sample-service": ["pkg:maven/g/netty@4"], "k6-runner": [k6]}

        def run(case, doctor):
            sboms = {image: list(p) for image, p in complete.items()}
            doctor(sboms)
            sbom_dir = os.path.join(tmp, case.replace(" ", "-"))
            os.mkdir(sbom_dir)
            for image, found in sboms.items():
                refs = [{"referenceType": "purl", "referenceLocator": p} for p in found]
                with open(os.path.join(sbom_dir, image + ".spdx.json"), "w") as f:
                    json.dump({"packages": [{"name": "p", "externalRefs": refs}]}, f)
            return check(sbom_dir, "v1.0.0", lists, out=io.StringIO())

        cases = [
            ("complete", lambda s: None, None),
            ("no kubernetes-client", lambda s: s["operator"].remove(complete["operator"][1]), "io.fabric8:kubernetes-client"),
            ("a named dependency missing", lambda s: s["operator"].remove("pkg:maven/g/named@1"), "g:named 1"),
            ("another kubernetes-client", lambda s: s["operator"].__setitem__(1, "pkg:maven/io.fabric8/kubernetes-client@6.0.0"), "has: ['6.0.0']"),
            ("sample-service without a named dependency", lambda s: s["sample-service"].clear(), "sample-service: no g:netty 4"),
            ("k6 at another version", lambda s: s["k6-runner"].__setitem__(0, "pkg:golang/go.k6.io/k6@v0.9.0"), "k6-runner: no go.k6.io/k6"),
            ("no operator SBOM", lambda s: s.pop("operator"), "operator: no SBOM"),
        ]
        bad = 0
        for name, doctor, expected in cases:
            failures = run(name, doctor)
            ok = not failures if expected is None else any(expected in f for f in failures)
            print(f"  self-test {'ok ' if ok else 'FAILED'} {name}" + ("" if ok else f": {failures}"))
            bad += not ok
        return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sbom_dir", nargs="?")
    ap.add_argument("--k6-version")
    ap.add_argument("--maven", action="append", default=[], metavar="IMAGE=FILE")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        bad = self_test()
        print(f"sbom_check self-test: {'FAILED' if bad else 'ok'}")
        return 1 if bad else 0
    if not args.sbom_dir or not args.k6_version or not args.maven:
        ap.error("SBOM_DIR, --k6-version and --maven are needed")
    failures = check(args.sbom_dir, args.k6_version, dict(m.split("=", 1) for m in args.maven))
    for f in failures:
        print(f"SBOM CHECK FAILED: {f}", file=sys.stderr)
    print(f"sbom_check: {len(failures)} failure(s)" if failures else "sbom_check: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
