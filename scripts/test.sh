#!/usr/bin/env bash
# The test command (README command two; .ci/run calls it). Installs what the tests need, then runs
# every stage, each even when another failed (unless it needs what that one makes), and ends with a
# table of stages, results and times; exits non-zero if any stage failed.
#
#   disk         enough free space where the tests write (SHARDFLOW_MIN_FREE_GB, default 20)
#   tools        the servers the tests run (Kafka, Apicurio, S3Proxy; scripts/fetch-tools.sh)
#   minio        the MinIO server, built from source (background)
#   python-env   Debian packages and the venv for the Python tests, zsh and Chromium (background)
#   engine       a Docker engine (installed and started if none answers; background)
#   build        mvn install -DskipTests: every module and the service distributions
#   images       the container images, each smoke-tested as its own user (background)
#   k8s          the Kubernetes manifests rendered and validated offline
#   python       the Python tests
#   frameworks-env  a second venv with TensorFlow, JAX and Hugging Face datasets (PyPI; background)
#   frameworks   the adapters' tests in that venv (resume through tf.train.Checkpoint, JAX, HF)
#   docs         the documentation site built strictly (broken links and anchors fail it)
#   monitoring   alert rules (promtool check and unit tests), the dashboard, and both live against a
#                real Prometheus scraping a local pipeline
#   docs-run     the guides' blocks marked runnable, run against a local stack
#   java-unit    the Java tests of every module but integration-tests (background)
#   java-it      the integration tests: real servers, services as processes and containers (background,
#                from the end of `build`: the container variants run last and wait for `images`)
#   compose      docker compose on the images: exactly-once through kills, restarts and scaling
# The two Java stages run side by side on the modules `build` installed; so do the installs, and the
# image build with the Python and k8s stages: the tests wait on processes and timeouts often enough
# that two cores are kept busy (the stage table shows where the time goes).
#
# Usage: scripts/test.sh [--fresh] [--long]
#   --fresh  prove from nothing: every cache the scripts keep (tools, MinIO and Go builds, the base
#            image and its tarball, images, venv, Maven repository) starts empty in a temporary
#            folder, removed at the end with the images built under its own tag. Debian packages
#            already installed stay installed. Also SHARDFLOW_FRESH=1.
#   --long   also the long forms: the long chaos run (`bin/shardflow chaos --long`) and 100 kill -9 rounds per
#            durability of the Python edge SDK (20 by default). Also SHARDFLOW_LONG=1.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
STARTED=$(date +%s)
FRESH=${SHARDFLOW_FRESH:-0}
LONG=${SHARDFLOW_LONG:-0}
for arg in "$@"; do
  case $arg in
    --fresh) FRESH=1 ;;
    --long) LONG=1 ;;
    -h|--help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

# shellcheck source=scripts/lib/stages.sh
source "$ROOT/scripts/lib/stages.sh"
if [[ $FRESH == 1 ]]; then
  # shellcheck source=scripts/lib/fresh.sh
  source "$ROOT/scripts/lib/fresh.sh"
  fresh_caches
fi

# A Docker engine this script starts is stopped when it ends; one that was already running is left alone.
DOCKER_STATE=${SHARDFLOW_DOCKER_STATE:-$HOME/.cache/shardflow/docker}
ENGINE_WAS_RUNNING=0
timeout 10 docker info >/dev/null 2>&1 && ENGINE_WAS_RUNNING=1
on_exit() {
  jobs -p | xargs -r kill 2>/dev/null   # background stages of an interrupted run
  if [[ $FRESH == 1 ]]; then fresh_cleanup; fi
  if [[ $ENGINE_WAS_RUNNING == 0 && -f $DOCKER_STATE/dockerd.pid ]]; then kill "$(cat "$DOCKER_STATE/dockerd.pid")" 2>/dev/null; fi
  rm -rf "$STAGE_LOGS"
}
trap on_exit EXIT
[[ $ENGINE_WAS_RUNNING == 1 ]] || rm -f "$DOCKER_STATE/dockerd.pid"   # a stale pid must not name another process

