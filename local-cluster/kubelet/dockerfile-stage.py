#!/usr/bin/env python3
"""Reads a runtime stage of the Dockerfile, so the local images are built from it, not from a copy.

node-images.sh builds danki's application images without Docker: this script turns one stage
(FROM an ARG base, COPY, ENV, WORKDIR, USER, EXPOSE, LABEL, ENTRYPOINT, CMD; a RUN is refused)
into the files of the image's top layer and its config, and checks a built image against it.

  dockerfile-stage.py base    DOCKERFILE STAGE            the ARG that names the stage's base image
  dockerfile-stage.py inputs  DOCKERFILE STAGE            that ARG, then the local files the stage
                                                          copies, one a line (one Python start)
  dockerfile-stage.py stage   DOCKERFILE STAGE ROOTFS     copy them into ROOTFS; print the plan (JSON)
  dockerfile-stage.py config  OCI_DIR TAG PLAN_JSON       set the image config of OCI_DIR:TAG
  dockerfile-stage.py check   DOCKERFILE STAGE ARCHIVE    the OCI archive has the stage's user,
                                                          env, entrypoint, cmd, workdir and files

Env: REPO (the build context, default: the Dockerfile's folder), BIN (default REPO/bin).
A COPY --from=<stage> takes the artifact from where this repository builds it locally (ARTIFACTS).
"""
import fnmatch
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import sys
import tarfile

# Where a build stage's output is on this machine: stage -> (path prefix in that stage, local folder).
ARTIFACTS = {
    "build": ("/src/", "{repo}"),  # Maven in /src: operator/target/operator-all.jar etc.
    "spring-shop-build": ("/src/", "{repo}"),  # bench/targets/spring-shop/target/spring-shop.jar
    "k6": ("/go/bin/", "{bin}"),  # the pinned k6 of `make tools`
    # spring-shop's extracted layout, which node-images.sh extracts with the host's JDK 25
    "spring-shop-jdk25-extract": ("/extracted/", "{repo}/.build/spring-shop-jdk25-extract"),
}
CONFIG_KEYS = ("User", "Env", "Entrypoint", "Cmd", "WorkingDir", "ExposedPorts", "Labels")


def fail(msg):
    sys.exit(f"dockerfile-stage: {msg}")


def instructions(path):
    """(instruction, rest) pairs with continuation lines joined and comments dropped."""
    out, buf = [], ""
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not buf and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if line.endswith("\\"):
                buf += line[:-1] + " "
                continue
            buf += line
            word, _, rest = buf.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
            buf = ""
    return out


def parse_stage(dockerfile, stage):
    """The stage as a plan: base ARG name, copies and config, in Dockerfile order."""
    plan, current = None, None
    for word, rest in instructions(dockerfile):
        if word == "FROM":
            m = re.fullmatch(r"\$\{?(\w+)\}?\s+AS\s+(\S+)", rest, re.IGNORECASE)
            current = m.group(2) if m else None
            if current == stage:
                plan = {"stage": stage, "base": m.group(1), "copies": [], "config": {"Env": []}}
            continue
        if current != stage or plan is None:
            continue
        cfg = plan["config"]
        if word == "COPY":
            args = shlex.split(rest)
            src_from = next((a.split("=", 1)[1] for a in args if a.startswith("--from=")), None)
            if any(a.startswith("--") and not a.startswith("--from=") for a in args):
                fail(f"COPY option not supported: {rest}")
            paths = [a for a in args if not a.startswith("--")]
            for src in paths[:-1]:
                plan["copies"].append({"from": src_from, "src": src, "dst": paths[-1]})
        elif word == "ENV":
            for pair in shlex.split(rest):
                cfg["Env"].append(pair)
        elif word == "WORKDIR":
            cfg["WorkingDir"] = rest
        elif word == "USER":
            cfg["User"] = rest
        elif word == "EXPOSE":
            cfg.setdefault("ExposedPorts", {}).update({(p if "/" in p else p + "/tcp"): {} for p in rest.split()})
        elif word == "LABEL":
            for pair in shlex.split(rest):
                k, _, v = pair.partition("=")
                cfg.setdefault("Labels", {})[k] = v
        elif word in ("ENTRYPOINT", "CMD"):
            cfg[word.capitalize()] = json.loads(rest)
        elif word == "ARG":
            continue
        else:
            fail(f"stage {stage}: {word} cannot be built without Docker")
    if plan is None:
        fail(f"no stage '{stage}' in {dockerfile}")
    return plan


