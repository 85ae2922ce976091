#!/usr/bin/env bash
# Checks the operators' kit in k8s/monitoring (alert rules, Grafana dashboard, runbook):
#   1. promtool check config and rules: compose's Prometheus configuration with the alert rules, and
#      every dashboard query written as a rule
#   2. promtool test rules: the rules' unit tests (prometheus/shardflow-alerts.test.yml)
#   3. k8s/monitoring/check_kit.py: dashboard schema and layout, PromQL, every metric registered by
#      the code (docs/reference/metrics.md), a runbook page per alert, the PrometheusRule in sync
#   4. each deliberate mistake in a copy of the kit is rejected (the checks bite)
#   5. live: a local pipeline (stack, ingest-app, shard-sink, edge-gateway) and a Prometheus on
#      127.0.0.1 scraping it with the rules loaded; k8s/monitoring/check_live.py finds every metric the
#      kit uses in the scrape, every rule evaluated, every dashboard query with data, and the dead-letter
#      alert pending for the dead letters published on purpose (samples also go through the gateway:
#      accepted, one refused for its shape, one without credentials)
# promtool and prometheus come from Debian's `prometheus` package (installed if missing, as root);
# the Python tools from scripts/lib/docs-venv.sh.
# Usage: scripts/monitoring-validate.sh [--write] [--no-live]
#   --write    regenerate k8s/monitoring/prometheus-rule.yaml from the rule file first
#   --no-live  skip step 5 (it needs bin/shardflow built and takes a few minutes)
set -Eeuo pipefail
trap 'echo "monitoring-validate: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KIT=$ROOT/k8s/monitoring
WRITE="" LIVE=1
for arg in "$@"; do
  case $arg in
    --write) WRITE=--write ;;
    --no-live) LIVE=0 ;;
    *) echo "monitoring-validate: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
started=$SECONDS

if ! command -v promtool >/dev/null 2>&1 || ! command -v prometheus >/dev/null 2>&1; then
  [[ $(id -u) -eq 0 ]] || { echo "monitoring-validate: promtool missing; install Debian's prometheus package" >&2; exit 1; }
  echo "installing Debian's prometheus package (promtool, prometheus)"
  { apt-get update -q -o DPkg::Lock::Timeout=300 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends -o DPkg::Lock::Timeout=300 prometheus; } >/dev/null
  # the package may start its own service; nothing here uses it
  command -v systemctl >/dev/null 2>&1 && systemctl stop prometheus >/dev/null 2>&1 || true
fi
# shellcheck source=scripts/lib/docs-venv.sh
source "$ROOT/scripts/lib/docs-venv.sh"
PY=$(docs_venv)
work=$(mktemp -d)
cleanup() {
  [[ -f $work/prometheus.pid ]] && kill "$(cat "$work/prometheus.pid")" 2>/dev/null
  [[ -d $work/pipeline ]] && bash "$ROOT/scripts/lib/local-pipeline.sh" down "$work/pipeline"
  rm -rf "$work"
}
trap cleanup EXIT

