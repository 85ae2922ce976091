#!/usr/bin/env bash
# The compose test: docker-compose.yml with images built here from the same artifacts the local
# stack uses. Starts the engine if none answers, builds the images, brings the pipeline up, publishes
# from the host through the edge client (the CLI's publish), and checks the dataset holds exactly
# the published samples; then kills the sink container mid-run (and SIGTERMs the other one), restarts
# it, scales ingest-app and shard-sink to 2 replicas each, publishes more and checks exactly-once
# again. Ends with compose down -v and removes the images it built.
# Skips (exit 0, saying so) only when no Docker engine can be started on this machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
started=$SECONDS
say() { printf '[compose-test %4ds] %s\n' $((SECONDS - started)) "$*"; }

if ! bash scripts/docker-engine.sh; then
  say "SKIPPED: no Docker engine can be started on this machine"
  exit 0
fi

export SHARDFLOW_IMAGE_TAG=${SHARDFLOW_IMAGE_TAG:-dev}
PROJECT=shardflow-composetest
# Compose v2 (the docker plugin) where it is installed, else Debian's docker-compose 1.29: the file suits both.
if docker compose version >/dev/null 2>&1; then
  COMPOSE=(docker compose -p "$PROJECT" -f "$ROOT/docker-compose.yml")
else
  COMPOSE=(docker-compose -p "$PROJECT" -f "$ROOT/docker-compose.yml")
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export KAFKA_IMAGE=shardflow/kafka:$SHARDFLOW_IMAGE_TAG REGISTRY_IMAGE=shardflow/apicurio-registry:$SHARDFLOW_IMAGE_TAG \
  MINIO_IMAGE=shardflow/minio:$SHARDFLOW_IMAGE_TAG
export MINIO_HEALTHCHECK="bash -c 'exec 3<>/dev/tcp/127.0.0.1/9000 && printf \"GET /minio/health/live HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n\" >&3 && head -n 1 <&3 | grep -q \" 200 \"'"
KAFKA_HOST_PORT=$(free_port); REGISTRY_HOST_PORT=$(free_port); MINIO_HOST_PORT=$(free_port); GATEWAY_HOST_PORT=$(free_port)
CONSOLE_HOST_PORT=$(free_port)
export KAFKA_HOST_PORT REGISTRY_HOST_PORT MINIO_HOST_PORT GATEWAY_HOST_PORT CONSOLE_HOST_PORT
export SHARDFLOW_CONSOLE_TOKEN=compose-test-$RANDOM$RANDOM
# Small shards sealed quickly, so a short run commits many of them.
export SHARDFLOW_SHARD_MAX_SAMPLES=50 SHARDFLOW_SHARD_MAX_AGE_MS=3000 SHARDFLOW_TENSOR_IMAGE=image:float32:3x8x8
export SHARDFLOW_BOOTSTRAP_SERVERS=127.0.0.1:$KAFKA_HOST_PORT SHARDFLOW_REGISTRY_URL=http://127.0.0.1:$REGISTRY_HOST_PORT/apis/registry/v3 \
  SHARDFLOW_S3_ENDPOINT=http://127.0.0.1:$MINIO_HOST_PORT SHARDFLOW_S3_ACCESS_KEY=shardflow SHARDFLOW_S3_SECRET_KEY=shardflow-secret \
  SHARDFLOW_S3_BUCKET=shardflow

cleanup() {
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    say "FAILED; last service logs:"
    "${COMPOSE[@]}" logs --no-color --tail 40 2>&1 | tail -n 200 || true
  fi
  "${COMPOSE[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  # Images someone else built (scripts/test.sh, SHARDFLOW_IMAGES_READY=1) stay: the container
  # variants of the integration tests run from them at the same time, and they are that run's cache.
  if [[ ${SHARDFLOW_IMAGES_READY:-0} != 1 ]]; then
    for image in ingest-app shard-sink edge-gateway cli kafka apicurio-registry minio; do
      docker image rm -f "shardflow/$image:$SHARDFLOW_IMAGE_TAG" >/dev/null 2>&1 || true
    done
    docker image prune -f >/dev/null 2>&1 || true
    say "cleaned up (compose down -v, images removed)"
  else
    say "cleaned up (compose down -v; the images stay with whoever built them)"
  fi
  exit $rc
}
trap cleanup EXIT

