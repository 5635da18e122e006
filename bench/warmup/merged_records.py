"""The records behind bench/results/warmup.json and .md, kept beside them (warmup-records.jsonl), so that a
run of some sections (BENCH_SECTIONS=aot) replaces those and keeps the others from the run that measured
them. Each record is tagged with its run (date and commit of the run's machine record)."""

import json
import os

RUN_RECORDS = ("machine", "layout")
"""Records of the run itself rather than of a section: the latest run's win, as for any section."""


def archive_path(json_path):
    return os.path.splitext(json_path)[0] + "-records.jsonl"


def load(json_path):
    path = archive_path(json_path)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f]


def save(json_path, records):
    with open(archive_path(json_path), "w") as f:
        f.writelines(json.dumps(r, sort_keys=True) + "\n" for r in records)


def run_of(records):
    machine = next((r for r in records if r["section"] == "machine"), {})
    return {"date": machine.get("date"), "commit": machine.get("commit")}


def merge(records, previous):
    """RECORDS, and PREVIOUS's records of every section RECORDS has none of. A section is replaced whole:
    its figures are compared within one run, never across runs."""
    for batch in (records, previous):
        run = run_of(batch)
        for r in batch:
            r.setdefault("run", run)  # records from before this file was kept carry no tag: their run's
    measured = {r["section"] for r in records}
    return records + [r for r in previous if r["section"] not in measured]


def earlier_run_note(records, current):
    """A line naming the earlier run that one section's RECORDS came from; None when they are CURRENT's."""
    runs = [r.get("run") for r in records]
    if not runs or all(run == current for run in runs):
        return None
    run = runs[0] or {}
    return f"*From an earlier run: {run.get('date', '?')} at commit {run.get('commit', '?')}.*"
