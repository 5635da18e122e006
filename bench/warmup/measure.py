"""Small measurements for the warm-up benchmark; each prints one JSON object.

  measure.py pod-times WATCH_LOG [PREFIX]  first host time each pod was seen ContainersReady / Ready
  measure.py proc PID                      RSS and CPU seconds of a process (and its reaped children)
  measure.py record FILE KEY=VALUE...      append one JSON record (values parsed as JSON when they can be)
"""

import json
import os
import sys

TICKS = os.sysconf("SC_CLK_TCK")


def pod_times(log, prefix=""):
    """WATCH_LOG lines: '<epoch s> <pod> <ip> <Type>=<Status> ...' from a kubectl watch."""
    pods = {}
    for line in open(log):
        parts = line.split()
        if len(parts) < 2 or not parts[1].startswith(prefix):
            continue
        t, name = float(parts[0]), parts[1]
        ip = parts[2] if len(parts) > 2 and "=" not in parts[2] and parts[2] != "-" else None
        conds = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
        pod = pods.setdefault(name, {"first_seen": t, "ip": None, "containersReady": None, "ready": None})
        pod["ip"] = ip or pod["ip"]
        if conds.get("ContainersReady") == "True" and pod["containersReady"] is None:
            pod["containersReady"] = t
        if conds.get("Ready") == "True" and pod["ready"] is None:
            pod["ready"] = t
    return pods


def proc(pid):
    """VmRSS and utime/stime (own) and cutime/cstime (children it has reaped, e.g. finished k6 runs)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    rss_kb = 0
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            rss_kb = int(line.split()[1])
    utime, stime, cutime, cstime = (int(x) / TICKS for x in fields[11:15])
    return {"rss_mib": rss_kb / 1024.0, "cpu_s": utime + stime, "children_cpu_s": cutime + cstime}


def parse_value(raw):
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def main(argv):
    command, args = argv[1], argv[2:]
    if command == "record":
        record = {k: parse_value(v) for k, _, v in (a.partition("=") for a in args[1:])}
        with open(args[0], "a") as f:
            f.write(json.dumps(record) + "\n")
        return 0
    result = {"pod-times": pod_times, "proc": proc}[command](*args)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
