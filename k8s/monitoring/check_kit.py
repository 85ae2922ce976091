"""Offline checks of the monitoring kit; prints one INVALID line per problem and exits 1 if any.

usage: check_kit.py [--write]

1. Dashboards: well-formed JSON; every field known to Grafana's dashboard schema (a round trip through
   the typed models of grafana-foundation-sdk loses nothing but the fields listed in SCHEMA_EXTRAS);
   panel ids unique, grid positions inside 24 columns, every target on the ${datasource} variable.
2. Every PromQL expression of the rules and dashboards parses (promql-parser here; promtool parses the
   same expressions again in scripts/monitoring-validate.sh).
3. Every metric name they use is one the services register (docs/reference/metrics.md, generated from
   the code), a Kafka client meter, or a series Prometheus makes itself; check_live.py then finds each
   one in a real scrape.
4. Every alert has a severity, a summary, a description and a runbook page docs/runbook/<alert>.md
   with the four sections; every runbook page belongs to an alert and the runbook index lists them all.
5. prometheus-rule.yaml (the Prometheus Operator's copy) holds the rule file's groups; --write makes it.
"""
import copy
import json
import sys

import yaml

import kit

# Fields Grafana reads that the schema's typed models do not carry (they are dropped by the round trip).
SCHEMA_EXTRAS = {"/annotations/list[]/builtIn", "/templating/list[]/definition"}
SEVERITIES = {"warning", "critical"}


def lost_fields(original, round_tripped, path=""):
    if isinstance(original, dict):
        for key, value in original.items():
            where = f"{path}/{key}"
            if not isinstance(round_tripped, dict) or key not in round_tripped:
                yield where
            else:
                yield from lost_fields(value, round_tripped[key], where)
    elif isinstance(original, list) and isinstance(round_tripped, list):
        for item, other in zip(original, round_tripped):
            yield from lost_fields(item, other, f"{path}[]")


def check_schema(name, dashboard, problems):
    from grafana_foundation_sdk.cog import plugins
    from grafana_foundation_sdk.models.dashboard import Dashboard
    plugins.register_default_plugins()
    typed = Dashboard.from_json(copy.deepcopy(dashboard))
    back = json.loads(json.dumps(typed.to_json(), default=lambda o: o.to_json()))
    for field in sorted(set(lost_fields(dashboard, back)) - SCHEMA_EXTRAS):
        problems.append(f"{name}: {field} is not a field of Grafana's dashboard schema")


def check_dashboard(path, problems):
    name = path.name
    try:
        dashboard = kit.load_dashboard(path)
    except json.JSONDecodeError as error:
        problems.append(f"{name}: not JSON: {error}")
        return
    for field in ("uid", "title", "schemaVersion", "panels", "templating"):
        if field not in dashboard:
            problems.append(f"{name}: no {field}")
    check_schema(name, dashboard, problems)
    variables = {v["name"] for v in dashboard.get("templating", {}).get("list", [])}
    ids = set()
    for panel in kit.panels(dashboard):
        title = panel.get("title")
        if panel.get("id") in ids:
            problems.append(f"{name}: panel id {panel.get('id')} used twice")
        ids.add(panel.get("id"))
        grid = panel.get("gridPos", {})
        if not all(isinstance(grid.get(k), int) for k in ("h", "w", "x", "y")) or grid["x"] + grid["w"] > 24:
            problems.append(f"{name}: panel '{title}' has no valid gridPos inside 24 columns: {grid}")
        if panel.get("type") in ("row", "text"):
            continue
        if panel.get("datasource", {}).get("uid") != "${datasource}":
            problems.append(f"{name}: panel '{title}' does not use the ${{datasource}} variable")
        if not panel.get("targets"):
            problems.append(f"{name}: panel '{title}' has no query")
        for target in panel.get("targets", []):
            for variable in set(kit.re.findall(r"\$\{?([a-zA-Z_]+)", target.get("expr", ""))) - {"__rate_interval", "__range", "__interval"}:
                if variable not in variables:
                    problems.append(f"{name}: panel '{title}' uses ${variable}, which the dashboard does not define")


def check_queries(problems):
    documented = kit.documented_metrics()
    try:
        queries = kit.kit_queries()
    except json.JSONDecodeError:
        return  # reported by check_dashboard
    for where, expr in queries:
        try:
            names = kit.metric_names(expr)
        except ValueError as error:
            problems.append(f"{where}: does not parse: {error}")
            continue
        for metric in sorted(names):
            if metric.startswith("kafka_") or metric in kit.PROMETHEUS_SERIES:
                continue  # the Kafka clients' meters are found in a real scrape (check_live.py)
            if not kit.is_documented(metric, documented):
                problems.append(f"{where}: {metric} is not a meter the services register (docs/reference/metrics.md)")


def check_alerts(problems):
    pages = {p.stem for p in kit.RUNBOOK.glob("*.md")} - {"index"}
    names = []
    for rule in kit.alerts():
        alert = rule["alert"]
        names.append(alert)
        if rule.get("labels", {}).get("severity") not in SEVERITIES:
            problems.append(f"alert {alert}: severity must be one of {sorted(SEVERITIES)}")
        annotations = rule.get("annotations", {})
        for field in ("summary", "description"):
            if not annotations.get(field):
                problems.append(f"alert {alert}: no {field}")
        expected = f"docs/runbook/{alert}.md"
        if annotations.get("runbook") != expected:
            problems.append(f"alert {alert}: runbook annotation must be {expected}")
        page = kit.RUNBOOK / f"{alert}.md"
        if not page.is_file():
            problems.append(f"alert {alert}: no runbook page {expected}")
            continue
        text = page.read_text()
        for section in kit.RUNBOOK_SECTIONS:
            if section not in text:
                problems.append(f"{expected}: no '{section}' section")
    if len(set(names)) != len(names):
        problems.append("an alert name is used twice")
    for orphan in sorted(pages - set(names)):
        problems.append(f"docs/runbook/{orphan}.md: no alert of that name")
    index = kit.RUNBOOK / "index.md"
    listed = set(kit.re.findall(r"\]\(([A-Za-z]+)\.md\)", index.read_text())) if index.is_file() else set()
    for alert in sorted(set(names) - listed):
        problems.append(f"docs/runbook/index.md does not link {alert}.md")


def check_prometheus_rule(write, problems):
    wanted = kit.prometheus_rule()
    if write:
        header = ("# Generated from prometheus/shardflow-alerts.yml by scripts/monitoring-validate.sh --write; do not edit.\n"
                  "# The same alerts for the Prometheus Operator. Its ruleSelector may ask for a label: add it in an overlay.\n")
        kit.PROMETHEUS_RULE.write_text(header + yaml.safe_dump(wanted, sort_keys=False, width=120))
    committed = yaml.safe_load(kit.PROMETHEUS_RULE.read_text()) if kit.PROMETHEUS_RULE.is_file() else None
    if committed != wanted:
        problems.append("prometheus-rule.yaml differs from prometheus/shardflow-alerts.yml: run scripts/monitoring-validate.sh --write")


def main(argv):
    problems = []
    if not kit.DASHBOARDS:
        problems.append("no dashboard under grafana/dashboards")
    for path in kit.DASHBOARDS:
        check_dashboard(path, problems)
    check_queries(problems)
    check_alerts(problems)
    check_prometheus_rule("--write" in argv, problems)
    for problem in problems:
        print(f"INVALID {problem}")
    if not problems:
        print(f"kit OK: {len(kit.DASHBOARDS)} dashboard(s), {len(kit.alerts())} alerts, {len(kit.kit_queries())} queries, "
              f"every metric registered")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
