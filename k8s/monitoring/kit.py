"""The monitoring kit as data: its alert rules, its dashboards' queries, the metric names they use.

Shared by check_kit.py (offline checks) and check_live.py (against a Prometheus scraping the services).
"""
import json
import pathlib
import re

import promql_parser
import yaml

KIT = pathlib.Path(__file__).resolve().parent
ROOT = KIT.parent.parent
RULES = KIT / "prometheus" / "shardflow-alerts.yml"
RULE_TESTS = KIT / "prometheus" / "shardflow-alerts.test.yml"
PROMETHEUS_RULE = KIT / "prometheus-rule.yaml"
DASHBOARDS = sorted((KIT / "grafana" / "dashboards").glob("*.json"))
RUNBOOK = ROOT / "docs" / "runbook"
METRICS_REFERENCE = ROOT / "docs" / "reference" / "metrics.md"
RUNBOOK_SECTIONS = ("## What it means", "## How to confirm", "## How to fix", "## What not to do")

# Series Prometheus makes itself for every target; no service registers them.
PROMETHEUS_SERIES = {"up", "scrape_duration_seconds", "scrape_samples_scraped", "scrape_series_added"}
# What the dashboards' variables stand for when a query is checked outside Grafana.
VARIABLES = {"$__rate_interval": "10m", "$__range": "1h", "$__interval": "1m", "$job": ".+", "$instance": ".+",
             "${job}": ".+", "${instance}": ".+"}


def load_rules(path=RULES):
    """[(group name, rule dict)] of a Prometheus rule file."""
    doc = yaml.safe_load(path.read_text())
    return [(group["name"], rule) for group in doc["groups"] for rule in group["rules"]]


def alerts(path=RULES):
    return [rule for _, rule in load_rules(path) if "alert" in rule]


def substitute(expr, values=None):
    """A dashboard query with Grafana's variables replaced by plain PromQL."""
    values = values or VARIABLES
    for name in sorted(values, key=len, reverse=True):
        expr = expr.replace(name, values[name])
    return expr


def load_dashboard(path):
    return json.loads(path.read_text())


def panels(dashboard):
    """Every panel, those inside collapsed rows included."""
    for panel in dashboard.get("panels", []):
        yield panel
        yield from panel.get("panels", [])


def dashboard_queries(dashboard):
    """[(where, PromQL)] of every panel target and every query variable (label_values(...) → its selector)."""
    queries = []
    for panel in panels(dashboard):
        for target in panel.get("targets", []):
            if "expr" in target:
                queries.append((f"panel '{panel.get('title')}' query {target.get('refId')}", target["expr"]))
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") == "query":
            query = variable["query"]["query"] if isinstance(variable["query"], dict) else variable["query"]
            inner = re.fullmatch(r"label_values\((.*),\s*[a-zA-Z_]+\)", query)
            queries.append((f"variable ${variable['name']}", inner.group(1) if inner else query))
    return queries


def metric_names(expr):
    """The metric names a PromQL expression selects (raises ValueError if it does not parse)."""
    names = set()

    def visit(node):
        if isinstance(node, promql_parser.VectorSelector):
            if node.name:
                names.add(node.name)
            for matcher in node.matchers.matchers:
                if matcher.name == "__name__":
                    names.add(matcher.value)

    promql_parser.walk(promql_parser.parse(expr), visit)
    return names


def documented_metrics(path=METRICS_REFERENCE):
    """Every metric name the generated metrics reference shows in code spans."""
    return set(re.findall(r"`([a-zA-Z_:][a-zA-Z0-9_:]*)`", path.read_text()))


def is_documented(name, documented):
    """A name the reference lists, or a series of a histogram/summary family it lists (_sum, _count, _bucket, _max)."""
    if name in documented:
        return True
    base = re.sub(r"_(sum|count|bucket|max)$", "", name)
    return base in documented


def kit_queries():
    """[(where, PromQL)] of every alert rule and every dashboard query, variables substituted."""
    queries = [(f"rule {rule.get('alert') or rule.get('record')}", rule["expr"]) for _, rule in load_rules()]
    for path in DASHBOARDS:
        queries += [(f"{path.name}: {where}", substitute(expr)) for where, expr in dashboard_queries(load_dashboard(path))]
    return queries


def prometheus_rule():
    """The PrometheusRule custom resource carrying the rule file's groups (what prometheus-rule.yaml must hold)."""
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": "shardflow", "labels": {"app.kubernetes.io/name": "shardflow"}},
        "spec": {"groups": yaml.safe_load(RULES.read_text())["groups"]},
    }