# Every dashboard query as a recording rule, so promtool parses it with Prometheus's own parser.
dashboard_rules() { # kit-dir out-file
  (cd "$1" && "$PY" -c '
import sys, yaml, kit
rules = [{"record": f"shardflow_dashboard:query_{i}", "expr": expr} for i, (_, expr) in enumerate(kit.kit_queries())]
yaml.safe_dump({"groups": [{"name": "dashboard-queries", "rules": rules}]}, open(sys.argv[1], "w"))' "$2")
}

check_kit() { # kit-dir: every offline check; non-zero and INVALID lines on any problem
  local kit=$1 failed=0
  promtool check config "$kit/prometheus/prometheus.yml" >"$work/promtool.log" 2>&1 \
    || { echo "INVALID promtool check config (compose's Prometheus, its rules): $(grep -v '^Checking' "$work/promtool.log" | head -n 3)"; failed=1; }
  if dashboard_rules "$kit" "$work/dashboard-rules.yml" 2>"$work/dashboard-rules.log"; then
    promtool check rules "$work/dashboard-rules.yml" >"$work/promtool.log" 2>&1 \
      || { echo "INVALID promtool check of the dashboard queries: $(grep -v '^Checking' "$work/promtool.log" | head -n 3)"; failed=1; }
  else
    echo "INVALID dashboard queries cannot be read: $(tail -n 1 "$work/dashboard-rules.log")"; failed=1
  fi
  (cd "$kit/prometheus" && promtool test rules shardflow-alerts.test.yml) >"$work/promtool-test.log" 2>&1 \
    || { echo "INVALID promtool test rules: $(grep -m1 -A3 'FAILED' "$work/promtool-test.log" | tr '\n' ' ' | cut -c1-300)"; failed=1; }
  (cd "$kit" && "$PY" check_kit.py $WRITE) || failed=1
  return $failed
}

echo "== monitoring: promtool check and test, kit checks =="
check_kit "$KIT"
echo "promtool: $(grep -c '^ *- alert:' "$KIT/prometheus/shardflow-alerts.yml") alerts and every dashboard query parsed; rule unit tests pass"

# Each mistake alone, in a fresh copy of k8s/monitoring and docs/: file | text | replacement | what it breaks | what the report must say
mistakes=(
  "k8s/monitoring/grafana/dashboards/shardflow-pipeline.json|shardflow_sink_spool_bytes|shardflow_sink_spool_size_bytes|a dashboard query on a meter no service registers|shardflow_sink_spool_size_bytes is not a meter"
  "k8s/monitoring/prometheus/shardflow-alerts.yml|shardflow_sink_store_errors_total|shardflow_sink_store_error_total|an alert on a meter no service registers|shardflow_sink_store_error_total is not a meter"
  "k8s/monitoring/grafana/dashboards/shardflow-pipeline.json|\"gridPos\"|\"gridpos\"|a panel field Grafana's schema does not have|gridpos is not a field of Grafana's dashboard schema"
  "k8s/monitoring/grafana/dashboards/shardflow-pipeline.json|sum(rate(shardflow_sink_samples_committed_total|sum(rate(shardflow_sink_samples_committed_total[|a dashboard query that does not parse|does not parse"
  "k8s/monitoring/grafana/dashboards/shardflow-pipeline.json|  \"title\": \"shardflow pipeline\",|  \"title\": \"shardflow pipeline\"|a dashboard that is not JSON|not JSON"
  "k8s/monitoring/prometheus/shardflow-alerts.yml|client_id!~\".*-restore-consumer\"|client_id!=\"\"|an ingest lag alert that counts state-store restores|alertname: ShardflowIngestLagHigh"
  "k8s/monitoring/prometheus/shardflow-alerts.yml|          > 0.05|          > 0.5|a dead-letter threshold the unit test does not expect|alertname: ShardflowDeadLetterRateHigh"
  "k8s/monitoring/prometheus/shardflow-alerts.yml|docs/runbook/ShardflowSinkBackpressure.md|docs/runbook/backpressure.md|an alert whose runbook annotation names another page|runbook annotation must be"
  "docs/runbook/ShardflowSamplesLost.md|## What not to do|## Do not|a runbook page without its 'What not to do' section|no '## What not to do' section"
  "docs/runbook/index.md|[ShardflowSinkLagHigh](ShardflowSinkLagHigh.md)|ShardflowSinkLagHigh|a runbook index that misses an alert|does not link ShardflowSinkLagHigh.md"
  "k8s/monitoring/prometheus/shardflow-alerts.yml|shardflow_gateway_requests_total{status=~\"5..\"}|shardflow_gateway_requests_total{status!=\"200\"}|a gateway error alert that counts apps' 4xx refusals|alertname: ShardflowGatewayErrorRatioHigh"
)
echo "== monitoring: each deliberate mistake must be rejected =="
for mistake in "${mistakes[@]}"; do
  IFS='|' read -r file text replacement what expect <<<"$mistake"
  copy=$work/broken; rm -rf "$copy"; mkdir -p "$copy/k8s" "$copy/docs"
  cp -r "$KIT" "$copy/k8s/monitoring"; cp -r "$ROOT/docs/runbook" "$ROOT/docs/reference" "$copy/docs/"
  "$PY" - "$copy/$file" "$text" "$replacement" <<'PY'
import sys
path, text, replacement = sys.argv[1:4]
source = open(path).read()
assert text in source, f"{text!r} not in {path}: the mistake no longer applies"
open(path, "w").write(source.replace(text, replacement, 1))
PY
  if (WRITE="" check_kit "$copy/k8s/monitoring" >"$work/report" 2>&1) || ! grep -q '^INVALID' "$work/report"; then
    echo "NOT REJECTED: $what ($file)"; cat "$work/report"; exit 1
  fi
  grep -qF -- "$expect" "$work/report" || { echo "REJECTED FOR ANOTHER REASON: $what: no '$expect' in"; cat "$work/report"; exit 1; }
  echo "rejected as expected: $what -> $(grep -m1 -F -- "$expect" "$work/report" | cut -c1-150)"
done

if [[ $LIVE == 1 ]]; then
  echo "== monitoring: live, against a local pipeline and a real Prometheus =="
  bash "$ROOT/scripts/lib/local-pipeline.sh" up "$work/pipeline"
  # shellcheck disable=SC1091
  source "$work/pipeline/pipeline.env"
  prom_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  cat >"$work/prometheus.yml" <<YML
global: {scrape_interval: 5s, evaluation_interval: 5s}
rule_files: [$KIT/prometheus/shardflow-alerts.yml]
scrape_configs:
  - job_name: ingest-app
    static_configs: [{targets: ['${INGEST#http://}']}]
  - job_name: shard-sink
    static_configs: [{targets: ['${SINK#http://}']}]
  - job_name: edge-gateway
    static_configs: [{targets: ['${GATEWAY#http://}']}]
YML
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
  echo $! >"$work/prometheus.pid"
  # good samples, and samples of the wrong shape: dead letters the dead-letter alert must see
  "$ROOT/bin/shardflow" dataset create --name monitoring --version v1 --tensor image:float32:3x32x32 --tensor label:int64 \
    --label label --author monitoring-validate --description "monitoring kit check" >/dev/null
  "$ROOT/bin/shardflow" dataset create --name monitoring --version v2 --tensor image:float32:3x8x8 --tensor label:int64 \
    --label label --author monitoring-validate --description "monitoring kit check: wrong shape on purpose" >/dev/null
  SHARDFLOW_PROGRESS=off "$ROOT/bin/shardflow" publish --dataset monitoring --version v1 --count 600 >/dev/null
  SHARDFLOW_PROGRESS=off "$ROOT/bin/shardflow" publish --dataset monitoring --version v2 --count 100 >/dev/null
  # through the HTTP gateway: accepted samples, one of the wrong shape (422), one without a token (401)
  token=$("$ROOT/bin/shardflow" gateway token create --device monitoring-phone --dataset monitoring)
  gateway_post() { # body-file [token]
    curl -s -o /dev/null -w '%{http_code}' -X POST "$GATEWAY_URL/v1/datasets/monitoring/versions/v1/samples" \
      -H 'Content-Type: application/json' ${2:+-H "Authorization: Bearer $2"} --data-binary "@$1"
  }
  sample_json() { # file n shape: a monitoring/v1 sample of image float32[shape] (v1 wants 3x32x32)
    "$PY" -c '
import base64, json, math, sys
path, n, shape = sys.argv[1], int(sys.argv[2]), [int(d) for d in sys.argv[3].split("x")]
image = {"dtype": "float32", "shape": shape, "data": base64.b64encode(bytes(4 * math.prod(shape))).decode()}
label = {"dtype": "int64", "data": base64.b64encode(n.to_bytes(8, "little")).decode()}
json.dump({"sample_id": f"gateway-{n}", "tensors": {"image": image, "label": label}}, open(path, "w"))' "$@"
  }
  for n in 0 1 2 3 4; do
    sample_json "$work/sample-$n.json" "$n" 3x32x32
    [[ $(gateway_post "$work/sample-$n.json" "$token") == 200 ]] || { echo "the gateway did not accept sample $n"; exit 1; }
  done
  sample_json "$work/wrong-shape.json" 5 3x8x8
  [[ $(gateway_post "$work/wrong-shape.json" "$token") == 422 ]] || { echo "the gateway did not refuse the wrong shape with 422"; exit 1; }
  [[ $(gateway_post "$work/sample-0.json") == 401 ]] || { echo "the gateway did not refuse a request without a token"; exit 1; }
  (cd "$KIT" && "$PY" check_live.py "http://127.0.0.1:$prom_port" --timeout 300 --expect-pending ShardflowDeadLetterRateHigh:reason=SHAPE_MISMATCH) \
    || { echo "---- prometheus log ----"; tail -n 20 "$work/prometheus.log"; exit 1; }
fi
echo "monitoring validation passed in $((SECONDS - started)) s"
