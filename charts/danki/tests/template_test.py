#!/usr/bin/env python3
"""Renders charts/danki with `helm template` and asserts what users rely on.

Answers: do the defaults install what the README promises (2 replicas with leader election,
least-privilege ClusterRole, secure pod), does namespaced mode use Roles only, and does a typo
or a bad value fail with a message naming it?

Usage: template_test.py HELM [HELM...]   (each helm binary runs every case; helm 3 and helm 4)
Prints one line per check and ends with 'N passed, N failed'; exits 1 on any failure.
"""
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import yaml
except ImportError:  # PyYAML ships with Debian's python3-yaml and most Pythons; say which is missing
    sys.exit(f"{sys.argv[0]}: needs PyYAML for {sys.executable}: pip install pyyaml, or run it with "
             "/usr/bin/python3 after apt-get install python3-yaml")

CHART = Path(__file__).resolve().parent.parent
RELEASE, NAMESPACE = "danki", "danki-system"
# The default image tag; read here so that a version bump (docs/releasing.md) changes one file.
APP_VERSION = yaml.safe_load((CHART / "Chart.yaml").read_text())["appVersion"]

# The exact rules the operator gets wherever it watches. A change here is a change to the
# product's security posture: update the README's RBAC table and the cluster test with it.
# Webhook mode (the default) reads Deployments and changes none of them; template mode patches their
# template, and so does webhook mode with webhook.stripTemplateGates, to take off a gate template mode wrote.
DEPLOYMENT_READ_RULE = {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list", "watch"]}
DEPLOYMENT_PATCH_RULE = {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list", "watch", "patch"]}
WATCH_RULES = [
    DEPLOYMENT_READ_RULE,
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": [""], "resources": ["pods/status"], "verbs": ["patch"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]},
    {"apiGroups": ["danki.dev"], "resources": ["warmupruns"], "verbs": ["get", "list", "watch", "create"]},
    {"apiGroups": ["danki.dev"], "resources": ["warmupruns/status"], "verbs": ["patch"]},
] + [
    # each Deployment's WarmupHistory: read by name, created once, its status applied; never listed or deleted
    {"apiGroups": ["danki.dev"], "resources": ["warmuphistories"], "verbs": ["get", "create"]},
    {"apiGroups": ["danki.dev"], "resources": ["warmuphistories/status"], "verbs": ["patch"]},
] + [
    # webhook mode (the default): a pod created without the gate is evicted (webhook.ungatedPods replace),
    # through the Eviction API so that PodDisruptionBudgets hold; never a plain delete
    {"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]},
] + [
    # cpuBoost.enabled auto (the default) on Kubernetes 1.33 or later: the warmed container's CPU resized in
    # place, nothing else of the pod
    {"apiGroups": [""], "resources": ["pods/resize"], "verbs": ["patch"]},
]
HISTORY_RULES = WATCH_RULES[-4:-2]
EVICTION_RULES = WATCH_RULES[-2:-1]
RESIZE_RULES = WATCH_RULES[-1:]
LEASE_RULES = [
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "resourceNames": ["danki-operator"],
     "verbs": ["get", "update", "patch", "delete"]},
]
# Schema objects that pass a Kubernetes type through unchecked (the API server checks them).
# webhook mode (the default) with danki's own certificates: its one Secret and its one webhook configuration, by
# name; and namespaces read-only, for the label that opts in a whole namespace.
ENDPOINTSLICE_RULE = {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["list"]}
WEBHOOK_ROLE_RULES = [
    {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["danki-webhook-tls"], "verbs": ["get", "update"]},
    ENDPOINTSLICE_RULE,
]
NAMESPACE_READ_RULE = {"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get", "list", "watch"]}
# nodeConcurrency auto gets a node by name; the default CPU boost (cpuBoost.byDefault, on with cpuBoost) watches
# them, as its cap is decided within an admission review
NODE_RULES = [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]}]
NODE_GET_RULES = [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}]
WEBHOOK_CLUSTER_RULES = [
    NAMESPACE_READ_RULE,
    {"apiGroups": ["admissionregistration.k8s.io"], "resources": ["mutatingwebhookconfigurations"],
     "resourceNames": ["danki"], "verbs": ["get", "patch"]},
]
SCHEMA_PASS_THROUGH = {"global", "extraEnv[].valueFrom", "affinity.nodeAffinity", "affinity.podAffinity",
                       "affinity.podAntiAffinity", "topologySpreadConstraints[]"}

results = {"passed": 0, "failed": 0}


def with_deployment_patch(rules):
    """[rules] with patch on Deployments, as template mode (or stripTemplateGates) has them."""
    return [DEPLOYMENT_PATCH_RULE if r == DEPLOYMENT_READ_RULE else r for r in rules]


def deployment_writes(docs):
    """Every (kind/name, verbs) of a rule in [docs]' Roles and ClusterRoles that writes Deployments."""
    return [(f"{d['kind']}/{d['metadata']['name']}", r["verbs"]) for d in docs if d["kind"] in ("Role", "ClusterRole")
            for r in d["rules"] if "deployments" in r["resources"] and set(r["verbs"]) - {"get", "list", "watch"}]


