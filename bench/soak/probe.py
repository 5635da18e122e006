"""What the soak samples every few seconds: the operator process as the host sees it (/proc), the
operator as it sees itself (/metrics), the k6 processes, and how busy the machine is (and with whom).

The host sees every container's processes, so the operator's JVM and its k6 children are read straight
from /proc; the cluster's own processes are told apart from the machine's others by their cgroup (every
node's pods and daemons live under the instance's /danki-rI). One `Probe.sample()` is one JSON-ready dict.
"""

import os
import re
import subprocess
import time
import urllib.request

TICKS = os.sysconf("SC_CLK_TCK")
METRIC_LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
THREAD_NUMBER = re.compile(r"(?<![A-Za-z])\d+")


def parse_metrics(text):
    """Prometheus text -> [(name, {label: value}, float)], comments and unparsable values skipped."""
    out = []
    for line in text.splitlines():
        m = METRIC_LINE.match(line)
        if not m:
            continue
        try:
            value = float(m.group(3))
        except ValueError:
            continue
        out.append((m.group(1), dict(LABEL.findall(m.group(2) or "")), value))
    return out


def metric_sum(metrics, name, **labels):
    """Sum of NAME's samples whose labels include LABELS; None when there is none."""
    values = [v for n, ls, v in metrics if n == name and all(ls.get(k) == w for k, w in labels.items())]
    return sum(values) if values else None


def jvm_and_danki(metrics):
    """The series the soak keeps from the operator's /metrics (client_java 1.x names)."""
    heap_pools = ("G1 Eden Space", "G1 Survivor Space", "G1 Old Gen")
    after_gc = [metric_sum(metrics, "jvm_memory_pool_collection_used_bytes", pool=p) for p in heap_pools]
    return {
        "m_rss_bytes": metric_sum(metrics, "process_resident_memory_bytes"),
        "m_open_fds": metric_sum(metrics, "process_open_fds"),
        "heap_used_bytes": metric_sum(metrics, "jvm_memory_used_bytes", area="heap"),
        "heap_committed_bytes": metric_sum(metrics, "jvm_memory_committed_bytes", area="heap"),
        "nonheap_used_bytes": metric_sum(metrics, "jvm_memory_used_bytes", area="nonheap"),
        "old_gen_used_bytes": metric_sum(metrics, "jvm_memory_pool_used_bytes", pool="G1 Old Gen"),
        # what each heap pool held right after its last collection: the live set, without the sawtooth
        "heap_after_gc_bytes": sum(a for a in after_gc if a is not None) if any(a is not None for a in after_gc)
        else None,
        "m_threads": metric_sum(metrics, "jvm_threads_current"),
        "gc_count": metric_sum(metrics, "jvm_gc_collection_seconds_count"),
        "gc_seconds": metric_sum(metrics, "jvm_gc_collection_seconds_sum"),
        "classes_loaded": metric_sum(metrics, "jvm_classes_currently_loaded"),
        "warmups_in_progress": metric_sum(metrics, "danki_warmups_in_progress"),
        "warmups_queued": metric_sum(metrics, "danki_warmups_queued"),
        "runs_succeeded": metric_sum(metrics, "danki_warmup_runs_total", result="succeeded") or 0.0,
        "runs_failed_open": metric_sum(metrics, "danki_warmup_runs_total", result="failed_open") or 0.0,
        "runs_failed_closed": metric_sum(metrics, "danki_warmup_runs_total", result="failed_closed") or 0.0,
    }


def class_histogram(text, top=25):
    """`jcmd PID GC.class_histogram` -> live bytes and instances (its Total line) and the TOP classes by bytes."""
    classes, total = [], None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[0].endswith(":") and parts[0][:-1].isdigit():
            classes.append([parts[3], int(parts[1]), int(parts[2])])
        elif len(parts) == 3 and parts[0] == "Total":
            total = (int(parts[1]), int(parts[2]))
    if total is None:
        raise ValueError("no Total line in the class histogram")
    classes.sort(key=lambda c: -c[2])
    return {"live_instances": total[0], "live_bytes": total[1], "top_classes": classes[:top]}


def thread_groups(pid):
    """The JVM's threads by name (/proc task comm, 15 characters), numbers folded: which pool grows."""
    groups = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as f:
                name = THREAD_NUMBER.sub("N", f.read().strip())
        except OSError:
            continue
        groups[name] = groups.get(name, 0) + 1
    return groups


def read_proc(pid):
    """ppid, start time, CPU (user + system, in ticks), threads and RSS (kB) of PID; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # fields[0] is the state (3rd field of stat): ppid is the 4th field, utime the 14th, starttime the 22nd
    return {"ppid": int(fields[1]), "start": int(fields[19]), "threads": int(fields[17]),
            "cpu": sum(int(x) for x in fields[11:13]), "rss_kb": int(fields[21]) * os.sysconf("SC_PAGE_SIZE") // 1024}


def cpu_cgroup(pid):
    """PID's cgroup in the v1 cpu hierarchy ("/danki-r6/n1/kubepods/..."), None when unreadable."""
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if "cpu" in controllers.split(","):
                    return path
    except (OSError, ValueError):
        pass
    return None


