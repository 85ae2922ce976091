#!/usr/bin/env bash
# A local pipeline for the documentation and monitoring checks: a stack (bin/shardflow stack up),
# ingest-app, shard-sink and the HTTP edge-gateway as processes with their metrics endpoints on free
# 127.0.0.1 ports.
#
#   scripts/lib/local-pipeline.sh up DIR     start; writes DIR/pipeline.env (source it) and waits until
#                                            the services answer /ready
#   scripts/lib/local-pipeline.sh down DIR   stop the services (SIGTERM, then SIGKILL) and the stack
#
# DIR/pipeline.env exports SHARDFLOW_STACK_DIR and the endpoints (SHARDFLOW_BOOTSTRAP_SERVERS, ...),
# INGEST, SINK and GATEWAY (the services' metrics base URLs, as docs/runbook names them) and
# GATEWAY_URL (the gateway's API; also as SHARDFLOW_GATEWAY_URL, the name `stack up --gateway` prints).
# Logs: DIR/*.log.
# Needs bin/shardflow built (the test command's build stage; the launcher builds on first use).
set -Eeuo pipefail
trap 'echo "local-pipeline: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
action=${1:?usage: local-pipeline.sh up|down DIR}
DIR=$(mkdir -p "${2:?usage: local-pipeline.sh up|down DIR}" && cd "$2" && pwd)
SHARDFLOW=$ROOT/bin/shardflow

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

wait_ready() { # name url log
  local deadline=$((SECONDS + ${SHARDFLOW_PIPELINE_TIMEOUT:-300}))
  until [[ $(curl -s -o /dev/null -w '%{http_code}' "$2/ready" || true) == 200 ]]; do
    if ((SECONDS > deadline)) || ! kill -0 "$(cat "$DIR/$1.pid")" 2>/dev/null; then
      echo "local-pipeline: $1 is not ready at $2; the end of its log:" >&2
      tail -n 30 "$3" >&2
      return 1
    fi
    sleep 2
  done
}

up() {
  "$SHARDFLOW" stack up --stack-dir "$DIR/stack" >"$DIR/stack-up.log" 2>&1 || { cat "$DIR/stack-up.log" >&2; return 1; }
  local status ingest_port sink_port gateway_port gateway_api_port
  # status exits 1 while a server does not answer; the endpoints it records are what is needed here
  status=$("$SHARDFLOW" stack status --stack-dir "$DIR/stack" --json || true)
  endpoint() { python3 -c 'import json,sys; print(next(s["endpoint"] for s in json.load(sys.stdin)["servers"] if s["role"] == sys.argv[1]))' "$1" <<<"$status"; }
  ingest_port=$(free_port)
  sink_port=$(free_port)
  gateway_port=$(free_port)
  gateway_api_port=$(free_port)
  cat >"$DIR/pipeline.env" <<ENV
export SHARDFLOW_STACK_DIR=$DIR/stack
export SHARDFLOW_BOOTSTRAP_SERVERS=$(endpoint BROKER)
export SHARDFLOW_REGISTRY_URL=$(endpoint REGISTRY)
export SHARDFLOW_S3_ENDPOINT=$(endpoint S3)
export SHARDFLOW_S3_ACCESS_KEY=shardflow
export SHARDFLOW_S3_SECRET_KEY_FILE=$DIR/stack/s3-secret-key
export SHARDFLOW_S3_BUCKET=shardflow
export INGEST=http://127.0.0.1:$ingest_port
export SINK=http://127.0.0.1:$sink_port
export GATEWAY=http://127.0.0.1:$gateway_port
export GATEWAY_URL=http://127.0.0.1:$gateway_api_port
export SHARDFLOW_GATEWAY_URL=http://127.0.0.1:$gateway_api_port
ENV
  # The services read every SHARDFLOW_* variable as a setting: start them with only theirs.
  # shellcheck disable=SC1091
  (source "$DIR/pipeline.env"; unset SHARDFLOW_STACK_DIR SHARDFLOW_GATEWAY_URL
   SHARDFLOW_METRICS_PORT=$ingest_port SHARDFLOW_STATE_DIR=$DIR/ingest-state SHARDFLOW_SHARD_MAX_SAMPLES=100 \
     SHARDFLOW_SHARD_MAX_AGE_MS=5000 exec "$SHARDFLOW" ingest >"$DIR/ingest.log" 2>&1) &
  echo $! >"$DIR/ingest.pid"
  (source "$DIR/pipeline.env"; unset SHARDFLOW_STACK_DIR SHARDFLOW_GATEWAY_URL
   SHARDFLOW_METRICS_PORT=$sink_port SHARDFLOW_SPOOL_DIR=$DIR/sink-spool exec "$SHARDFLOW" sink >"$DIR/sink.log" 2>&1) &
  echo $! >"$DIR/sink.pid"
  (source "$DIR/pipeline.env"; unset SHARDFLOW_STACK_DIR SHARDFLOW_GATEWAY_URL
   SHARDFLOW_METRICS_PORT=$gateway_port SHARDFLOW_LISTEN_PORT=$gateway_api_port exec "$SHARDFLOW" gateway run >"$DIR/gateway.log" 2>&1) &
  echo $! >"$DIR/gateway.pid"
  wait_ready ingest "http://127.0.0.1:$ingest_port" "$DIR/ingest.log"
  wait_ready sink "http://127.0.0.1:$sink_port" "$DIR/sink.log"
  wait_ready gateway "http://127.0.0.1:$gateway_port" "$DIR/gateway.log"
  echo "local pipeline up in $DIR: ingest-app $ingest_port, shard-sink $sink_port, edge-gateway $gateway_port (API $gateway_api_port)" \
    "(source $DIR/pipeline.env)"
}

stop_service() {
  local pidfile=$DIR/$1.pid pid
  [[ -f $pidfile ]] || return 0
  pid=$(cat "$pidfile")
  if kill -TERM "$pid" 2>/dev/null; then
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

down() {
  stop_service gateway
  stop_service sink
  stop_service ingest
  if [[ -d $DIR/stack ]]; then
    "$SHARDFLOW" stack down --stack-dir "$DIR/stack" >/dev/null 2>&1 || true
  fi
}

case $action in
  up) up ;;
  down) down ;;
  *) echo "usage: local-pipeline.sh up|down DIR" >&2; exit 2 ;;
esac
