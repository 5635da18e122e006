#!/usr/bin/env python3
"""Static checks of the Dockerfile, in place of hadolint (not packaged by Debian) and of a build
(no Docker engine runs on our machines). `make lint-docker` runs it with --self-test.

What it checks, each a rule with a name in its error message:
  pinned-base      every FROM resolves (through ARG defaults) to image:version, never `latest`
                   or a bare name; an optional @sha256:<64 hex> digest is accepted
  targets          the runtime targets `operator`, `sample-service`, `k6-runner` and `spring-shop` exist
  non-root-user    each runtime target ends with USER <numeric uid>[:gid], uid not 0 (the kubelet
                   can only verify runAsNonRoot against a numeric UID)
  exec-entrypoint  each runtime target has an exec-form ENTRYPOINT (a JSON array), so the JVM is
                   PID 1 and gets SIGTERM
  k6-version       ARG K6_VERSION equals K6_VERSION in the Makefile and feeds `go install go.k6.io/k6@`
  copy-sources     every COPY from the build context exists and is not excluded by .dockerignore
  dockerignore     .dockerignore exists and keeps .git, bin, .cluster and target out of the context
  no-remote-code   no ADD of a URL, no `curl|sh`, no sudo; apt-get install has -y and
                   --no-install-recommends

Usage: lint-dockerfile.py [--self-test] REPO_DIR
  --self-test also feeds known-bad variants of the Dockerfile to every rule and fails unless
  each one is caught, so the checks themselves can fail.
"""
import json
import re
import sys
import tempfile
from pathlib import Path

RUNTIME_TARGETS = ("operator", "sample-service", "k6-runner", "spring-shop", "sample-service-jdk25", "spring-shop-jdk25")
IGNORE_REQUIRED = (".git", "bin", ".cluster", "**/target")