def ignored(rel, patterns):
    """Docker's .dockerignore rules: a pattern matches the path or a folder above it (globs and
    **/ prefixes), and the last matching one wins, so a `!` line brings back what an earlier one left
    out."""
    parts = rel.split("/")
    out = False
    for p in patterns:
        keep = p.startswith("!")
        glob = p[1:] if keep else p
        if glob.startswith("**/"):
            glob = glob[3:]
            candidates = ["/".join(parts[j : i + 1]) for i in range(len(parts)) for j in range(i + 1)]
        else:
            candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if any(fnmatch.fnmatch(c, glob.rstrip("/")) for c in candidates):
            out = not keep
    return out


def sources(plan, repo, bin_dir):
    """(local path, image path) of every file the stage copies, directories expanded."""
    patterns = []
    ignore_file = os.path.join(repo, ".dockerignore")
    if os.path.exists(ignore_file):
        with open(ignore_file) as f:
            patterns = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    out = []
    for c in plan["copies"]:
        if c["from"]:
            prefix, base = ARTIFACTS.get(c["from"], (None, None))
            if prefix is None or not c["src"].startswith(prefix):
                fail(f"no local artifact for COPY --from={c['from']} {c['src']}")
            local = os.path.join(base.format(repo=repo, bin=bin_dir), c["src"][len(prefix) :])
        else:
            local = os.path.join(repo, c["src"])
        if not os.path.exists(local):
            fail(f"missing {local} (COPY {c['src']}): build it first")
        if os.path.isdir(local):
            for root, dirs, files in os.walk(local):
                dirs.sort()
                for name in sorted(files):
                    path = os.path.join(root, name)
                    if c["from"] is None and ignored(os.path.relpath(path, repo), patterns):
                        continue
                    out.append((path, os.path.join(c["dst"], os.path.relpath(path, local))))
        else:
            dst = c["dst"] + os.path.basename(local) if c["dst"].endswith("/") else c["dst"]
            out.append((local, dst))
    return out