def check(name, ok, detail=""):
    results["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f"\n     {detail}"))


KUBE_VERSION = "1.35.0"
"""The Kubernetes version the chart is rendered for, as the local cluster's."""


def render(helm, *args):
    """(exit code, parsed documents, stderr) of `helm template` with the given flags."""
    # the API server's version decides cpuBoost.enabled auto: a current one unless a test names another
    version = [] if "--kube-version" in args else ["--kube-version", KUBE_VERSION]
    cmd = [helm, "template", RELEASE, str(CHART), "--namespace", NAMESPACE, *version, *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    docs = [d for d in yaml.safe_load_all(proc.stdout) if d] if proc.returncode == 0 else []
    return proc.returncode, docs, proc.stderr


def find(docs, kind, name=None, namespace=None):
    return [d for d in docs if d["kind"] == kind
            and (name is None or d["metadata"]["name"] == name)
            and (namespace is None or d["metadata"].get("namespace") == namespace)]


def env_of(container):
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


def test_defaults(helm):
    code, docs, err = render(helm, "--include-crds")
    check("defaults render", code == 0, err)
    if code != 0:
        return
    kinds = sorted(d["kind"] for d in docs)
    expected = sorted(["CustomResourceDefinition", "CustomResourceDefinition", "CustomResourceDefinition", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role",
                       "RoleBinding", "Deployment", "Service", "PodDisruptionBudget",
                       "Service", "Secret", "MutatingWebhookConfiguration", "Role", "RoleBinding", "ClusterRole",
                       "ClusterRoleBinding", "ClusterRole", "ClusterRoleBinding"])
    check("defaults: exactly the documented objects", kinds == expected, f"got {kinds}")
    crd = find(docs, "CustomResourceDefinition", "warmupruns.danki.dev")
    check("CRD warmupruns.danki.dev, namespaced, status subresource",
          crd and crd[0]["spec"]["scope"] == "Namespaced"
          and any("status" in v.get("subresources", {}) for v in crd[0]["spec"]["versions"]))
    history = find(docs, "CustomResourceDefinition", "warmuphistories.danki.dev")
    check("CRD warmuphistories.danki.dev, namespaced, status subresource",
          history and history[0]["spec"]["scope"] == "Namespaced"
          and any("status" in v.get("subresources", {}) for v in history[0]["spec"]["versions"]))
    dep = find(docs, "Deployment", "danki", NAMESPACE)
    check("Deployment danki in the release namespace", len(dep) == 1)
    if not dep:
        return
    spec = dep[0]["spec"]
    pod = spec["template"]["spec"]
    (c,) = pod["containers"]
    env = env_of(c)
    check("2 replicas", spec["replicas"] == 2, spec["replicas"])
    check("runs under the chart's ServiceAccount", pod["serviceAccountName"] == "danki"
          and find(docs, "ServiceAccount", "danki", NAMESPACE))
    check("image defaults to danki/operator:<appVersion>", c["image"] == f"danki/operator:{APP_VERSION}", c["image"])
    check("leader election on, Lease in the release namespace",
          env["DANKI_LEADER_ELECTION"] == "true" and env["DANKI_LEASE_NAMESPACE"] == NAMESPACE
          and env["DANKI_LEASE_NAME"] == "danki-operator", env)
    check("operator settings from values", env["DANKI_WATCH_NAMESPACES"] == "" and env["DANKI_CONCURRENCY"] == "16" and env["DANKI_NODE_CONCURRENCY"] == "auto"
          and env["DANKI_DEFAULT_FAILURE_POLICY"] == "open" and env["DANKI_HTTP_PORT"] == "8080"
          and env["DANKI_LOG_FORMAT"] == "json" and env["DANKI_LOG_LEVEL"] == "info"
          and env["DANKI_HISTORY_RETENTION"] == "20", env)
    check("POD_NAME and POD_NAMESPACE from the downward API",
          env["POD_NAME"] == {"fieldRef": {"fieldPath": "metadata.name"}}
          and env["POD_NAMESPACE"] == {"fieldRef": {"fieldPath": "metadata.namespace"}}, env)
    check("k6 paths left to the image by default", "DANKI_K6_BINARY" not in env and "DANKI_K6_SCRIPT" not in env)
    check("probes on /healthz and /readyz at the http port",
          c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
          and c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
          and c["ports"][0] == {"name": "http", "containerPort": 8080, "protocol": "TCP"})
    check("resources set", c["resources"]["requests"]["memory"] and c["resources"]["limits"]["memory"])
    psc, csc = pod["securityContext"], c["securityContext"]
    check("pod: runAsNonRoot with a fixed non-root UID, seccomp RuntimeDefault",
          psc["runAsNonRoot"] is True and psc["runAsUser"] == 65532 and psc["runAsUser"] != 0
          and psc["seccompProfile"] == {"type": "RuntimeDefault"}, psc)
    check("container: read-only root, no escalation, drop ALL",
          csc["readOnlyRootFilesystem"] is True and csc["allowPrivilegeEscalation"] is False
          and csc["capabilities"] == {"drop": ["ALL"]}, csc)
    check("/tmp is a writable emptyDir", c["volumeMounts"] == [{"name": "tmp", "mountPath": "/tmp"}]
          and pod["volumes"][0]["emptyDir"]["sizeLimit"] == "64Mi")
    (cr,) = find(docs, "ClusterRole", "danki")
    check("ClusterRole has exactly the least-privilege rules", cr["rules"] == WATCH_RULES,
          json.dumps(cr["rules"]))
    (crb,) = find(docs, "ClusterRoleBinding", "danki")
    check("ClusterRoleBinding binds the ServiceAccount",
          crb["subjects"] == [{"kind": "ServiceAccount", "name": "danki", "namespace": NAMESPACE}]
          and crb["roleRef"]["name"] == "danki")
    lease = find(docs, "Role", "danki-leader-election", NAMESPACE)
    check("Lease Role in the release namespace, only its own Lease", lease and lease[0]["rules"] == LEASE_RULES,
          lease and lease[0]["rules"])
    all_rules = cr["rules"] + (lease[0]["rules"] if lease else [])
    webhook_role = find(docs, "Role", "danki-webhook", NAMESPACE)
    check("webhook Role: only its own Secret, get and update by name (no list, no create), and list EndpointSlices",
          webhook_role and webhook_role[0]["rules"] == WEBHOOK_ROLE_RULES, webhook_role and webhook_role[0]["rules"])
    webhook_cr = find(docs, "ClusterRole", "danki-webhook")
    check("webhook ClusterRole: namespaces read-only, its own MutatingWebhookConfiguration get and patch by name",
          webhook_cr and webhook_cr[0]["rules"] == WEBHOOK_CLUSTER_RULES, webhook_cr and webhook_cr[0]["rules"])
    all_rules += (webhook_role[0]["rules"] if webhook_role else []) + (webhook_cr[0]["rules"] if webhook_cr else [])
    nodes_cr = find(docs, "ClusterRole", "danki-nodes")
    check("nodeConcurrency auto and the default CPU boost: a ClusterRole that only reads nodes, bound to the ServiceAccount",
          nodes_cr and nodes_cr[0]["rules"] == NODE_RULES
          and find(docs, "ClusterRoleBinding", "danki-nodes")[0]["subjects"]
          == [{"kind": "ServiceAccount", "name": "danki", "namespace": NAMESPACE}], nodes_cr and nodes_cr[0]["rules"])
    all_rules += nodes_cr[0]["rules"] if nodes_cr else []
    check("no wildcard, secrets only by name, no configmaps, no pod writes",
          not any("*" in r["verbs"] or "*" in r["resources"] or "*" in r["apiGroups"] for r in all_rules)
          and not any(res == "configmaps" for r in all_rules for res in r["resources"])
          and all(r.get("resourceNames") for r in all_rules if "secrets" in r["resources"])
          and not any(r["resources"] == ["pods"] and set(r["verbs"]) - {"get", "list", "watch"} for r in all_rules))
    check("deletes nothing but its own Lease, by name",
          all(r.get("resourceNames") == ["danki-operator"] and r["resources"] == ["leases"]
              for r in all_rules if "delete" in r["verbs"] or "deletecollection" in r["verbs"]), all_rules)
    (pdb,) = find(docs, "PodDisruptionBudget", "danki")
    check("PDB keeps one replica", pdb["spec"]["minAvailable"] == 1
          and pdb["spec"]["selector"]["matchLabels"] == spec["selector"]["matchLabels"])
    (svc,) = find(docs, "Service", "danki-metrics")
    check("metrics Service targets the http port",
          svc["spec"]["ports"][0]["targetPort"] == "http" and svc["spec"]["selector"] == spec["selector"]["matchLabels"])
    check("every object carries the release label",
          all(d["metadata"].get("labels", {}).get("app.kubernetes.io/instance") == RELEASE
              for d in docs if d["kind"] != "CustomResourceDefinition"))


def test_webhook(helm):
    code, docs, err = render(helm)
    check("webhook mode renders by default", code == 0, err)
    if code != 0:
        return
    (mwc,) = find(docs, "MutatingWebhookConfiguration", "danki")
    (hook,) = mwc["webhooks"]
    check("webhook: pod CREATE only, failurePolicy Ignore, sideEffects None, timeout at most Kubernetes' default 10 s",
          hook["rules"] == [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                             "resources": ["pods"], "scope": "Namespaced"}]
          and hook["failurePolicy"] == "Ignore" and hook["sideEffects"] == "None" and hook["timeoutSeconds"] <= 10, hook)
    check("webhook: never kube-system or the release namespace, never danki's runner pods",
          {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system", NAMESPACE]}
          in hook["namespaceSelector"]["matchExpressions"]
          and hook["objectSelector"] == {"matchExpressions": [{"key": "danki.dev/runner", "operator": "DoesNotExist"}]},
          hook)
    (svc,) = find(docs, "Service", "danki-webhook", NAMESPACE)
    (dep,) = find(docs, "Deployment")
    c = dep["spec"]["template"]["spec"]["containers"][0]
    check("webhook: the Service on 443 reaches every replica's webhook port",
          hook["clientConfig"]["service"] == {"name": "danki-webhook", "namespace": NAMESPACE, "path": "/mutate-pods",
                                              "port": 443}
          and svc["spec"]["ports"][0]["targetPort"] == "webhook"
          and {"name": "webhook", "containerPort": 9443, "protocol": "TCP"} in c["ports"]
          and svc["spec"]["selector"] == dep["spec"]["selector"]["matchLabels"])
    env = env_of(c)
    check("webhook: the operator knows its Service, configuration and Secret",
          env.get("DANKI_GATE_INJECTION") == "webhook" and env.get("DANKI_WEBHOOK_SERVICE") == "danki-webhook"
          and env.get("DANKI_WEBHOOK_CONFIGURATION") == "danki" and env.get("DANKI_WEBHOOK_SECRET") == "danki-webhook-tls",
          env)
    check("webhook: ungated pods replaced by default, the read budget from the webhook's timeout",
          env.get("DANKI_UNGATED_PODS") == "replace" and env.get("DANKI_WEBHOOK_TIMEOUT_SECONDS") == "10", env)
    check("webhook: the chart creates the empty Secret the operator fills", find(docs, "Secret", "danki-webhook-tls"))
    code, docs, err = render(helm, "--set", "webhook.ungatedPods=report")
    check("webhook: ungatedPods report reaches the operator",
          code == 0 and env_of(find(docs, "Deployment")[0]["spec"]["template"]["spec"]["containers"][0])
          .get("DANKI_UNGATED_PODS") == "report", err)
    code, docs, err = render(helm, "--set", "watchNamespaces={shop}")
    (mwc,) = find(docs, "MutatingWebhookConfiguration", "danki")
    check("webhook: watchNamespaces narrows the namespaceSelector",
          {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["shop"]}
          in mwc["webhooks"][0]["namespaceSelector"]["matchExpressions"])
    code, docs, err = render(helm, "--set", "webhook.certManager.enabled=true")
    check("cert-manager mode renders", code == 0, err)
    if code == 0:
        (mwc,) = find(docs, "MutatingWebhookConfiguration", "danki")
        (dep,) = find(docs, "Deployment")
        env = env_of(dep["spec"]["template"]["spec"]["containers"][0])
        check("cert-manager mode: Certificate, CA injected, files mounted, no Secret rights (the Role only lists "
              "EndpointSlices), no Secret of ours",
              find(docs, "Certificate", "danki-webhook") and find(docs, "Issuer", "danki-webhook")
              and mwc["metadata"]["annotations"]["cert-manager.io/inject-ca-from"] == f"{NAMESPACE}/danki-webhook"
              and env.get("DANKI_WEBHOOK_CERT_DIR") == "/etc/danki/webhook-tls" and "DANKI_WEBHOOK_SECRET" not in env
              and find(docs, "Role", "danki-webhook")[0]["rules"] == [ENDPOINTSLICE_RULE] and not find(docs, "Secret"),
              env)
        cr = find(docs, "ClusterRole", "danki-webhook")
        check("cert-manager mode: the webhook ClusterRole only reads namespaces",
              cr and cr[0]["rules"] == [NAMESPACE_READ_RULE], cr and cr[0]["rules"])
    code, docs, err = render(helm, "--set", "gateInjection=template")
    (dep,) = find(docs, "Deployment")
    env = env_of(dep["spec"]["template"]["spec"]["containers"][0])
    check("template mode: no webhook, no webhook Service, Secret or rights",
          code == 0 and not find(docs, "MutatingWebhookConfiguration") and not find(docs, "Secret")
          and not find(docs, "Service", "danki-webhook") and not find(docs, "Role", "danki-webhook")
          and not find(docs, "ClusterRole", "danki-webhook")
          and env.get("DANKI_GATE_INJECTION") == "template", env)
    check("template mode: no pods/eviction (no pod is ever evicted), and patch on Deployments (their template)",
          code == 0 and find(docs, "ClusterRole", "danki")[0]["rules"]
          == with_deployment_patch([r for r in WATCH_RULES if r not in EVICTION_RULES]), find(docs, "ClusterRole", "danki"))


def test_template_gates(helm):
    """Least privilege in webhook mode (issue 48): no Deployment writes unless stripTemplateGates asks."""
    for mode, args in (("cluster-wide", []), ("namespaced", ["--set", "watchNamespaces={shop,payments}"])):
        code, docs, err = render(helm, *args)
        writes = deployment_writes(docs)
        check(f"webhook mode, {mode}: no Role or ClusterRole may patch (or otherwise write) a Deployment",
              code == 0 and not writes and find(docs, "Role" if args else "ClusterRole", "danki"), err or writes)
        env = env_of(find(docs, "Deployment")[0]["spec"]["template"]["spec"]["containers"][0]) if code == 0 else {}
        check(f"webhook mode, {mode}: the operator is told to strip no template gate",
              env.get("DANKI_WEBHOOK_STRIP_TEMPLATE_GATES") == "false", env)
        code, docs, err = render(helm, *args, "--set", "webhook.stripTemplateGates=true")
        roles = find(docs, "Role" if args else "ClusterRole", "danki")
        check(f"webhook.stripTemplateGates, {mode}: patch on Deployments where danki watches, and nothing more",
              code == 0 and len(roles) == (2 if args else 1)
              and all(r["rules"] == with_deployment_patch(WATCH_RULES) for r in roles), err or roles)
        env = env_of(find(docs, "Deployment")[0]["spec"]["template"]["spec"]["containers"][0]) if code == 0 else {}
        check(f"webhook.stripTemplateGates, {mode}: the operator is told to strip old template gates",
              env.get("DANKI_WEBHOOK_STRIP_TEMPLATE_GATES") == "true", env)
    code, _, err = render(helm, "--set", "webhook.stripTemplateGates=yes")
    check("rejects a stripTemplateGates that is not a boolean, naming it",
          code != 0 and "stripTemplateGates" in err, f"exit {code}; stderr: {err.strip()}")


def test_namespaced(helm):
    code, docs, err = render(helm, "--set", "watchNamespaces={shop,payments}")
    check("namespaced mode renders", code == 0, err)
    if code != 0:
        return
    check("namespaced mode: nothing cluster-wide but namespaces read-only, the webhook configuration by name, "
          "and nodes get (nodeConcurrency auto)",
          sorted(d["metadata"]["name"] for d in find(docs, "ClusterRole")) == ["danki-nodes", "danki-webhook"]
          and find(docs, "ClusterRole", "danki-webhook")[0]["rules"] == WEBHOOK_CLUSTER_RULES
          and find(docs, "ClusterRole", "danki-nodes")[0]["rules"] == NODE_RULES
          and sorted(d["metadata"]["name"] for d in find(docs, "ClusterRoleBinding")) == ["danki-nodes", "danki-webhook"])
    code, fixed, err = render(helm, "--set", "watchNamespaces={shop,payments}", "--set", "nodeConcurrency=4",
                              "--set", "cpuBoost.byDefault=false")
    check("nodeConcurrency a number, no default boost: DANKI_NODE_CONCURRENCY=4 and no access to nodes",
          code == 0 and not find(fixed, "ClusterRole", "danki-nodes") and not find(fixed, "ClusterRoleBinding", "danki-nodes")
          and env_of(find(fixed, "Deployment")[0]["spec"]["template"]["spec"]["containers"][0])["DANKI_NODE_CONCURRENCY"]
          == "4", err)
    for ns in ("shop", "payments"):
        role = find(docs, "Role", "danki", ns)
        check(f"namespaced mode: Role in {ns} with the same rules", role and role[0]["rules"] == WATCH_RULES)
        rb = find(docs, "RoleBinding", "danki", ns)
        check(f"namespaced mode: RoleBinding in {ns} to the ServiceAccount in {NAMESPACE}",
              rb and rb[0]["subjects"] == [{"kind": "ServiceAccount", "name": "danki", "namespace": NAMESPACE}]
              and rb[0]["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "danki"})
    check("namespaced mode: Lease Role still in the release namespace",
          find(docs, "Role", "danki-leader-election", NAMESPACE))
    roles = find(docs, "Role")
    check("namespaced mode: no Role anywhere else", sorted(r["metadata"]["namespace"] for r in roles)
          == sorted(["shop", "payments", NAMESPACE, NAMESPACE]))
    (dep,) = find(docs, "Deployment")
    env = env_of(dep["spec"]["template"]["spec"]["containers"][0])
    check("namespaced mode: DANKI_WATCH_NAMESPACES=shop,payments", env["DANKI_WATCH_NAMESPACES"] == "shop,payments")


RUNNER_RULES = [
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["create", "delete"]},
    {"apiGroups": ["networking.k8s.io"], "resources": ["networkpolicies"], "verbs": ["create", "delete"]},
    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]},
]


def test_runner(helm):
    code, docs, err = render(helm, "--set", "runner.enabled=true", "--set", "runner.image.tag=9.9.9")
    check("runner mode renders", code == 0, err)
    if code != 0:
        return
    (cr,) = find(docs, "ClusterRole", "danki")
    check("runner mode: the watch rules plus exactly pods create/delete, networkpolicies create/delete, "
          "configmaps get", cr["rules"] == WATCH_RULES + RUNNER_RULES, json.dumps(cr["rules"]))
    check("runner mode: still no secrets", not any("secrets" in r["resources"] for r in cr["rules"]))
    (dep,) = find(docs, "Deployment")
    env = env_of(dep["spec"]["template"]["spec"]["containers"][0])
    check("runner mode: image, concurrency and resources reach the operator",
          env.get("DANKI_RUNNER_IMAGE") == "danki/k6-runner:9.9.9" and env.get("DANKI_RUNNER_CONCURRENCY") == "32"
          and json.loads(env.get("DANKI_RUNNER_RESOURCES", "{}"))["limits"]["memory"] == "512Mi", env)
    code, docs, err = render(helm)
    (dep,) = find(docs, "Deployment")
    env = env_of(dep["spec"]["template"]["spec"]["containers"][0])
    check("runner off by default: no runner image for the operator", "DANKI_RUNNER_IMAGE" not in env, env)
    code, docs, err = render(helm, "--set", "runner.enabled=true", "--set", "image.registry=mirror.example:5000/danki-mirror")
    check("image.registry renders", code == 0, err)
    if code != 0:
        return
    (dep,) = find(docs, "Deployment")
    c = dep["spec"]["template"]["spec"]["containers"][0]
    images = (c["image"], env_of(c).get("DANKI_RUNNER_IMAGE"))
    check("image.registry goes in front of both images", images == (
        f"mirror.example:5000/danki-mirror/danki/operator:{APP_VERSION}",
        f"mirror.example:5000/danki-mirror/danki/k6-runner:{APP_VERSION}"), images)


AOT_RULES = [
    {"apiGroups": ["danki.dev"], "resources": ["aotcaches"], "verbs": ["get", "list", "watch", "create"]},
    {"apiGroups": ["danki.dev"], "resources": ["aotcaches/status"], "verbs": ["patch"]},
    {"apiGroups": [""], "resources": ["persistentvolumeclaims"], "verbs": ["get", "list", "watch", "create"]},
    {"apiGroups": [""], "resources": ["pods/log"], "verbs": ["get"]},
]


def test_aot_cache(helm):
    code, docs, err = render(helm, "--set", "runner.enabled=true", "--set", "aotCache.enabled=true",
                             "--set", "aotCache.storageClassName=danki-local", "--set", "aotCache.size=512Mi")
    check("aotCache mode renders", code == 0, err)
    if code != 0:
        return
    (cr,) = find(docs, "ClusterRole", "danki")
    check("aotCache mode: the runner rules plus exactly aotcaches, their status, claims get/create and pods/log get",
          cr["rules"] == WATCH_RULES + RUNNER_RULES + AOT_RULES, json.dumps(cr["rules"]))
    (dep,) = find(docs, "Deployment")
    env = env_of(dep["spec"]["template"]["spec"]["containers"][0])
    check("aotCache mode: its settings reach the operator",
          env.get("DANKI_AOT_ENABLED") == "true" and env.get("DANKI_AOT_STORAGE_CLASS") == "danki-local"
          and env.get("DANKI_AOT_ACCESS_MODES") == "ReadWriteMany" and env.get("DANKI_AOT_STORAGE_SIZE") == "512Mi"
          and env.get("DANKI_AOT_TRAINING_TIMEOUT_MINUTES") == "15", env)
    code, _, err = render(helm, "--set", "aotCache.enabled=true")
    check("aotCache without runner.enabled is refused, naming runner.enabled",
          code != 0 and "aotCache.enabled needs runner.enabled" in err, err)
    code, _, err = render(helm, "--set", "runner.enabled=true", "--set", "aotCache.enabled=true",
                          "--set", "gateInjection=template")
    check("aotCache with template injection is refused, naming gateInjection",
          code != 0 and "needs gateInjection webhook" in err, err)
    code, _, err = render(helm, "--set", "runner.enabled=true", "--set", "aotCache.enabled=true",
                          "--set", "aotCache.size=lots")
    check("aotCache: a size that is no quantity is refused, naming aotCache.size", code != 0 and "size" in err, err)
    code, _, err = render(helm, "--set", "runner.enabled=true", "--set", "aotCache.enabled=true",
                          "--set", "aotCache.accessModes={ReadWriteOnce}")
    check("aotCache: access modes without ReadWriteMany are refused, naming aotCache.accessModes",
          code != 0 and "accessModes" in err, err)
    code, docs, _ = render(helm)
    (cr,) = find(docs, "ClusterRole", "danki")
    check("defaults: no AOT rights", not any(r in cr["rules"] for r in AOT_RULES), json.dumps(cr["rules"]))


def test_history_off(helm):
    code, docs, err = render(helm, "--set", "history.retention=0")
    check("history off renders", code == 0, err)
    if code != 0:
        return
    (cr,) = find(docs, "ClusterRole", "danki")
    check("history off: no rights on warmuphistories",
          cr["rules"] == [r for r in WATCH_RULES if r not in HISTORY_RULES], json.dumps(cr["rules"]))
    (dep,) = find(docs, "Deployment")
    check("history off: retention 0 reaches the operator",
          env_of(dep["spec"]["template"]["spec"]["containers"][0]).get("DANKI_HISTORY_RETENTION") == "0")


def test_cpu_boost(helm):
    """cpuBoost.enabled auto follows the API server's version; true and false decide it whatever the version."""
    cases = [
        ("auto on 1.35: on, with pods/resize", [], True),
        ("auto on 1.33: on", ["--kube-version", "1.33.0"], True),
        ("auto on 1.32 (no in-place resize): off, no pods/resize", ["--kube-version", "1.32.0"], False),
        ("false on 1.35: off", ["--set", "cpuBoost.enabled=false"], False),
        ("true on 1.32: on", ["--kube-version", "1.32.0", "--set", "cpuBoost.enabled=true"], True),
    ]
    for label, args, on in cases:
        code, docs, err = render(helm, *args)
        if code != 0:
            check(f"cpuBoost {label}", False, err)
            continue
        (cr,) = find(docs, "ClusterRole", "danki")
        (dep,) = find(docs, "Deployment")
        env = env_of(dep["spec"]["template"]["spec"]["containers"][0])
        resize = all(r in cr["rules"] for r in RESIZE_RULES)
        nodes_cr = find(docs, "ClusterRole", "danki-nodes")
        nodes = nodes_cr[0]["rules"] if nodes_cr else None
        check(f"cpuBoost {label}", env.get("DANKI_CPU_BOOST") == str(on).lower() and resize == on
              and nodes == (NODE_RULES if on else NODE_GET_RULES)
              and (on or cr["rules"] == [r for r in WATCH_RULES if r not in RESIZE_RULES]),
              f"DANKI_CPU_BOOST={env.get('DANKI_CPU_BOOST')}, pods/resize {resize}")
    code, docs, err = render(helm, "--set", "cpuBoost.byDefault=false", "--set", "cpuBoost.activeProcessorCount=false")
    env = env_of(find(docs, "Deployment")[0]["spec"]["template"]["spec"]["containers"][0]) if code == 0 else {}
    check("cpuBoost.byDefault and activeProcessorCount reach the operator; without the default, nodes get only",
          env.get("DANKI_CPU_BOOST_BY_DEFAULT") == "false" and env.get("DANKI_CPU_BOOST_ACTIVE_PROCESSOR_COUNT") == "false"
          and find(docs, "ClusterRole", "danki-nodes")[0]["rules"] == NODE_GET_RULES, err or env)
    code, docs, err = render(helm, "--set", "nodeConcurrency=2")
    check("nodeConcurrency fixed, the default boost on: a ClusterRole that lists and watches nodes",
          code == 0 and find(docs, "ClusterRole", "danki-nodes")[0]["rules"] == NODE_RULES, err)
    code, _, err = render(helm, "--set", "cpuBoost.enabled=sometimes")
    check("cpuBoost.enabled: a value other than true, false or auto is rejected", code != 0 and "enabled" in err, err)


def test_rejected(helm):
    cases = [
        ("a top-level typo", ["--set", "replicaCont=3"], "replicaCont"),
        ("a nested typo", ["--set", "image.tg=1.0"], "tg"),
        ("a registry with a scheme", ["--set", "image.registry=https://mirror.example"], "registry"),
        ("a registry with a trailing slash", ["--set", "image.registry=mirror.example/"], "registry"),
        ("a typo in a security context", ["--set", "containerSecurityContext.readOnlyRootFilesytem=false"],
         "readOnlyRootFilesytem"),
        ("an unknown failure policy", ["--set", "defaultFailurePolicy=maybe"], "defaultFailurePolicy"),
        ("concurrency 0", ["--set", "concurrency=0"], "concurrency"),
        ("a negative history retention", ["--set", "history.retention=-1"], "retention"),
        ("a history retention past 500", ["--set", "history.retention=501"], "retention"),
        ("a namespace that is not a DNS label", ["--set", "watchNamespaces={Shop_1}"], "watchNamespaces"),
        ("two replicas without leader election", ["--set", "leaderElection.enabled=false"], "leaderElection"),
        ("a PDB that blocks every drain", ["--set", "replicaCount=1"], "minAvailable"),
        ("an unknown gate injection", ["--set", "gateInjection=admission"], "gateInjection"),
        ("a failure policy the API server does not know", ["--set", "webhook.failurePolicy=ignore"], "failurePolicy"),
        ("an ungated-pods choice danki does not know", ["--set", "webhook.ungatedPods=evict"], "ungatedPods"),
        ("a typo in a resource name", ["--set", "resources.requests.cpuu=100m"], "cpuu"),
        ("a resource limit that is not a quantity", ["--set", "resources.limits.memory=lots"], "memory"),
    ]
    for name, args, word in cases:
        code, _, err = render(helm, *args)
        check(f"rejects {name}, naming '{word}'", code != 0 and word in err, f"exit {code}; stderr: {err.strip()}")


def test_options(helm):
    code, docs, err = render(helm, "--set", "serviceMonitor.enabled=true", "--set", "grafanaDashboard.enabled=true",
                             "--set", "prometheusRules.enabled=true", "--set", "prometheusRules.labels.release=prom",
                             "--set", "image.digest=sha256:" + "a" * 64, "--set", "k6.binary=/opt/k6",
                             "--set", "replicaCount=1", "--set", "podDisruptionBudget.enabled=false",
                             "--set", "resources.limits.ephemeral-storage=1Gi",
                             "--set", "resources.limits.hugepages-2Mi=64Mi")
    check("options render", code == 0, err)
    if code != 0:
        return
    check("ServiceMonitor scrapes /metrics on the metrics port",
          find(docs, "ServiceMonitor") and find(docs, "ServiceMonitor")[0]["spec"]["endpoints"][0]["port"]
          == "http-metrics")
    cms = find(docs, "ConfigMap", "danki-dashboard")
    dashboard = json.loads(cms[0]["data"]["danki.json"]) if cms else {}
    exprs = " ".join(t.get("expr", "") for p in dashboard.get("panels", []) for t in p.get("targets", []))
    metrics = ["danki_warmup_runs_total", "danki_warmup_duration_seconds", "danki_warmup_latency_seconds",
               "danki_warmup_requests_total", "danki_warmups_in_progress", "danki_warmups_queued"]
    missing = [m for m in metrics if m not in exprs]
    check("dashboard ConfigMap holds a dashboard using every danki_* metric", cms and not missing, missing)
    rules = find(docs, "PrometheusRule")
    alerts = [r["alert"] for g in (rules[0]["spec"]["groups"] if rules else []) for r in g["rules"]]
    check("PrometheusRule: the three danki alerts, with the ruleSelector label",
          alerts == ["DankiWarmupsFailing", "DankiPodsGatedPastTimeout", "DankiNoLeader"]
          and rules[0]["metadata"]["labels"].get("release") == "prom", alerts)
    (dep,) = find(docs, "Deployment")
    c = dep["spec"]["template"]["spec"]["containers"][0]
    check("a digest pins the image", c["image"] == "danki/operator@sha256:" + "a" * 64, c["image"])
    check("k6.binary reaches DANKI_K6_BINARY", env_of(c).get("DANKI_K6_BINARY") == "/opt/k6")
    check("no PDB when disabled", not find(docs, "PodDisruptionBudget"))
    check("ephemeral-storage and hugepages-* limits are accepted",
          c["resources"]["limits"].get("ephemeral-storage") == "1Gi"
          and c["resources"]["limits"].get("hugepages-2Mi") == "64Mi", c["resources"])


def schema_objects(node, path=""):
    """Every object-typed schema node with its dotted path."""
    if node.get("type") == "object" or "properties" in node:
        yield path, node
    for key, child in node.get("properties", {}).items():
        yield from schema_objects(child, f"{path}.{key}" if path else key)
    if isinstance(node.get("items"), dict):
        yield from schema_objects(node["items"], f"{path}[]")
    if isinstance(node.get("additionalProperties"), dict):
        yield from schema_objects(node["additionalProperties"], f"{path}.*")
    for pattern, child in node.get("patternProperties", {}).items():
        yield from schema_objects(child, f"{path}.<{pattern}>")
    for name, child in node.get("definitions", {}).items():
        yield from schema_objects(child, f"#/definitions/{name}")


def test_schema():
    schema = json.loads((CHART / "values.schema.json").read_text())
    loose = [p or "(root)" for p, n in schema_objects(schema)
             if n.get("additionalProperties", True) is True and p not in SCHEMA_PASS_THROUGH]
    check("schema: every object sets additionalProperties", not loose, loose)
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    check("schema: every top-level value has a schema entry and vice versa",
          set(values) == set(schema["properties"]) - {"global"},
          set(values) ^ (set(schema["properties"]) - {"global"}))


def render_notes(helm, *args):
    """NOTES.txt as `helm install` prints it. `helm template` leaves NOTES out and a client-only
    `helm install --dry-run` still asks a cluster, so a copy of the chart renders it with tpl."""
    with tempfile.TemporaryDirectory() as tmp:
        chart = Path(tmp) / "danki"
        shutil.copytree(CHART, chart)
        shutil.copy(chart / "templates" / "NOTES.txt", chart / "notes-source.txt")
        (chart / "templates" / "notes-render.yaml").write_text('notes: {{ tpl (.Files.Get "notes-source.txt") . | toJson }}\n')
        proc = subprocess.run([helm, "template", RELEASE, str(chart), "--namespace", NAMESPACE,
                               "--show-only", "templates/notes-render.yaml", *args],
                              capture_output=True, text=True, timeout=120)
    return yaml.safe_load(proc.stdout)["notes"] if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr}"


