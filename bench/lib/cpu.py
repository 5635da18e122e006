"""Where the CPU went during a benchmark step: the machine's busy time, and CPU seconds by who spent
them (the target's pod JVMs, the operator, the k6 processes it reaped, the control plane, the nodes'
kubelets, containerd and net agent), read from /proc on the host, which sees every container's
processes. A pod's JVM is told apart by the jar its image runs (the Dockerfile's /opt/danki/*.jar)."""

import os
import resource

TICKS = os.sysconf("SC_CLK_TCK")
OPERATOR_JAR = "/opt/danki/operator.jar"
CONTROL_PLANE = ("kube-apiserver", "etcd", "kube-controller-manager", "kube-scheduler")
NODE_DAEMONS = ("/kubelet ", "containerd", "net-agent-all.jar")
"""The nodes' own processes: kubelet, containerd and its shims, and the net agent."""


def _machine():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) / TICKS, (sum(fields) - idle) / TICKS


def _processes():
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        yield cmdline, (int(fields[11]) + int(fields[12])) / TICKS, (int(fields[13]) + int(fields[14])) / TICKS


def snapshot(pod_jar):
    """CPU seconds so far, by category (POD_JAR: the jar the target's image runs); diff two snapshots
    with `spent`."""
    total, busy = _machine()
    cpu = {"machine_total": total, "machine_busy": busy, "pods": 0.0, "operator": 0.0, "operator_k6": 0.0,
           "control_plane": 0.0, "node_daemons": 0.0}
    for cmdline, own, children in _processes():
        if pod_jar in cmdline:
            cpu["pods"] += own
        elif OPERATOR_JAR in cmdline:
            cpu["operator"] += own
            cpu["operator_k6"] += children
        elif any(c in cmdline for c in CONTROL_PLANE):
            cpu["control_plane"] += own
        elif any(c in cmdline for c in NODE_DAEMONS):
            cpu["node_daemons"] += own
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu["harness_children"] = usage.ru_utime + usage.ru_stime
    return cpu


def spent(before, after):
    """CPU seconds per category between two snapshots, and the machine's busy share (of all its cores)."""
    diff = {k: after[k] - before[k] for k in before}
    wall_cpu = diff.pop("machine_total")
    diff["machine_busy_share"] = diff["machine_busy"] / wall_cpu if wall_cpu else None
    diff["cores"] = os.cpu_count()
    return diff
