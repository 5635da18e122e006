"""What a pod's CPU did, read on the host (which sees every node's cgroups and every container's
processes): the pod's and its node's CFS throttling and CPU seconds from cgroup v1, and the CPU its
JVM's JIT compiler threads spent, from /proc.

The local cluster puts node K of instance I under /danki-rI/nK (local-cluster/kubelet/node-env.sh), its
pods under kubepods/[burstable|besteffort/]pod<uid> (the kubelet's cgroupfs driver). In cgroup v1 the cpu
hierarchy has the quota and its throttling (cpu.stat), cpuacct the CPU time (cpuacct.usage).
"""

import glob
import os
import re

CGROUP_FS = "/sys/fs/cgroup"
TICKS = os.sysconf("SC_CLK_TCK")
COMPILER_THREAD = re.compile(r"^C[12] CompilerThre")
"""HotSpot's JIT compiler threads, as /proc shows their names (cut to 15 characters)."""


def node_cgroup(node_name, instance=None):
    """The cgroup of a local-cluster node, e.g. danki7-n2 -> danki-r7/n2."""
    match = re.search(r"-n(\d+)$", node_name)
    if not match:
        raise ValueError(f"{node_name}: not a local-cluster node name (<cluster>-nK)")
    instance = os.environ.get("CLUSTER_INSTANCE", "0") if instance is None else instance
    return f"danki-r{instance}/n{match.group(1)}"


def pod_cgroup(node, uid):
    """The pod's cgroup under its node's (None once it is gone)."""
    for path in glob.glob(f"{CGROUP_FS}/cpu/{node}/kubepods/**/pod{uid}", recursive=True):
        return os.path.relpath(path, f"{CGROUP_FS}/cpu")
    return None


def cgroup_cpu(path):
    """CFS throttling (periods, throttled periods, throttled seconds) and CPU seconds of a cgroup."""
    stat = {}
    try:
        with open(f"{CGROUP_FS}/cpu/{path}/cpu.stat") as f:
            for line in f:
                key, value = line.split()
                stat[key] = int(value)
        with open(f"{CGROUP_FS}/cpuacct/{path}/cpuacct.usage") as f:
            usage_ns = int(f.read())
    except OSError:
        return None
    return {"nr_periods": stat.get("nr_periods", 0), "nr_throttled": stat.get("nr_throttled", 0),
            "throttled_s": stat.get("throttled_time", 0) / 1e9, "cpu_s": usage_ns / 1e9}


def cfs_period_ms(path):
    """The CFS period of a cgroup's quota, in ms."""
    with open(f"{CGROUP_FS}/cpu/{path}/cpu.cfs_period_us") as f:
        return int(f.read()) / 1000


def jvm_pid(uid, jar):
    """The host PID of the pod's JVM: the process in a cgroup of pod<uid> whose command line names JAR."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cgroup") as f:
                if f"/pod{uid}/" not in f.read():
                    continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if jar.encode() in f.read():
                    return int(entry)
        except OSError:
            continue
    return None


class CompilerCpu:
    """CPU seconds of a JVM's JIT compiler threads, summed over every thread seen. HotSpot may stop an idle
    compiler thread (UseDynamicNumberOfCompilerThreads), and a gone thread leaves /proc with its time: each
    read keeps the last time of every thread it saw, so a thread that ends between two reads loses only what
    it spent since the earlier one."""

    def __init__(self, pid):
        self.pid = pid
        self.seen = {}

    def read(self):
        """Compiler threads' CPU seconds so far, and the whole JVM's; None once the process is gone."""
        try:
            tids = os.listdir(f"/proc/{self.pid}/task")
            with open(f"/proc/{self.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        for tid in tids:
            try:
                with open(f"/proc/{self.pid}/task/{tid}/comm") as f:
                    if not COMPILER_THREAD.match(f.read()):
                        continue
                with open(f"/proc/{self.pid}/task/{tid}/stat") as f:
                    stat = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            self.seen[tid] = (int(stat[11]) + int(stat[12])) / TICKS
        return {"compiler_s": sum(self.seen.values()), "jvm_s": (int(fields[11]) + int(fields[12])) / TICKS}


class PodCpu:
    """One pod's CPU counters on the host: its cgroup's and its node's, and its JVM's compiler threads."""

    def __init__(self, node_name, uid, jar):
        self.node = node_cgroup(node_name)
        self.uid = uid
        self.cgroup = pod_cgroup(self.node, uid)
        pid = jvm_pid(uid, jar)
        self.compiler = CompilerCpu(pid) if pid else None

    def snapshot(self):
        """Every counter now; a part that cannot be read (the pod gone) is None."""
        if self.cgroup is None:
            self.cgroup = pod_cgroup(self.node, self.uid)
        return {"pod": cgroup_cpu(self.cgroup) if self.cgroup else None, "node": cgroup_cpu(self.node),
                "jit": self.compiler.read() if self.compiler else None}


def spent(before, after):
    """What happened between two snapshots: per part, each counter's difference, and the node's and the
    pod's throttled share of CFS periods."""
    out = {}
    for part in ("pod", "node", "jit"):
        a, b = (before or {}).get(part), (after or {}).get(part)
        if not a or not b:
            out[part] = None
            continue
        diff = {k: round(b[k] - a[k], 6) for k in a}
        if "nr_periods" in diff:
            diff["throttled_share"] = diff["nr_throttled"] / diff["nr_periods"] if diff["nr_periods"] else 0.0
        out[part] = diff
    return out
