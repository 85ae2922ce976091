#!/usr/bin/env bash
# Sets up the trainer-side Python environment:
#   1. Debian packages h5py, PyTables, numpy, boto3, pytest, venv, hdf5-tools (h5dump), Pillow (image tensors) and torch (1.13 CPU, for
#      the PyTorch reader tests; the package itself works without it), only if missing;
#   2. a virtualenv at ${SHARDFLOW_VENV:-~/.cache/shardflow/venv} that sees those packages;
#   3. `pip install -e python/` when python/pyproject.toml exists (re-run only when it changes), with the
#      pinned extras `edge` (confluent-kafka, fastavro, zlib-ng: the edge producer SDK and its tests) and
#      `edge-bench` (persist-queue, the queue benchmark's baseline);
#   4. the test-only PyPI packages, pinned: hypothesis, and Schemathesis, which fuzzes the HTTP gateway
#      against its OpenAPI document (integration-tests GatewayContractTest).
# Prints the venv's python as its last line, e.g.  PY=$(scripts/setup-python.sh | tail -n1)
#
# The venv is made with /usr/bin/python3 on purpose: the `python3` on PATH may be a pyenv build
# that cannot import Debian's python3-* packages. Works as root without a TTY (CI); as another
# user it uses `sudo -n` for apt-get.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${SHARDFLOW_VENV:-$HOME/.cache/shardflow/venv}
LOGS=${SHARDFLOW_LOGS:-$HOME/.cache/shardflow/logs}
SYS_PYTHON=/usr/bin/python3
PACKAGES=(python3 python3-h5py python3-tables python3-numpy python3-boto3 python3-pytest python3-venv hdf5-tools python3-torch python3-pil)

die() { echo "setup-python: ERROR: $*" >&2; exit 1; }

mkdir -p "$LOGS"

# Runs a step with its output in $LOGS/<step>.log; on failure shows the log's end and exits.
run_step() {
  local step=$1; shift
  local log="$LOGS/python-$step.log"
  if ! "$@" >"$log" 2>&1; then
    echo "setup-python: ERROR: step '$step' failed: $*" >&2
    echo "---- last lines of $log ----" >&2
    tail -n 40 "$log" >&2 || true
    echo "----" >&2
    exit 1
  fi
}

# `dpkg -s` also succeeds for removed-but-not-purged packages, so check the status field.
is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -n "$@"
  else
    die "need root to run: $*"
  fi
}

# Waits for the dpkg lock instead of failing when another apt-get is running (CI images, or a
# second setup script started at the same time).
APT_OPTS=(-o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0)

apt_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${APT_OPTS[@]}" "$@"
}

install_debian_packages() {
  command -v dpkg-query >/dev/null 2>&1 || die "not a Debian system (no dpkg-query); install ${PACKAGES[*]} by hand"
  local missing=() p
  for p in "${PACKAGES[@]}"; do is_installed "$p" || missing+=("$p"); done
  ((${#missing[@]} == 0)) && return 0
  # The package lists of a fresh image are often empty or stale: update only if a first install
  # attempt fails, so a machine with current lists is not slowed down.
  if ! apt_install "${missing[@]}" >"$LOGS/python-apt-install-first.log" 2>&1; then
    run_step apt-update as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q "${APT_OPTS[@]}"
    run_step apt-install apt_install "${missing[@]}"
  fi
  for p in "${missing[@]}"; do is_installed "$p" || die "$p is still not installed after apt-get install"; done
}

venv_is_usable() {
  local cfg="$VENV/pyvenv.cfg"
  [[ -x "$VENV/bin/python" && -f "$cfg" ]] || return 1
  grep -Eq '^include-system-site-packages *= *true' "$cfg" || return 1
  grep -Eq '^home *= */usr/bin *$' "$cfg" || return 1
  "$VENV/bin/python" -c 'import h5py, numpy, boto3, pytest' >/dev/null 2>&1
}

create_venv() {
  venv_is_usable && return 0
  [[ -x "$SYS_PYTHON" ]] || die "$SYS_PYTHON missing after installing python3"
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  run_step venv "$SYS_PYTHON" -m venv --system-site-packages "$VENV"
  "$VENV/bin/python" -c 'import h5py, numpy, boto3, pytest' \
    || die "venv $VENV cannot import the Debian packages h5py/numpy/boto3/pytest"
}

# Requirements of python/pyproject.toml that nothing in the venv satisfies yet, one per line.
# pip cannot see that Debian's h5py is there (its metadata is named "h5py.-debian-h5py-serial"),
# so a plain `pip install -e` would pull a second h5py from PyPI over the tested Debian one. A
# requirement counts as met when its distribution is installed or its module imports.
missing_requirements() {
  "$VENV/bin/python" - "$1" <<'PY'
import importlib, importlib.metadata, re, sys, tomllib
with open(sys.argv[1], "rb") as f:
    project = tomllib.load(f).get("project", {})
deps = list(project.get("dependencies", []))
for extra in ("edge", "edge-bench"):  # what the tests of scripts/test.sh need beyond the trainer's set
    deps += project.get("optional-dependencies", {}).get(extra, [])
for req in deps:
    name = re.split(r"[\s<>=!~;\[(]", req.strip(), maxsplit=1)[0]
    try:
        importlib.metadata.version(name)
        continue
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        importlib.import_module(name.replace("-", "_"))
    except ImportError:
        print(req)
PY
}

# Editable install of the project's package; the stamp skips pip when nothing it reads changed.
install_project() {
  local pyproject="$ROOT/python/pyproject.toml"
  [[ -f "$pyproject" ]] || return 0
  local stamp_file="$VENV/.shardflow-install.stamp"
  local stamp
  stamp="v3 $(sha256sum "$pyproject" | cut -d' ' -f1) $ROOT/python"
  if [[ -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]]; then
    return 0
  fi
  local missing=()
  mapfile -t missing < <(missing_requirements "$pyproject")
  if ((${#missing[@]} > 0)); then
    run_step pip-deps env PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 \
      "$VENV/bin/python" -m pip install -q "${missing[@]}"
  fi
  run_step pip-install env PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 \
    "$VENV/bin/python" -m pip install -q --no-deps -e "$ROOT/python"
  printf '%s' "$stamp" >"$stamp_file"
}

# Test-only packages from PyPI, pinned (python/pyproject.toml's "test" and "contract" extras say the same),
# in one pip run so its resolver sees both (Schemathesis depends on Hypothesis).
HYPOTHESIS_VERSION=6.155.2
SCHEMATHESIS_VERSION=4.32.5
install_test_packages() {
  if "$VENV/bin/python" -c "import hypothesis, sys; sys.exit(hypothesis.__version__ != '$HYPOTHESIS_VERSION')" >/dev/null 2>&1 \
      && [[ "$("$VENV/bin/schemathesis" --version 2>/dev/null)" == *" $SCHEMATHESIS_VERSION" ]]; then
    return 0
  fi
  run_step pip-test env PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 "$VENV/bin/python" -m pip install -q \
    "hypothesis==$HYPOTHESIS_VERSION" "schemathesis==$SCHEMATHESIS_VERSION"
}

install_debian_packages
create_venv
install_project
install_test_packages
echo "$VENV/bin/python"
