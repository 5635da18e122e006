#!/usr/bin/env python3
"""Checks that every query of the chart's Grafana dashboard and PrometheusRule asks only for metrics a
real danki operator exports, with labels those metrics really have.

The truth is a scrape of a running operator's /metrics (the CLI's end-to-end test takes it after a real
prewarm and a failing warm-up), never a hand-kept list. Each expression is read with a small PromQL
scanner: `name{matcher, ...}` selectors, and `by (...)` / `without (...)` groupings, which must name
labels of the metrics they aggregate.

Usage: metrics_check.py --metrics SCRAPE.txt --helm bin/helm3 charts/danki
       metrics_check.py --self-test      (the checker rejects an unknown metric and an unknown label)
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

# PromQL's own words (functions, aggregations, operators, modifiers): grammar, not metric names.
KEYWORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
    "offset", "atan2", "inf", "nan",
}
IDENT = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
MATCHER = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"')
GROUPING = re.compile(r"\b(by|without)\s*\(([^)]*)\)")
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+\S+")
LABEL_NAME = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"')


def scraped_labels(text):
    """{sample name: set of label names} from Prometheus text exposition."""
    series = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            continue
        labels = set(LABEL_NAME.findall(m.group(3) or ""))
        series.setdefault(m.group(1), set()).update(labels)
    return series


def problems_of(expr, series, where):
    """Every unknown metric, or label of a known one, that [expr] asks for."""
    found = []
    groupings = [(kind, {l.strip() for l in labels.split(",") if l.strip()}) for kind, labels in GROUPING.findall(expr)]
    body = GROUPING.sub(" ", expr)
    body = re.sub(r"\[[^\]]*\]", " ", body)  # range and subquery durations
    metrics = []
    pos = 0
    while pos < len(body):
        ch = body[pos]
        if ch == '"':  # a string outside a selector (label_replace arguments): skip it
            end = pos + 1
            while end < len(body) and body[end] != '"':
                end += 2 if body[end] == "\\" else 1
            pos = end + 1
            continue
        m = IDENT.match(body, pos)
        if not m or (pos > 0 and (body[pos - 1].isalnum() or body[pos - 1] in "._$")):
            pos += 1
            continue
        name, pos = m.group(0), m.end()
        rest = body[pos:].lstrip()
        if name.lower() in KEYWORDS or rest.startswith("("):
            continue
        matchers = []
        if rest.startswith("{"):
            close = body.index("}", pos)
            matchers = [label for label, _op in MATCHER.findall(body[pos:close + 1])]
            pos = close + 1
        metrics.append(name)
        if name not in series:
            found.append(f"{where}: metric {name} is not exported by the operator")
            continue
        for label in matchers:
            if label not in series[name]:
                found.append(f"{where}: {name} has no label '{label}' (it has {sorted(series[name])})")
    for kind, labels in groupings:
        if kind != "by":
            continue
        for name in (n for n in metrics if n in series):
            for label in labels - series[name]:
                found.append(f"{where}: 'by ({label})' but {name} has no label '{label}' (it has {sorted(series[name])})")
    if not metrics:
        found.append(f"{where}: no metric found in '{expr}'")
    return found


def label_values_query(query):
    """label_values(selector, label) -> (selector, label); other queries -> None."""
    m = re.fullmatch(r"\s*label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*", query)
    return (m.group(1), m.group(2)) if m else None


def dashboard_exprs(path):
    board = json.loads(Path(path).read_text())
    exprs = []
    panels = list(board.get("panels", []))
    while panels:
        panel = panels.pop(0)
        panels.extend(panel.get("panels", []))
        for target in panel.get("targets", []):
            exprs.append((f"dashboard panel '{panel.get('title')}' {target.get('refId')}", target["expr"], None))
    for var in board.get("templating", {}).get("list", []):
        query = var.get("query")
        text = query.get("query") if isinstance(query, dict) else None
        parsed = text and label_values_query(text)
        if parsed:
            exprs.append((f"dashboard variable '{var['name']}'", parsed[0], parsed[1]))
    return exprs


def rule_exprs(helm, chart):
    out = subprocess.run(
        [helm, "template", "danki", chart, "--set", "prometheusRules.enabled=true",
         "--show-only", "templates/prometheusrule.yaml"],
        check=True, capture_output=True, text=True).stdout
    exprs = []
    for doc in yaml.safe_load_all(out):
        for group in (doc or {}).get("spec", {}).get("groups", []):
            for rule in group["rules"]:
                exprs.append((f"PrometheusRule {rule['alert']}", str(rule["expr"]), None))
    return exprs


def check(exprs, series):
    found = []
    for where, expr, label in exprs:
        found += problems_of(expr, series, where)
        if label:
            metric = IDENT.match(expr.strip()).group(0)
            if metric in series and label not in series[metric]:
                found.append(f"{where}: {metric} has no label '{label}'")
    return found


def self_test():
    series = scraped_labels('danki_warmup_runs_total{namespace="a",deployment="b",result="succeeded"} 1\n'
                            'danki_leader 1\n')
    good = problems_of('sum by (namespace) (increase(danki_warmup_runs_total{result=~"failed.*"}[5m])) > 0',
                       series, "good")
    assert good == [], good
    assert problems_of("absent(danki_leader) or max(danki_leader) < 1", series, "leader") == []
    assert problems_of("sum(danki_warmups_pending)", series, "x"), "an unknown metric must be rejected"
    assert problems_of('danki_warmup_runs_total{reason="Timeout"}', series, "x"), "an unknown label must be rejected"
    assert problems_of("sum by (pod) (danki_warmup_runs_total)", series, "x"), "an unknown 'by' label must be rejected"
    print("metrics_check self-test: ok (an unknown metric, label and grouping label are each rejected)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--metrics", help="a scrape of a running operator's /metrics")
    parser.add_argument("--helm", default="helm")
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("chart", nargs="?")
    args = parser.parse_args()
    self_test()
    if args.self_test:
        return 0
    series = scraped_labels(Path(args.metrics).read_text())
    danki = sorted(n for n in series if n.startswith("danki_"))
    exprs = dashboard_exprs(Path(args.chart) / "files/danki-dashboard.json") + rule_exprs(args.helm, args.chart)
    found = check(exprs, series)
    for problem in found:
        print("FAIL", problem)
    print(f"metrics_check: {len(exprs)} expressions against {len(danki)} danki series names from {args.metrics}: "
          f"{'ok' if not found else f'{len(found)} problems'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
