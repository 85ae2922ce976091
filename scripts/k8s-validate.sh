#!/usr/bin/env bash
# Renders every kustomize overlay under k8s/overlays and validates the result offline (k8s/validate.py:
# Kubernetes schemas from kubernetes-validate, custom resources against their CRD schemas, and the
# deployment rules), then proves the check bites: a copy of k8s/ with one deliberate mistake at a
# time must be rejected. Tools are fetched once (kustomize through the Go module proxy, the
# ServiceMonitor and PrometheusRule CRDs from prometheus-operator's Go module, kubernetes-validate from PyPI) and cached
# under ~/.cache/shardflow/k8s-tools; versions come from the root pom.xml.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${SHARDFLOW_K8S_TOOLS:-$HOME/.cache/shardflow/k8s-tools}
started=$SECONDS
pom_prop() { sed -n "s:.*<$1>\([^<]*\)</$1>.*:\1:p" "$ROOT/pom.xml" | head -n1; }
KUSTOMIZE_VERSION=$(pom_prop kustomize.version)
VALIDATE_VERSION=$(pom_prop kubernetes-validate.version)
PROMOP_VERSION=$(pom_prop prometheus-operator.version)
mkdir -p "$TOOLS"

KUSTOMIZE=$TOOLS/kustomize-$KUSTOMIZE_VERSION/kustomize
if [[ ! -x $KUSTOMIZE ]]; then
  echo "installing kustomize $KUSTOMIZE_VERSION (go install, once)"
  GOBIN=$(dirname "$KUSTOMIZE") GOFLAGS=-mod=mod go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" >"$TOOLS/go-install.log" 2>&1 \
    || { tail -n 20 "$TOOLS/go-install.log" >&2; exit 1; }
fi
VENV=$TOOLS/venv-$VALIDATE_VERSION
if [[ ! -x $VENV/bin/kubernetes-validate ]]; then
  echo "installing kubernetes-validate $VALIDATE_VERSION (PyPI, once)"
  python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "kubernetes-validate==$VALIDATE_VERSION" >"$TOOLS/pip.log" 2>&1 \
    || { tail -n 20 "$TOOLS/pip.log" >&2; exit 1; }
fi
PROMOP_DIR=$(GOFLAGS=-mod=mod go mod download -json "github.com/prometheus-operator/prometheus-operator@$PROMOP_VERSION" \
  | "$VENV/bin/python" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
SERVICE_MONITOR_CRD=$PROMOP_DIR/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml
PROMETHEUS_RULE_CRD=$PROMOP_DIR/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml

validate_tree() { # k8s-dir out-dir: renders and validates each overlay; non-zero on any problem
  local tree=$1 out=$2 failed=0 overlay
  for overlay in "$tree"/overlays/*/; do
    local name rendered
    name=$(basename "$overlay"); rendered=$out/$name.yaml
    if ! "$KUSTOMIZE" build "$overlay" >"$rendered" 2>"$out/$name.err"; then
      echo "INVALID $name: kustomize build failed: $(head -n 3 "$out/$name.err")"; failed=1; continue
    fi
    "$VENV/bin/python" "$ROOT/k8s/validate.py" "$rendered" --crd "$SERVICE_MONITOR_CRD" --crd "$PROMETHEUS_RULE_CRD" \
      --schemas "$tree/schemas/kafka.strimzi.io-v1beta2.yaml" || failed=1
  done
  return $failed
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ok"
echo "== k8s: rendering and validating the overlays =="
validate_tree "$ROOT/k8s" "$work/ok"

# Each mistake alone, in a fresh copy: file | text | replacement | what it breaks
mistakes=(
  "base/shard-sink.yaml|terminationGracePeriodSeconds: 45|terminationGracePeriodSeconds: \"45s\"|a field of the wrong type (Kubernetes schema)"
  "base/ingest-app.yaml|serviceName: ingest-app|serviceName: ingest-app\n  replica: 2|an unknown field (strict Kubernetes schema)"
  "base/service-monitor.yaml|interval: 30s|intervall: 30s|an unknown ServiceMonitor field (its CRD schema)"
  "monitoring/prometheus-rule.yaml|for: 5m|forr: 5m|an unknown PrometheusRule field (its CRD schema)"
  "overlays/prod/kafka-users.yaml|operations: [Read]|operations: [Raed]|an operation Strimzi does not know (its CRD schema)"
  "overlays/prod/kafka-users.yaml|operations: [Write, Describe]\n---|operations: [Write, Describe, Read]\n---|the edge user allowed to READ samples (least privilege)"
  "base/shard-sink.yaml|readOnlyRootFilesystem: true|readOnlyRootFilesystem: false|a writable root filesystem"
  "base/ingest-app.yaml|valueFrom: {secretKeyRef: {name: shardflow-s3, key: secret-key}}|value: inlined-secret|a secret inlined instead of referenced"
  "base/edge-gateway.yaml|httpGet: {path: /ready, port: metrics}|httpGet: {path: /health, port: metrics}|the gateway routed to before it is ready"
)
echo "== k8s: each deliberate mistake must be rejected =="
for mistake in "${mistakes[@]}"; do
  IFS='|' read -r file text replacement what <<<"$mistake"
  copy=$work/broken; rm -rf "$copy" "$work/out"; cp -r "$ROOT/k8s" "$copy"; mkdir -p "$work/out"
  "$VENV/bin/python" - "$copy/$file" "$text" "$replacement" <<'PY'
import sys
path, text, replacement = sys.argv[1], sys.argv[2].replace("\\n", "\n"), sys.argv[3].replace("\\n", "\n")
source = open(path).read()
assert text in source, f"{text!r} not in {path}: the mistake no longer applies"
open(path, "w").write(source.replace(text, replacement, 1))
PY
  if validate_tree "$copy" "$work/out" >"$work/out/report" 2>&1 || ! grep -q '^INVALID' "$work/out/report"; then
    echo "NOT REJECTED: $what ($file)"; cat "$work/out/report"; exit 1
  fi
  echo "rejected as expected: $what -> $(grep -m1 INVALID "$work/out/report" | cut -c1-160)"
done
echo "k8s validation passed in $((SECONDS - started)) s"