def cmd_stage(dockerfile, stage, rootfs, repo, bin_dir):
    plan = parse_stage(dockerfile, stage)
    for local, dst in sources(plan, repo, bin_dir):
        target = os.path.join(rootfs, dst.lstrip("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(local, target)  # COPY keeps the mode; the layer's owner is root
    print(json.dumps(plan))


def cmd_config(oci_dir, tag, plan_file):
    """Writes the stage's config over the base's (Env merged by name), as `docker build` does."""
    with open(plan_file) as f:
        plan = json.load(f)

    def blob(digest):
        return os.path.join(oci_dir, "blobs", "sha256", digest.split(":", 1)[1])

    def put(obj):
        data = json.dumps(obj, separators=(",", ":")).encode()
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        with open(blob(digest), "wb") as f:
            f.write(data)
        return digest, len(data)

    index_path = os.path.join(oci_dir, "index.json")
    with open(index_path) as f:
        index = json.load(f)
    entry = next(m for m in index["manifests"] if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag)
    with open(blob(entry["digest"])) as f:
        manifest = json.load(f)
    with open(blob(manifest["config"]["digest"])) as f:
        image = json.load(f)
    cfg = image.setdefault("config", {})
    env = {e.split("=", 1)[0]: e for e in cfg.get("Env") or []}
    for e in plan["config"]["Env"]:
        env[e.split("=", 1)[0]] = e
    cfg["Env"] = list(env.values())
    for key in CONFIG_KEYS:
        if key != "Env" and key in plan["config"]:
            cfg[key] = plan["config"][key]
    if "Entrypoint" in plan["config"] and "Cmd" not in plan["config"]:
        cfg.pop("Cmd", None)  # a new ENTRYPOINT resets the base's CMD
    image.setdefault("history", []).append({"created_by": f"dockerfile-stage.py: config of stage {plan['stage']}", "empty_layer": True})
    manifest["config"]["digest"], manifest["config"]["size"] = put(image)
    entry["digest"], entry["size"] = put(manifest)
    with open(index_path, "w") as f:
        json.dump(index, f)


def read_archive(archive, wanted):
    """(image config, {path: (owner uid, gid, sha256)}) of an OCI archive, for the paths in wanted.
    Layers are read from the top down and only until every wanted path is found: the stage's files
    are in the top layer, so the base's large layers are not decompressed."""
    files = {}
    with tarfile.open(archive) as tar:  # an OCI archive: index.json, blobs/sha256/<digest>

        def blob(digest):
            return tar.extractfile("blobs/sha256/" + digest.split(":", 1)[1]).read()

        manifest = json.loads(blob(json.load(tar.extractfile("index.json"))["manifests"][0]["digest"]))
        cfg = json.loads(blob(manifest["config"]["digest"])).get("config", {})
        for layer in reversed(manifest["layers"]):
            if wanted <= files.keys():
                break
            with tarfile.open(fileobj=io.BytesIO(blob(layer["digest"]))) as lt:
                for m in lt:
                    path = "/" + m.name.lstrip("./")
                    if m.isfile() and path in wanted and path not in files:
                        files[path] = (m.uid, m.gid, hashlib.sha256(lt.extractfile(m).read()).hexdigest())
    return cfg, files


def differences(want, cfg, files, copies):
    """Each way the image (cfg, files as read_archive returns them) differs from the stage: its
    config (want) and its copies [(image path, sha256, what was copied)]. Env is compared by entry:
    the base's other variables may stay, as in `docker build`."""
    problems = []
    for key in CONFIG_KEYS:
        if key != "Env" and key in want and cfg.get(key) != want[key]:
            problems.append(f"{key}: image has {cfg.get(key)!r}, the Dockerfile says {want[key]!r}")
    for e in want["Env"]:
        if e not in (cfg.get("Env") or []):
            problems.append(f"Env: image lacks {e!r}")
    for dst, digest, what in copies:
        got = files.get(dst)
        if got is None:
            problems.append(f"file {dst} missing (COPY of {what})")
        elif got[2] != digest:
            problems.append(f"file {dst} differs from {what}")
        elif got[:2] != (0, 0):
            problems.append(f"file {dst} is owned by {got[0]}:{got[1]}, COPY makes it 0:0")
    return problems


def cmd_check(dockerfile, stage, archive, repo, bin_dir):
    """Prints each difference between the archive and the stage; exits 1 if there is any."""
    plan = parse_stage(dockerfile, stage)
    copies = []
    for local, dst in sources(plan, repo, bin_dir):
        with open(local, "rb") as f:
            copies.append((dst, hashlib.sha256(f.read()).hexdigest(), os.path.relpath(local, repo)))
    cfg, files = read_archive(archive, {dst for dst, _, _ in copies})
    problems = differences(plan["config"], cfg, files, copies)
    for p in problems:
        print(f"{os.path.basename(archive)} vs stage {stage}: {p}")
    return 1 if problems else 0


def main(argv):
    repo = os.environ.get("REPO") or os.path.dirname(os.path.abspath(argv[2])) if len(argv) > 2 else "."
    bin_dir = os.environ.get("BIN") or os.path.join(repo, "bin")
    if len(argv) == 4 and argv[1] == "base":
        print(parse_stage(argv[2], argv[3])["base"])
    elif len(argv) == 4 and argv[1] == "inputs":
        plan = parse_stage(argv[2], argv[3])
        print(plan["base"])
        for local, _ in sources(plan, repo, bin_dir):
            print(local)
    elif len(argv) == 5 and argv[1] == "stage":
        cmd_stage(argv[2], argv[3], argv[4], repo, bin_dir)
    elif len(argv) == 5 and argv[1] == "config":
        cmd_config(argv[2], argv[3], argv[4])
    elif len(argv) == 5 and argv[1] == "check":
        return cmd_check(argv[2], argv[3], argv[4], repo, bin_dir)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