def test_notes(helm):
    webhook = render_notes(helm)
    check("NOTES in webhook mode: opting in rolls nothing, and opting out before uninstalling covers namespaces",
          "rolls\nnothing" in webhook and "rolls the Deployment once" not in webhook
          and "kubectl label namespace <namespace> danki.dev/warmup-" in webhook
          and "rollout status deployment/<name>" not in webhook, webhook)
    template = render_notes(helm, "--set", "gateInjection=template")
    check("NOTES in template mode: opting in rolls the Deployment once, opting out waits for its rollout",
          "rolls the Deployment once" in template and "rollout status deployment/<name>" in template
          and "kubectl label namespace" not in template, template)
    for mode, notes in (("webhook", webhook), ("template", template)):
        check(f"NOTES in {mode} mode: how to opt in, watch, list what is opted in, and that Helm keeps the CRDs",
              all(line in notes for line in (
                  "kubectl annotate deployment <name> danki.dev/warmup=enabled", "kubectl get warmupruns -w",
                  "annotate deployment <name> danki.dev/warmup-", "danki\\.dev/warmup==\"enabled\"",
                  "kubectl delete crd warmupruns.danki.dev warmuphistories.danki.dev aotcaches.danki.dev")), notes)


def main(helms):
    if not helms:
        sys.exit("usage: template_test.py HELM [HELM...]")
    test_schema()
    for helm in helms:
        version = subprocess.run([helm, "version", "--short"], capture_output=True, text=True).stdout.strip()
        print(f"== {helm} ({version})")
        test_defaults(helm)
        test_webhook(helm)
        test_template_gates(helm)
        test_namespaced(helm)
        test_runner(helm)
        test_aot_cache(helm)
        test_history_off(helm)
        test_cpu_boost(helm)
        test_rejected(helm)
        test_options(helm)
        test_notes(helm)
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