install_zsh() { # for the shell-completion test (bash is always there); the test says skipped without it
  command -v zsh >/dev/null 2>&1 && return 0
  [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1 || { echo "no zsh: its completion test is skipped"; return 0; }
  { apt-get update -q -o DPkg::Lock::Timeout=300 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends -o DPkg::Lock::Timeout=300 zsh; } >/dev/null 2>&1 \
    || echo "zsh could not be installed: its completion test will be reported as skipped"
}
# The venv, zsh for the shell-completion test and Chromium for the console's browser tests (apt, all three).
python_env() {
  bash scripts/setup-python.sh >"$STAGE_LOGS/python-env.path" && tail -n 1 "$STAGE_LOGS/python-env.path" || return 1
  install_zsh
  bash scripts/setup-browser.sh
}
engine() {
  if bash scripts/docker-engine.sh; then echo yes >"$STAGE_LOGS/engine.answers"; else
    echo "no Docker engine can be started here: the container runs are reported as skipped"; fi
}
images() {
  [[ -f $STAGE_LOGS/engine.answers ]] || { echo "no Docker engine: no images"; return 0; }
  bash scripts/build-images.sh --all --from "$STAGE_LOGS/dists" 2>&1 | { grep -v -E 'DEPRECATED|BuildKit|environment-variable|^$' || true; } || return 1
  bash scripts/tests/image-smoke-selftest.sh
}
stage_dists() { # a copy the images are built from, so the java stage may repackage while they build
  rm -rf "$STAGE_LOGS/dists" && mkdir -p "$STAGE_LOGS/dists"
  local m; for m in ingest-app shard-sink edge-gateway cli; do cp -r "$m/target/dist" "$STAGE_LOGS/dists/$m"; done
}
# `test`, not `install`: the distributions `build` made stay as they are while the tests run from them.
java_unit() { mvn -B -ntp -fae test -pl '!integration-tests'; }  # -fae: every module's tests, even after one fails
java_it() { mvn -B -ntp -fae test -pl integration-tests; }  # without an engine the container variants report skipped
# A hung test ends the stage after 40 minutes (4-8 are usual) with every thread's stack: SIGABRT
# reaches pytest's faulthandler, which prints them.
python_tests() { timeout -s ABRT 2400 "$(tail -n 1 "$STAGE_LOGS/python-env.path")" -m pytest -q python/tests; }
frameworks_env() { bash scripts/setup-frameworks.sh >"$STAGE_LOGS/frameworks-env.path" && tail -n 1 "$STAGE_LOGS/frameworks-env.path"; }
frameworks_tests() { PYTHONPATH=python "$(tail -n 1 "$STAGE_LOGS/frameworks-env.path")" -m pytest -q python/tests_frameworks; }

stage disk -- disk_check "${SHARDFLOW_MIN_FREE_GB:-20}"
stage tools -- bash scripts/fetch-tools.sh --no-minio
stage_bg minio --needs tools -- bash scripts/fetch-tools.sh
stage_bg python-env -- python_env
stage_bg engine -- engine
stage build --needs tools -- mvn -B -ntp -q -DskipTests install
stage_wait engine minio python-env
stage_bg frameworks-env --needs python-env -- frameworks_env
export SHARDFLOW_PYTHON
SHARDFLOW_PYTHON=$(tail -n 1 "$STAGE_LOGS/python-env.path" 2>/dev/null || true)
if stage_ok build; then stage_dists; fi
# java-it starts now, beside the image build: its container variants come last and wait for the
# images stage's outcome in this file (integration-tests' ImagesGate).
export SHARDFLOW_IMAGES_GATE=$STAGE_LOGS/images.gate
images_gated() { if images; then echo ready >"$SHARDFLOW_IMAGES_GATE"; else echo failed >"$SHARDFLOW_IMAGES_GATE"; return 1; fi; }
stage_bg images --needs "build engine minio" -- images_gated
stage_ok images || [[ -n ${STAGE_PID[images]:-} ]] || echo skipped >"$SHARDFLOW_IMAGES_GATE"
if [[ $LONG == 1 ]]; then export SHARDFLOW_EDGE_IT_KILLS=${SHARDFLOW_EDGE_IT_KILLS:-100}; fi  # the Python edge SDK's kill -9 rounds
stage_bg java-it --needs "build minio python-env" -- java_it
stage_bg java-unit --needs "build minio python-env" -- java_unit
stage k8s -- bash scripts/k8s-validate.sh
stage docs -- bash scripts/docs-build.sh
stage python --needs python-env -- python_tests
stage monitoring --needs build -- bash scripts/monitoring-validate.sh
stage docs-run --needs "build python-env" -- bash scripts/docs-run.sh
stage_wait frameworks-env
stage frameworks --needs frameworks-env -- frameworks_tests
stage_wait images
stage_wait java-unit
stage compose --needs "build images" -- env SHARDFLOW_IMAGES_READY=1 bash scripts/compose-test.sh
stage_wait java-it
if [[ $LONG == 1 ]]; then
  stage chaos-long --needs build -- bin/shardflow chaos --long --seed "${SHARDFLOW_CHAOS_SEED:-42}"
fi
stage_summary "$STARTED"
