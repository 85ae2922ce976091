"""Validates rendered Kubernetes manifests offline; exit 1 with one line per problem.

usage: validate.py RENDERED.yaml --crd CRD.yaml ... --schemas SCHEMAS.yaml ...

1. Built-in kinds against the Kubernetes OpenAPI schemas kubernetes-validate ships (strict: an
   unknown field is an error).
2. Custom resources against their CustomResourceDefinition's openAPIV3Schema (--crd) or a shipped
   schema file (--schemas), strictly too: unknown fields are errors, as `kubectl --validate=strict`.
   A kind with no schema at all is an error, not a warning.
3. The deployment rules of docs/ARCHITECTURE.md § 7 that no schema expresses: resources, probes,
   non-root read-only containers, secrets referenced never inlined, PDBs and the ServiceMonitor
   selecting something, and the Strimzi users' ACLs equal to the principals' least privilege.
"""
import argparse
import copy
import re
import sys

import jsonschema
import kubernetes_validate
import yaml

K8S_VERSION = "1.33.0"
SERVICES = {"ingest-app", "shard-sink", "edge-gateway"}
SECRET_NAME = re.compile(r"SECRET|PASSWORD|JAAS|ACCESS_KEY|TOKEN", re.I)
# docs/ARCHITECTURE.md § 6: (resource type, name, pattern) -> operations, per principal.
EXPECTED_ACLS = {
    "shardflow-edge": {("topic", "samples", "literal"): {"Write", "Describe"}},
    "shardflow-ingest": {
        ("topic", "samples", "literal"): {"Read", "Describe", "DescribeConfigs"},
        ("topic", "samples-dlq", "literal"): {"Write", "Describe"},
        ("topic", "shard-assignments", "literal"): {"Write", "Describe"},
        ("topic", "shardflow-ingest", "prefix"): {"All"},
        ("group", "shardflow-ingest", "prefix"): {"All"},
        ("transactionalId", "shardflow-ingest", "prefix"): {"Write", "Describe"},
        ("cluster", None, "literal"): {"Describe", "DescribeConfigs"},
    },
    "shardflow-sink": {
        ("topic", "shard-assignments", "literal"): {"Read", "Describe"},
        ("topic", "samples", "literal"): {"Read", "Describe"},
        ("group", "shardflow-shard-sink", "literal"): {"Read"},
    },
}


def strict(schema):
    """Objects with declared properties accept no other field, unless they preserve unknown ones."""
    schema = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node and "additionalProperties" not in node \
                    and not node.get("x-kubernetes-preserve-unknown-fields"):
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return schema


def load_custom_schemas(crd_files, schema_files):
    schemas = {}
    for path in crd_files:
        for crd in yaml.safe_load_all(open(path)):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                schemas[(f"{group}/{version['name']}", kind)] = version["schema"]["openAPIV3Schema"]
    for path in schema_files:
        doc = yaml.safe_load(open(path))
        group_version = "kafka.strimzi.io/v1beta2" if "strimzi" in path else None
        for kind, schema in doc.items():
            schemas[(group_version, kind)] = schema
    return {key: strict(schema) for key, schema in schemas.items()}


def name_of(obj):
    return f"{obj.get('kind')}/{obj.get('metadata', {}).get('name')}"


def check_schema(obj, custom, problems):
    key = (obj.get("apiVersion"), obj.get("kind"))
    if key in custom:
        for error in jsonschema.Draft7Validator(custom[key]).iter_errors(obj):
            path = ".".join(str(p) for p in error.absolute_path)
            problems.append(f"{name_of(obj)}: {path}: {error.message}")
        return
    try:
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
    except kubernetes_validate.ValidationError as error:
        path = ".".join(str(p) for p in error.path)
        problems.append(f"{name_of(obj)}: {path}: {error.message}")
    except kubernetes_validate.SchemaNotFoundError:
        problems.append(f"{name_of(obj)}: no schema for {key[0]} {key[1]} (ship its CRD)")


def pod_spec(obj):
    kind = obj.get("kind")
    if kind in ("Deployment", "StatefulSet", "Job"):
        return obj["spec"]["template"]["spec"]
    return None


