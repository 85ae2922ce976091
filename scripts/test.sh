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
echo "== preparing Python (h5py, numpy, boto3, pytest) =="
PYTHON=$(bash scripts/setup-python.sh | tail -n 1)
export SHARDFLOW_PYTHON="$PYTHON"

echo "== Java: unit and integration tests =="
mvn -B -ntp install

echo "== Kubernetes manifests: render and validate offline =="
bash scripts/k8s-validate.sh

echo "== Containers: images and docker compose (skips only when no Docker engine can start) =="
bash scripts/compose-test.sh

echo "== Python tests =="
"$PYTHON" -m pytest -q python/tests
