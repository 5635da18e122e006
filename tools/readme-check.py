#!/usr/bin/env python3
"""readme-check: the README names nothing that no longer exists.

What a newcomer meets first must run as written, so the README's commands and names are checked
against their sources, not against a copy:
- every `make <target>` is a target of the Makefile (or an included .mk) that `make help` lists;
- every `danki.dev/<key>` is a key the operator defines (operator/.../kube/Keys.kt);
- every chart value it sets (`--set a.b=...`, `--set-json`) and every value it names in backquotes
  (`cpuBoost.enabled`) is a key of charts/danki/values.yaml;
- every relative link points to a file that exists, and every image it shows is in the repository.
Usage: tools/readme-check.py [README.md ...]   (make lint-readme; exits 1 naming each stale name)
"""
import os
import re
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEYS = os.path.join(REPO, "operator/src/main/kotlin/dev/danki/operator/kube/Keys.kt")
VALUES = os.path.join(REPO, "charts/danki/values.yaml")
# Makefile targets that a user types, in code: `make demo`, `make cluster-up chart-push`; prose is not read
MAKE = re.compile(r"\s+make((?:[ \t]+[a-z][a-z0-9-]*)+)")
CODE = re.compile(r"```.*?```|`[^`\n]+`", re.S)
ANNOTATION = re.compile(r"danki\.dev/([a-z0-9-]+)")
SET = re.compile(r"--set(?:-json|-string)?[ =]'?([a-zA-Z][\w.]*)(?:=|\[)")
VALUE_NAME = re.compile(r"`([a-z][a-zA-Z]*(?:\.[a-z][a-zA-Z]*)+)`")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# danki.dev/ names that are not annotations: the condition, the labels, the API group
NOT_ANNOTATIONS = {"warmed"}


def make_targets():
    targets = set()
    for root, _, files in os.walk(REPO):
        if any(part in root for part in ("/.work", "/bin", "/node_modules", "/.git", "/target", "/.cluster")):
            continue
        for name in files:
            if name == "Makefile" or name.endswith(".mk"):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    for line in f:
                        m = re.match(r"^([a-z][a-z0-9-]*(?:\s+[a-z][a-z0-9-]*)*)\s*:(?!=)", line)
                        if m:
                            targets.update(m.group(1).split())
    return targets


def annotation_keys():
    with open(KEYS, encoding="utf-8") as f:
        return set(re.findall(r'"\$\{PREFIX\}([a-z0-9-]+)"', f.read()))


def value_paths():
    with open(VALUES, encoding="utf-8") as f:
        values = yaml.safe_load(f)
    paths = set()

    def walk(node, prefix):
        for key, child in node.items():
            path = f"{prefix}{key}"
            paths.add(path)
            if isinstance(child, dict):
                walk(child, path + ".")
    walk(values, "")
    return paths


def problems_of(path, targets, keys, values):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found = []
    for code in CODE.findall(text):
        # a command: an inline span, or a line of a block, that starts with make (after a prompt or &&)
        for line in code.strip("`").splitlines():
            command = re.sub(r"^\s*(\$\s+)?", "", line).split("#")[0]
            for part in re.split(r"&&|;", command):
                m = MAKE.match(" " + part.strip())
                if m:
                    found += [f"make {t}: no such Makefile target" for t in m.group(1).split()
                              if t not in targets and "=" not in t]
    found += [f"danki.dev/{k}: no such key in Keys.kt" for k in ANNOTATION.findall(text)
              if k not in keys and k not in NOT_ANNOTATIONS]
    found += [f"--set {v}: no such chart value" for v in SET.findall(text) if v not in values]
    found += [f"`{v}`: no such chart value" for v in VALUE_NAME.findall(text)
              if v.split(".")[0] in {p.split(".")[0] for p in values} and v not in values]
    base = os.path.dirname(path)
    found += [f"({link}): no such file" for link in LINK.findall(text)
              if "://" not in link and not os.path.exists(os.path.join(base, link))]
    return found


def self_test():
    """The check must be able to fail: a README naming a target, a key, a value and a file that do not exist."""
    import tempfile
    stale = ("Run `make demo no-such-target`, then\n```sh\nhelm install danki charts/danki --set webhook.noSuchValue=1\n"
             "```\nand annotate `danki.dev/no-such-key`; see `cpuBoost.noSuchValue` and [x](no/such/file.md).\n")
    with tempfile.NamedTemporaryFile("w", suffix=".md", dir=REPO, delete=False) as f:
        f.write(stale)
    try:
        found = problems_of(f.name, make_targets(), annotation_keys(), value_paths())
    finally:
        os.unlink(f.name)
    expected = ["make no-such-target", "danki.dev/no-such-key", "--set webhook.noSuchValue", "`cpuBoost.noSuchValue`",
                "(no/such/file.md)"]
    missed = [e for e in expected if not any(p.startswith(e) for p in found)]
    if missed or len(found) != len(expected):
        sys.exit(f"readme-check --self-test: expected {expected}, found {found}")
    print("readme-check --self-test: a stale README fails, naming each of its 5 stale names")


def main(paths):
    if paths == ["--self-test"]:
        self_test()
        return
    targets, keys, values = make_targets(), annotation_keys(), value_paths()
    failed = False
    for path in paths or [os.path.join(REPO, "README.md")]:
        for problem in problems_of(path, targets, keys, values):
            print(f"{os.path.relpath(path, REPO)}: {problem}")
            failed = True
    if failed:
        sys.exit(1)
    print("readme-check: every make target, annotation, chart value and link the README names exists")


if __name__ == "__main__":
    main(sys.argv[1:])