def check_workload(obj, problems):
    spec = pod_spec(obj)
    if spec is None:
        return
    who = name_of(obj)
    if not spec.get("securityContext", {}).get("runAsNonRoot"):
        problems.append(f"{who}: pod securityContext.runAsNonRoot is not true")
    for container in spec.get("initContainers", []) + spec.get("containers", []):
        where = f"{who} container {container['name']}"
        resources = container.get("resources", {})
        if "memory" not in resources.get("limits", {}) or not {"cpu", "memory"} <= set(resources.get("requests", {})):
            problems.append(f"{where}: needs requests.cpu, requests.memory and limits.memory")
        security = container.get("securityContext", {})
        if security.get("allowPrivilegeEscalation") is not False or "ALL" not in security.get("capabilities", {}).get("drop", []):
            problems.append(f"{where}: must set allowPrivilegeEscalation: false and drop ALL capabilities")
        for env in container.get("env", []):
            if SECRET_NAME.search(env["name"]) and "value" in env:
                problems.append(f"{where}: {env['name']} is inlined; reference a Secret (valueFrom.secretKeyRef)")
        if container["name"] in SERVICES:
            if not security.get("readOnlyRootFilesystem"):
                problems.append(f"{where}: readOnlyRootFilesystem must be true")
            if container.get("livenessProbe", {}).get("httpGet", {}).get("path") != "/health":
                problems.append(f"{where}: livenessProbe must GET /health")
            if container.get("readinessProbe", {}).get("httpGet", {}).get("path") != "/ready":
                problems.append(f"{where}: readinessProbe must GET /ready")
            if spec.get("terminationGracePeriodSeconds", 30) <= 30:
                problems.append(f"{where}: terminationGracePeriodSeconds must exceed shutdown.timeout.ms (30 s)")


def selects(selector, labels):
    if not all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for expression in selector.get("matchExpressions", []):
        value = labels.get(expression["key"])
        if expression["operator"] == "In" and value not in expression["values"]:
            return False
    return True


def check_references(objects, problems):
    pod_labels = [o["spec"]["template"]["metadata"].get("labels", {}) for o in objects if o.get("kind") in ("Deployment", "StatefulSet")]
    services = [o for o in objects if o.get("kind") == "Service"]
    for obj in objects:
        kind = obj.get("kind")
        if kind == "Secret":
            problems.append(f"{name_of(obj)}: Secrets are referenced, never rendered into the manifests")
        if kind == "PodDisruptionBudget" and not any(selects(obj["spec"]["selector"], labels) for labels in pod_labels):
            problems.append(f"{name_of(obj)}: selects no workload")
        if kind == "ServiceMonitor":
            matched = [s for s in services if selects(obj["spec"]["selector"], s["metadata"].get("labels", {}))]
            ports = {p.get("name") for s in matched for p in s["spec"].get("ports", [])}
            if not matched:
                problems.append(f"{name_of(obj)}: selects no Service")
            for endpoint in obj["spec"].get("endpoints", []):
                if endpoint.get("port") not in ports:
                    problems.append(f"{name_of(obj)}: port {endpoint.get('port')} is on none of its Services")
        if kind == "KafkaUser":
            user = obj["metadata"]["name"]
            found = {}
            for acl in obj["spec"].get("authorization", {}).get("acls", []):
                r = acl["resource"]
                key = (r["type"], r.get("name"), r.get("patternType", "literal"))
                found.setdefault(key, set()).update(acl.get("operations", []) + ([acl["operation"]] if "operation" in acl else []))
            expected = EXPECTED_ACLS.get(user)
            if expected is None:
                problems.append(f"{name_of(obj)}: not a principal of docs/ARCHITECTURE.md § 6")
            elif found != expected:
                problems.append(f"{name_of(obj)}: ACLs {sorted((k, sorted(v)) for k, v in found.items())} "
                                f"differ from least privilege {sorted((k, sorted(v)) for k, v in expected.items())}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rendered")
    parser.add_argument("--crd", action="append", default=[])
    parser.add_argument("--schemas", action="append", default=[])
    args = parser.parse_args()
    custom = load_custom_schemas(args.crd, args.schemas)
    objects = [o for o in yaml.safe_load_all(open(args.rendered)) if o]
    problems = []
    for obj in objects:
        before = len(problems)
        check_schema(obj, custom, problems)
        if len(problems) == before:  # the rules read fields the schema has already typed
            check_workload(obj, problems)
    if not problems:
        check_references(objects, problems)
    for problem in problems:
        print(f"INVALID {args.rendered}: {problem}")
    print(f"{args.rendered}: {len(objects)} objects, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
