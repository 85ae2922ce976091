"""Checks the monitoring kit against a real Prometheus that scrapes running services with the rules loaded.

usage: check_live.py PROMETHEUS_URL [--timeout SECONDS] [--expect-pending ALERT:LABEL=VALUE ...]

1. Every job's target is up (ingest-app, shard-sink, edge-gateway).
2. Every metric name the rules and dashboards use is among the series Prometheus holds (the Kafka
   client meters of a partition appear within a minute of its assignment, so this waits for them).
3. Every rule was evaluated without error.
4. Every dashboard query (variables substituted) is accepted by Prometheus and returns data.
5. The alerts pending or firing are exactly those expected (--expect-pending), nothing else.
Prints one INVALID line per problem and exits 1 if any.
"""
import argparse
import json
import sys
import time
import urllib.parse
import urllib.request

import kit

JOBS = {"ingest-app", "shard-sink", "edge-gateway"}


def api(base, path, **params):
    url = f"{base}/api/v1/{path}" + ("?" + urllib.parse.urlencode(params) if params else "")
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            body = json.load(response)
    except urllib.error.HTTPError as error:
        body = json.load(error)
    if body.get("status") != "success":
        raise ValueError(f"{body.get('errorType')}: {body.get('error')}")
    return body["data"]


def wait_for(what, check, timeout):
    """Polls check() (a list of what is still missing) until it is empty or the time is up."""
    deadline = time.monotonic() + timeout
    while True:
        missing = check()
        if not missing or time.monotonic() > deadline:
            return missing
        print(f"waiting for {what}: {', '.join(sorted(missing))[:200]}", flush=True)
        time.sleep(5)


def kit_names():
    names = set()
    for _, expr in kit.kit_queries():
        names |= kit.metric_names(expr)
    return names - kit.PROMETHEUS_SERIES


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("prometheus")
    parser.add_argument("--timeout", type=int, default=180)
    parser.add_argument("--expect-pending", action="append", default=[], help="ALERT:LABEL=VALUE")
    args = parser.parse_args(argv)
    base = args.prometheus.rstrip("/")
    problems = []

    def targets_down():
        active = api(base, "targets")["activeTargets"]
        up = {t["labels"]["job"] for t in active if t["health"] == "up"}
        return JOBS - up

    for job in wait_for("targets up", targets_down, args.timeout):
        problems.append(f"target {job} is not up")

    wanted = kit_names()
    missing = wait_for("series", lambda: wanted - set(api(base, "label/__name__/values")), args.timeout)
    for name in sorted(missing):
        problems.append(f"{name} is used by the kit but no service serves it")

    def rules_not_evaluated():
        groups = api(base, "rules")["groups"]
        return {r["name"] for g in groups for r in g["rules"] if r.get("lastEvaluation", "").startswith("0001")}

    wait_for("a rule evaluation", rules_not_evaluated, 60)
    rules = [r for g in api(base, "rules")["groups"] for r in g["rules"]]
    if len(rules) != len(kit.load_rules()):
        problems.append(f"Prometheus loaded {len(rules)} rules, the rule file has {len(kit.load_rules())}")
    for rule in rules:
        if rule.get("health") != "ok":
            problems.append(f"rule {rule['name']}: {rule.get('health')} {rule.get('lastError', '')}")

    # Every panel must show data; on a loaded machine some series (per-partition lag, rates over a
    # fresh counter) take a while to appear, so wait for them like for the series above.
    refused = []

    def queries_without_data():
        empty = set()
        for path in kit.DASHBOARDS:
            for where, expr in kit.dashboard_queries(kit.load_dashboard(path)):
                query = kit.substitute(expr)
                try:
                    if not api(base, "query", query=query)["result"]:
                        empty.add(f"{path.name}: {where}: no data for {query}")
                except ValueError as error:
                    refused.append(f"{path.name}: {where}: Prometheus refused it: {error}")
        return empty

    problems.extend(sorted(wait_for("dashboard data", queries_without_data, args.timeout)))
    problems.extend(sorted(set(refused)))

    expected = set()
    for item in args.expect_pending:
        alert, _, label = item.partition(":")
        expected.add((alert, label))
    active = api(base, "alerts")["alerts"]
    seen = set()
    for alert in active:
        name = alert["labels"]["alertname"]
        match = {(name, label) for (n, label) in expected if n == name
                 and alert["labels"].get(label.split("=")[0]) == label.split("=", 1)[1]}
        if match:
            seen |= match
        else:
            problems.append(f"alert {name} is {alert['state']} on a healthy pipeline: {alert['labels']}")
    for alert, label in sorted(expected - seen):
        problems.append(f"alert {alert} ({label}) is not pending: the rule does not see what it should")

    for problem in problems:
        print(f"INVALID {problem}")
    if not problems:
        print(f"live OK: {len(wanted)} metric names served, {len(rules)} rules evaluated, every dashboard query has data, "
              f"alerts as expected ({', '.join(sorted(a for a, _ in expected)) or 'none'})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