if [[ ! -f cli/target/dist/shardflow-cli.jar || ! -f shard-sink/target/dist/shardflow-shard-sink.jar || ! -f ingest-app/target/dist/shardflow-ingest-app.jar ]]; then
  say "building the distributions (mvn package)"
  mvn -B -q -ntp -DskipTests install
fi
CLI=(java -jar "$ROOT/cli/target/dist/shardflow-cli.jar")

if [[ ${SHARDFLOW_IMAGES_READY:-0} != 1 ]]; then   # scripts/test.sh built and smoke-tested them already
  say "building images"
  bash scripts/build-images.sh --all 2>&1 | { grep -v -E 'DEPRECATED|BuildKit|environment-variable|^$' || true; }
fi
docker images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "shardflow/" | sed 's/^/  image /'

# The secure profile is not run here (Keycloak and TLS: SecureStackTest covers the same services on the
# local stack); its merged file must still be valid compose with every service it names.
say "secure profile: the merged configuration"
COMPOSE_PROFILES=secure "${COMPOSE[@]}" -f "$ROOT/docker-compose.secure.yml" config -q
# Listed once into a variable: `config --services | grep -q` under pipefail fails whenever grep stops
# reading at its match before compose has written the rest (SIGPIPE), as a fresh run once did.
secure_services=$(COMPOSE_PROFILES=secure "${COMPOSE[@]}" -f "$ROOT/docker-compose.secure.yml" config --services | sort)
echo "$secure_services" | tr '\n' ' ' | sed 's/^/  services: /'; echo
grep -qx keycloak <<<"$secure_services" || { say "the secure profile has no keycloak service"; exit 1; }

say "compose up"
"${COMPOSE[@]}" up -d 2>&1 | { grep -v -E '^(Creating|Starting)' || true; }

containers() { "${COMPOSE[@]}" ps -q "$1"; }
await_healthy() { # service count
  local deadline=$((SECONDS + 300)) healthy
  while :; do
    healthy=0
    for c in $(containers "$1"); do
      [[ $(docker inspect -f '{{.State.Health.Status}}' "$c" 2>/dev/null) == healthy ]] && healthy=$((healthy + 1))
    done
    [[ $healthy -ge $2 ]] && { say "$1: $healthy ready"; return; }
    [[ $SECONDS -gt $deadline ]] && { say "$1: only $healthy of $2 ready after 300 s"; return 1; }
    sleep 2
  done
}
await_healthy ingest-app 1
await_healthy shard-sink 1

DATASET=cams
published=0
publish() { # count
  "${CLI[@]}" publish --dataset "$DATASET" --version v1 --device compose-cam --channels 3 --size 8 --first "$published" --count "$1" | sed 's/^/  /'
  published=$((published + $1))
}
committed() { "${CLI[@]}" dataset verify "$DATASET" v1 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])' 2>/dev/null || echo 0; }
# Count alone is not the proof: verify also fails on any sample id stored twice, and ids come only
# from the published range, so "samples == published and no duplicate" means exactly the published set.
await_exactly_published() {
  local deadline=$((SECONDS + 240))
  until [[ $(committed) -ge $published ]]; do
    [[ $SECONDS -gt $deadline ]] && { say "only $(committed) of $published samples committed after 240 s"; return 1; }
    sleep 3
  done
  sleep 8 # anything committed twice would land now
  local report
  report=$("${CLI[@]}" dataset verify "$DATASET" v1 --json)
  python3 - "$published" "$report" <<'PY'
import json, sys
expected, report = int(sys.argv[1]), json.loads(sys.argv[2])
assert report["ok"], report["problems"]
assert report["samples"] == expected, f'{report["samples"]} samples committed, {expected} published'
print(f'  verified: snapshot {report["snapshotId"]}, {report["shards"]} shards, {report["samples"]} samples, no duplicates')
PY
}

