#!/usr/bin/env bash
# The test command (README command two; .ci/run calls it): installs what the tests need, then runs
# every Java test (unit tests and the integration tests against a real Kafka broker, Apicurio
# Registry, S3Proxy and MinIO started as local processes), the Kubernetes manifest validation, the
# docker compose test on locally built images, and the Python tests.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

echo "== installing tools (Kafka, Apicurio, S3Proxy, MinIO build; cached) =="
bash scripts/fetch-tools.sh
echo "== zsh for the completion test (bash is always there) =="
if ! command -v zsh >/dev/null 2>&1 && [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  { apt-get update -q -o DPkg::Lock::Timeout=300 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends -o DPkg::Lock::Timeout=300 zsh; } >/dev/null 2>&1 \
    || echo "zsh could not be installed: the zsh completion test will be reported as skipped"
fi
echo "== Chromium and its WebDriver for the console's browser tests =="
bash scripts/setup-browser.sh
echo "== preparing Python (h5py, numpy, boto3, pytest) =="
PYTHON=$(bash scripts/setup-python.sh | tail -n 1)
export SHARDFLOW_PYTHON="$PYTHON"

echo "== Container images (for the Testcontainers runs and the compose test) =="
# A Docker engine this script starts is stopped when it ends; one that was already running is left alone.
if ! timeout 10 docker info >/dev/null 2>&1; then
  DOCKERD_PID_FILE=${SHARDFLOW_DOCKER_STATE:-$HOME/.cache/shardflow/docker}/dockerd.pid
  rm -f "$DOCKERD_PID_FILE"   # a stale pid must not name another process
  trap '[[ -f "$DOCKERD_PID_FILE" ]] && kill "$(cat "$DOCKERD_PID_FILE")" 2>/dev/null; true' EXIT
fi
if bash scripts/docker-engine.sh; then
  mvn -B -ntp -q -DskipTests install
  # The filter only quietens the legacy builder's notices; a build failure still fails the pipeline.
  bash scripts/build-images.sh --all 2>&1 | { grep -v -E 'DEPRECATED|BuildKit|environment-variable|^$' || true; }
else
  echo "no Docker engine can be started here: the container runs will be reported as skipped"
fi

echo "== Java: unit and integration tests =="
mvn -B -ntp install

echo "== Kubernetes manifests: render and validate offline =="
bash scripts/k8s-validate.sh

echo "== Containers: images and docker compose (skips only when no Docker engine can start) =="
bash scripts/compose-test.sh

echo "== Python tests =="
"$PYTHON" -m pytest -q python/tests
