"""Deployments of a benchmark target, one per warm-up strategy: the same pod in every case, only the
way it is warmed differs."""

BENCH_GATE = "bench.danki.dev/warmed"
"""The readiness gate of the harness's own simulated warmer (peer_node100)."""


NODE_ROLE_LABEL = "danki.dev/local-role"
"""The local cluster's node role label (local-cluster/kubelet/node-env.sh): worker or system."""


def deployment(target, name, replicas, gate=False, annotations=None, one_per_node=False, resources=None):
    """The target as Deployment NAME. gate=True adds the harness's readiness gate; danki's
    annotations (danki.dev/warmup ...) make danki gate and warm it. one_per_node=True puts each pod on
    a worker node of its own (required anti-affinity), so a pod's CPU is its node's budget alone.
    RESOURCES replaces the default requests (100m CPU, 256Mi)."""
    labels = {"app": name, "app.kubernetes.io/part-of": "danki-bench"}
    pod = {
        "terminationGracePeriodSeconds": 5,
        "containers": [{
            "name": "app",
            "image": target.image,
            "imagePullPolicy": "IfNotPresent",
            "env": [{"name": "PORT", "value": "8080"}],
            "ports": [{"name": "http", "containerPort": 8080}],
            "resources": resources or {"requests": {"cpu": "100m", "memory": "256Mi"}},
            # lenient, as in the demo: on 2 busy cores a JVM under warm-up answers a probe slowly
            "readinessProbe": {"httpGet": {"path": target.ready_path, "port": "http"}, "periodSeconds": 1,
                               "timeoutSeconds": 5, "failureThreshold": 10},
            "livenessProbe": {"httpGet": {"path": target.ready_path, "port": "http"}, "initialDelaySeconds": 60,
                              "periodSeconds": 10, "timeoutSeconds": 10, "failureThreshold": 6},
        }],
    }
    if gate:
        pod["readinessGates"] = [{"conditionType": BENCH_GATE}]
    if one_per_node:
        pod["nodeSelector"] = {NODE_ROLE_LABEL: "worker"}
        pod["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": name}}}]}}
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "labels": labels, "annotations": annotations or {}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": labels}, "spec": pod}},
    }


def danki_annotations(target, jit=False, extra=None):
    """danki's opt-in with the target's warm-up requests; jit=True adds danki.dev/jit-metrics."""
    annotations = {"danki.dev/warmup": "enabled", "danki.dev/port": "http", "danki.dev/paths": target.warmup_paths}
    if jit:
        annotations["danki.dev/jit-metrics"] = "http" + target.metrics_path
    annotations.update(extra or {})
    return annotations


def service(name):
    """The Service of Deployment NAME: its EndpointSlice says when a new pod starts to take users."""
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "labels": {"app.kubernetes.io/part-of": "danki-bench"}},
            "spec": {"selector": {"app": name}, "ports": [{"name": "http", "port": 8080, "targetPort": "http"}]}}