say "publishing 400 samples from the host"
publish 400
await_exactly_published

# The HTTP gateway container: a device token from the host's CLI (the object store is shared), 20
# samples as one JSON batch, answered 200 only once the broker acknowledged them all.
await_healthy edge-gateway 1
say "sending 20 samples through the HTTP gateway"
token=$("${CLI[@]}" gateway token create --device compose-phone --dataset "$DATASET" 2>/dev/null)
python3 - "$token" "$GATEWAY_HOST_PORT" "$DATASET" <<'PY'
import base64, json, struct, sys, urllib.request
token, port, dataset = sys.argv[1], sys.argv[2], sys.argv[3]
samples = [{"sample_id": f"compose-phone-{n}", "tensors": {
    "image": {"dtype": "float32", "shape": [3, 8, 8], "data": base64.b64encode(struct.pack("<192f", *([n / 10] * 192))).decode()},
    "label": {"dtype": "int64", "data": base64.b64encode(struct.pack("<q", n % 10)).decode()}}} for n in range(20)]
request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/datasets/{dataset}/versions/v1/samples",
    data=json.dumps({"samples": samples}).encode(), method="POST",
    headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
answer = json.load(urllib.request.urlopen(request, timeout=60))
assert answer["accepted"] == 20 and answer["device_id"] == "compose-phone", answer
print("  gateway: 20 samples acknowledged")
PY
published=$((published + 20))
await_exactly_published

# The web console container: the version page answers only with the token, and shows the samples.
await_healthy console 1
say "reading the dataset's page in the web console"
python3 - "$CONSOLE_HOST_PORT" "$SHARDFLOW_CONSOLE_TOKEN" "$DATASET" "$published" <<'PY'
import sys, urllib.error, urllib.request
port, token, dataset, published = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
url = f"http://127.0.0.1:{port}/datasets/{dataset}/v1"
try:
    urllib.request.urlopen(url, timeout=30)
    raise SystemExit("the console answered without credentials")
except urllib.error.HTTPError as e:
    assert e.code == 401, e.code
page = urllib.request.urlopen(urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"}), timeout=60).read().decode()
assert f"{published:,}" in page or str(published) in page, f"{published} samples not on {url}"
print(f"  console: {url} shows {published} samples; 401 without the token")
PY

say "publishing 600 more; killing the sink container mid-run (docker kill: SIGKILL)"
publish 300
sink=$(containers shard-sink | head -n 1)
sleep 3
docker kill "$sink" >/dev/null
publish 300
say "restarting the sink container"
docker start "$sink" >/dev/null
await_healthy shard-sink 1
await_exactly_published

say "scaling ingest-app and shard-sink to 2 replicas each"
"${COMPOSE[@]}" up -d --no-recreate --scale ingest-app=2 --scale shard-sink=2 2>&1 | { grep -v -E '^(Creating|Starting|.*is up-to-date)' || true; }
await_healthy ingest-app 2
await_healthy shard-sink 2
publish 400
say "docker stop (SIGTERM) one sink replica mid-run"
sink=$(containers shard-sink | tail -n 1)
t0=$SECONDS
docker stop -t 40 "$sink" >/dev/null
say "  stopped in $((SECONDS - t0)) s, exit code $(docker inspect -f '{{.State.ExitCode}}' "$sink")"
[[ $(docker inspect -f '{{.State.ExitCode}}' "$sink") == 0 ]] || { say "sink did not exit 0 on SIGTERM"; exit 1; }
publish 400
docker start "$sink" >/dev/null
await_healthy shard-sink 2
await_exactly_published

say "PASSED: $published samples exactly once through kill, SIGTERM, restart and 2x scale"