def process_table():
    """Every process: pid -> its /proc stat facts, exe, cwd and cpu cgroup (None when unreadable)."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        facts = read_proc(name)
        if facts is None:
            continue
        for link in ("exe", "cwd"):
            try:
                facts[link] = os.readlink(f"/proc/{name}/{link}")
            except OSError:
                facts[link] = None
        facts["cgroup"] = cpu_cgroup(name)
        table[int(name)] = facts
    return table


def cluster_k6(table, instance_cgroup):
    """PIDs in TABLE (process_table) of the k6 processes of the cluster whose processes live under
    INSTANCE_CGROUP (/danki-rI): only its operator starts k6 there."""
    prefix = instance_cgroup.rstrip("/") + "/"
    return [p for p, f in table.items()
            if os.path.basename(f["exe"] or "") == "k6" and (f.get("cgroup") or "").startswith(prefix)]


def descendants(table, root):
    children = {}
    for pid, facts in table.items():
        children.setdefault(facts["ppid"], []).append(pid)
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def machine_ticks():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return sum(fields), sum(fields) - fields[3] - fields[4]


class Probe:
    """Samples operator PID (its /metrics at METRICS_URL) and the k6 processes of the cluster whose
    processes live under cgroup INSTANCE_CGROUP (/danki-rI)."""

    def __init__(self, pid, metrics_url, instance_cgroup, repo):
        self.pid, self.metrics_url = pid, metrics_url
        self.instance_cgroup = instance_cgroup.rstrip("/") + "/"
        self.repo = os.path.realpath(repo)
        self.previous = None
        self.links = []

    def sample(self):
        t = time.time()
        table = process_table()
        own = table.get(self.pid)
        s = {"t": t, "pid": self.pid, "alive": own is not None}
        if own:
            s.update(rss_bytes=own["rss_kb"] * 1024, threads=own["threads"], fds=self._fds(), cpu_s=own["cpu"] / TICKS)
        k6_all = cluster_k6(table, self.instance_cgroup)
        k6_children = set(descendants(table, self.pid)) & set(k6_all)
        s["k6"] = len(k6_children)
        s["k6_not_children"] = len(k6_all) - len(k6_children)
        s["k6_pids"] = sorted(k6_all)
        s.update(self._metrics())
        s.update(self._machine(t, table))
        return s

    def live_set(self):
        """A full GC, then the heap's live objects by class (`jcmd GC.class_histogram`): the one heap figure
        that young collections piling garbage into the old generation cannot inflate."""
        try:
            self._attach_link()
            result = subprocess.run(["jcmd", str(self.pid), "GC.class_histogram"], capture_output=True, text=True,
                                    timeout=60)
            return dict(class_histogram(result.stdout), thread_groups=thread_groups(self.pid))
        except (OSError, subprocess.SubprocessError, ValueError) as e:
            return {"live_error": f"{type(e).__name__}: {e}"[:300]}

    def _attach_link(self):
        """jcmd waits for the JVM's attach socket in its own /tmp, but the JVM makes it in the /tmp it sees:
        the pod's emptyDir. A link from the host's /tmp to the pod's (made before the first attach, while
        it dangles) lets jcmd find it; close() removes it."""
        pod_tmp, host = f"/proc/{self.pid}/root/tmp", f"/tmp/.java_pid{self.pid}"
        same = os.stat(pod_tmp).st_ino == os.stat("/tmp").st_ino and os.stat(pod_tmp).st_dev == os.stat("/tmp").st_dev
        if not same and not os.path.lexists(host):
            os.symlink(f"{pod_tmp}/.java_pid{self.pid}", host)
            self.links.append(host)

    def close(self):
        for link in self.links:
            try:
                os.unlink(link)
            except OSError:
                pass
        self.links = []

    def _fds(self):
        try:
            return len(os.listdir(f"/proc/{self.pid}/fd"))
        except OSError:
            return None

    def _metrics(self):
        try:
            with urllib.request.urlopen(self.metrics_url, timeout=5) as response:
                return jvm_and_danki(parse_metrics(response.read().decode()))
        except OSError as e:
            return {"metrics_error": str(e)}

    def _machine(self, t, table):
        """Load average, the machine's busy share since the last sample, and the share of it spent by
        processes whose working directory is outside this work tree (other engineers, the system)."""
        with open("/proc/loadavg") as f:
            load1 = float(f.read().split()[0])
        total, busy = machine_ticks()
        cpu_by_pid = {p: (f["start"], f["cpu"], self._tree(f)) for p, f in table.items()}
        # more than one API server: another local cluster (another engineer's) shares the machine
        apiservers = sum(1 for f in table.values() if (f["exe"] or "").endswith("/kube-apiserver"))
        out = {"load1": load1, "apiservers": apiservers}
        if self.previous:
            t0, total0, busy0, cpu0 = self.previous
            span = total - total0
            other, by_tree = 0, {}
            for pid, (start, cpu, tree) in cpu_by_pid.items():
                if tree == "ours":
                    continue
                before = cpu0.get(pid)
                spent = cpu - before[1] if before and before[0] == start else cpu
                other += spent
                by_tree[tree] = by_tree.get(tree, 0) + spent
            out["busy_share"] = (busy - busy0) / span if span else None
            out["other_share"] = min(other / span, 1.0) if span else None
            out["other_by_tree"] = {k: round(v / span, 3) for k, v in by_tree.items() if span and v / span >= 0.01}
        self.previous = (t, total, busy, cpu_by_pid)
        return out

    def _in_cluster(self, facts):
        return (facts.get("cgroup") or "").startswith(self.instance_cgroup)

    def _tree(self, facts):
        """"ours" for a process of the soak's cluster (its cgroup) or working in this work tree, else the
        top two folders of its working directory (another work tree, say), "/" for kernel threads and
        system services."""
        cwd = facts.get("cwd") or "/"
        if self._in_cluster(facts) or cwd == self.repo or cwd.startswith(self.repo + os.sep):
            return "ours"
        return "/" + "/".join(cwd.strip("/").split("/")[:2])