def instructions(text):
    """(line number, INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    out, buf, start = [], "", 0
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if buf and line.startswith("#"):
            continue
        if not buf:
            start = n
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        word, _, rest = buf.partition(" ")
        out.append((start, word.upper(), rest.strip()))
        buf = ""
    return out


def arg_defaults(instrs):
    """ARG defaults declared before the first FROM (the ones FROM lines may use)."""
    found = {}
    for _, ins, rest in instrs:
        if ins == "FROM":
            break
        if ins == "ARG" and "=" in rest:
            name, _, value = rest.partition("=")
            found[name.strip()] = value.strip().strip('"')
    return found


def stages(instrs):
    """[(stage name or '', FROM line number, image as written, [instructions])]."""
    result = []
    for n, ins, rest in instrs:
        if ins == "FROM":
            parts = [p for p in rest.split() if not p.startswith("--platform")]
            name = parts[2] if len(parts) >= 3 and parts[1].lower() == "as" else ""
            result.append((name, n, parts[0], []))
        elif result:
            result[-1][3].append((n, ins, rest))
    return result


def expand(image, args):
    return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: args.get(m.group(1), m.group(0)), image)


PINNED = re.compile(r"^[a-z0-9./_-]+(:[0-9]+[A-Za-z0-9._-]*|:[A-Za-z0-9._-]*[0-9][A-Za-z0-9._-]*)(@sha256:[a-f0-9]{64})?$")


def check_bases(st, args):
    errors, names = [], set()
    for name, n, image, _ in st:
        resolved = expand(image, args)
        if resolved in names:
            pass
        elif "$" in resolved:
            errors.append(f"pinned-base: line {n}: {image} uses an ARG without a default")
        elif resolved.split("@")[0].endswith(":latest") or not PINNED.match(resolved):
            errors.append(f"pinned-base: line {n}: {resolved} is not pinned to a version (image:1.2.3)")
        if name:
            names.add(name)
    return errors


def check_runtime(st):
    errors = []
    by_name = {name: body for name, _, _, body in st}
    for target in RUNTIME_TARGETS:
        if target not in by_name:
            errors.append(f"targets: no stage named '{target}'")
            continue
        body = by_name[target]
        users = [rest for _, ins, rest in body if ins == "USER"]
        uid = users[-1].split(":")[0] if users else ""
        if not uid.isdigit() or int(uid) == 0:
            errors.append(f"non-root-user: stage '{target}' must end with USER <non-zero numeric uid>, "
                          f"has {users[-1] if users else 'none'}")
        entry = [rest for _, ins, rest in body if ins == "ENTRYPOINT"]
        try:
            form = json.loads(entry[-1]) if entry else None
        except json.JSONDecodeError:
            form = None
        if not (isinstance(form, list) and form and all(isinstance(x, str) for x in form)):
            errors.append(f"exec-entrypoint: stage '{target}' needs ENTRYPOINT [\"...\"] (exec form), "
                          f"has {entry[-1] if entry else 'none'}")
    return errors


def check_k6(instrs, makefile_text):
    made = re.search(r"^\s*(?:export\s+)?K6_VERSION\s*:?=\s*(\S+)", makefile_text, re.M)
    if not made:
        return ["k6-version: no K6_VERSION in the Makefile"]
    args = [rest.partition("=")[2].strip('"') for _, ins, rest in instrs
            if ins == "ARG" and rest.startswith("K6_VERSION=")]
    errors = []
    if args != [made.group(1)]:
        errors.append(f"k6-version: ARG K6_VERSION is {args or 'missing'}, Makefile says {made.group(1)}")
    if not any(ins == "RUN" and re.search(r"go install .*go\.k6\.io/k6@\$\{?K6_VERSION\}?", rest)
               for _, ins, rest in instrs):
        errors.append("k6-version: no `go install go.k6.io/k6@${K6_VERSION}`")
    return errors


def ignored(path, patterns):
    """A pattern matches the path or a folder above it; the last matching one wins (`!` keeps)."""
    path = path.rstrip("/")
    parts = Path(path).parts
    out = False
    for pat in patterns:
        keep = pat.startswith("!")
        pat = pat.lstrip("!").rstrip("/")
        if pat.startswith("**/"):
            match = pat[3:] in parts
        else:
            match = path == pat or path.startswith(pat + "/")
        if match:
            out = not keep
    return out


def check_context(instrs, repo):
    ignore_file = repo / ".dockerignore"
    if not ignore_file.exists():
        return ["dockerignore: .dockerignore is missing"]
    patterns = [l.strip() for l in ignore_file.read_text().splitlines() if l.strip() and not l.startswith("#")]
    errors = [f"dockerignore: .dockerignore must exclude {p}" for p in IGNORE_REQUIRED if p not in patterns]
    for n, ins, rest in instrs:
        if ins != "COPY" or "--from=" in rest:
            continue
        sources = [w for w in rest.split() if not w.startswith("--")][:-1]
        for src in sources:
            if not (repo / src).exists():
                errors.append(f"copy-sources: line {n}: {src} does not exist in the build context")
            elif ignored(src, patterns):
                errors.append(f"copy-sources: line {n}: {src} is excluded by .dockerignore")
    return errors


def check_remote(instrs):
    errors = []
    for n, ins, rest in instrs:
        if ins == "ADD" and re.search(r"https?://", rest):
            errors.append(f"no-remote-code: line {n}: ADD of a URL; fetch in a build stage and verify a checksum")
        if ins == "RUN":
            if re.search(r"(curl|wget)[^|;&]*\|\s*(ba)?sh", rest):
                errors.append(f"no-remote-code: line {n}: piping a download into a shell")
            if re.search(r"\bsudo\b", rest):
                errors.append(f"no-remote-code: line {n}: sudo in a build")
            if "apt-get install" in rest and not ("--no-install-recommends" in rest and " -y" in rest):
                errors.append(f"no-remote-code: line {n}: apt-get install needs -y --no-install-recommends")
    return errors


def lint(dockerfile_text, makefile_text, repo):
    instrs = instructions(dockerfile_text)
    st = stages(instrs)
    if not st:
        return ["targets: no FROM at all"]
    return (check_bases(st, arg_defaults(instrs)) + check_runtime(st) + check_k6(instrs, makefile_text)
            + check_context(instrs, repo) + check_remote(instrs))


# Known-bad variants: (rule that must catch it, text to replace, replacement).
MUTATIONS = [
    ("pinned-base", "eclipse-temurin:17.0.15_6-jre-noble", "eclipse-temurin:latest"),
    ("pinned-base", "golang:1.26.8-bookworm", "golang"),
    ("non-root-user", "USER 65532:65532\nENTRYPOINT [\"java\", \"-jar\", \"/opt/danki/operator.jar\"]",
     "USER root\nENTRYPOINT [\"java\", \"-jar\", \"/opt/danki/operator.jar\"]"),
    ("exec-entrypoint", "ENTRYPOINT [\"java\", \"-jar\", \"/opt/danki/sample-service.jar\"]",
     "ENTRYPOINT java -jar /opt/danki/sample-service.jar"),
    ("k6-version", "ARG K6_VERSION=v1.8.1", "ARG K6_VERSION=v1.7.0"),
    ("targets", "AS sample-service", "AS sample"),
    ("copy-sources", "COPY k6-scripts/ /opt/danki/k6-scripts/", "COPY k6-script/ /opt/danki/k6-scripts/"),
    ("no-remote-code", "WORKDIR /opt/danki\nEXPOSE 8080\nUSER 65532",
     "RUN curl -fsSL https://example.invalid/x.sh | sh\nWORKDIR /opt/danki\nEXPOSE 8080\nUSER 65532"),
]


def self_test(text, makefile_text, repo):
    failures = 0
    for rule, old, new in MUTATIONS:
        if old not in text:
            print(f"FAIL self-test: the Dockerfile no longer contains {old!r}; update MUTATIONS")
            failures += 1
            continue
        errors = lint(text.replace(old, new, 1), makefile_text, repo)
        caught = any(e.startswith(rule + ":") for e in errors)
        print(f"{'ok  ' if caught else 'FAIL'} self-test: {rule} catches {new.splitlines()[0]!r}")
        failures += 0 if caught else 1
    with tempfile.TemporaryDirectory() as empty:
        caught = any(e.startswith("dockerignore:") for e in lint(text, makefile_text, Path(empty)))
        print(f"{'ok  ' if caught else 'FAIL'} self-test: dockerignore catches a missing .dockerignore")
        failures += 0 if caught else 1
    return failures


def main(argv):
    selftest = "--self-test" in argv
    args = [a for a in argv if a != "--self-test"]
    if len(args) != 1:
        sys.exit("usage: lint-dockerfile.py [--self-test] REPO_DIR")
    repo = Path(args[0])
    text = (repo / "Dockerfile").read_text()
    makefile_text = (repo / "Makefile").read_text()
    errors = lint(text, makefile_text, repo)
    for e in errors:
        print(f"Dockerfile: {e}")
    failures = len(errors)
    if selftest:
        failures += self_test(text, makefile_text, repo)
    if failures:
        sys.exit(f"lint-dockerfile: {failures} problem(s)")
    print("Dockerfile: pinned bases, non-root numeric USER and exec-form ENTRYPOINT in "
          f"{', '.join(RUNTIME_TARGETS)}, k6 version matches the Makefile, build context OK")


if __name__ == "__main__":
    main(sys.argv[1:])
