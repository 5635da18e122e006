"""Checks demo/lib.sh's render_exam (kustomize: the base demo/manifests/exam, the component
demo/manifests/warmup) for the demo's two Deployments and a benchmark's.

For each case it asserts what the demo and the benchmarks rely on: a Deployment and a Service named
NAME; app: NAME on both, on the Deployment's selector and pod template and on the Service's selector;
REPLICAS replicas; danki's annotations (those of the component's patch) on the Deployment's own
metadata when ANNOTATE=1 and nowhere else; everything else as in the base. With --old DIR it also
compares each case with DIR/NAME_ANNOTATE_REPLICAS.yaml, a rendering by an earlier render_exam.

Usage: REPO=. KUBECTL=bin/kubectl python3 demo/tests/render_exam_check.py [--old DIR]
Needs PyYAML. Exits non-zero on the first difference.
"""

import copy
import os
import subprocess
import sys

import yaml

REPO = os.path.abspath(os.environ.get("REPO", os.path.join(os.path.dirname(__file__), "..", "..")))
MANIFESTS = os.path.join(REPO, "demo", "manifests")
CASES = [("exam-cold", 0, 1), ("exam-warm", 1, 1), ("bench-x", 1, 3)]
# (name, annotate, replicas) that render_exam must refuse
BAD_ARGS = [
    ("Exam", 0, 1), ("1exam", 0, 1), ("exam-", 0, 1), ("x" * 64, 0, 1),
    ("exam", 2, 1), ("exam", 1, -1), ("exam", 1, "a"),
]


def render(name, annotate, replicas):
    """render_exam's output, parsed, by kind; or None when it fails."""
    script = 'source "$REPO/demo/lib.sh" && render_exam "$@"'
    kubectl = os.path.abspath(os.environ.get("KUBECTL", os.path.join(REPO, "bin", "kubectl")))
    args = ["bash", "-c", script, "render_exam", name, str(annotate), str(replicas)]
    run = subprocess.run(args, env=dict(os.environ, REPO=REPO, KUBECTL=kubectl), capture_output=True, text=True)
    if run.returncode != 0:
        return None
    return by_kind(yaml.safe_load_all(run.stdout))


def by_kind(docs):
    docs = [d for d in docs if d]
    assert sorted(d["kind"] for d in docs) == ["Deployment", "Service"], [d["kind"] for d in docs]
    return {d["kind"]: normalized(d) for d in docs}


def normalized(doc):
    """DOC without what means nothing to the API server: an empty annotations map."""
    doc = copy.deepcopy(doc)
    if doc["metadata"].get("annotations") == {}:
        del doc["metadata"]["annotations"]
    return doc


def load(path):
    with open(path) as f:
        return list(yaml.safe_load_all(f))


def expected(name, annotate, replicas):
    """The base with NAME, app: NAME, REPLICAS and, for ANNOTATE=1, danki's annotations."""
    want = by_kind(load(os.path.join(MANIFESTS, "exam", "exam.yaml")))
    deploy, svc = want["Deployment"], want["Service"]
    for obj in (deploy, svc):
        obj["metadata"]["name"] = name
        obj["metadata"]["labels"]["app"] = name
    deploy["spec"]["selector"]["matchLabels"]["app"] = name
    deploy["spec"]["template"]["metadata"]["labels"]["app"] = name
    deploy["spec"]["replicas"] = replicas
    svc["spec"]["selector"]["app"] = name
    if annotate:
        (patch,) = load(os.path.join(MANIFESTS, "warmup", "warmup-annotations.yaml"))
        deploy["metadata"]["annotations"] = patch["metadata"]["annotations"]
    return want


def check(label, got, want):
    if got != want:
        for kind in want:
            if got.get(kind) != want[kind]:
                print(f"FAIL {label}: {kind} differs\n got: {got.get(kind)}\nwant: {want[kind]}", file=sys.stderr)
        sys.exit(1)
    print(f"ok   {label}")


def main(argv):
    old = argv[argv.index("--old") + 1] if "--old" in argv else None
    for name, annotate, replicas in CASES:
        got = render(name, annotate, replicas)
        case = f"{name} {annotate} {replicas}"
        if got is None:
            sys.exit(f"FAIL render_exam {case}: failed")
        annotations = got["Deployment"]["metadata"].get("annotations", {})
        assert bool(annotations) == bool(annotate), f"{case}: annotations {sorted(annotations)}"
        template = got["Deployment"]["spec"]["template"]["metadata"]
        assert not template.get("annotations"), f"{case}: pod template annotated"
        assert not got["Service"]["metadata"].get("annotations"), f"{case}: Service annotated"
        want = expected(name, annotate, replicas)
        check(f"render_exam {case} == the base, renamed, relabelled, scaled, annotated", got, want)
        if old:
            previous = by_kind(load(os.path.join(old, f"{name}_{annotate}_{replicas}.yaml")))
            check(f"render_exam {case} == {old}", got, previous)
    for args in BAD_ARGS:
        if render(*args) is not None:
            sys.exit(f"FAIL render_exam {args}: accepted")
    print(f"ok   render_exam refuses {len(BAD_ARGS)} bad NAME, ANNOTATE or REPLICAS values")


if __name__ == "__main__":
    main(sys.argv[1:])
