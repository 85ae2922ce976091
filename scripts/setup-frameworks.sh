#!/usr/bin/env bash
# Sets up the Python environments beside the main venv (scripts/setup-python.sh), each made once and
# re-made only when this script's pins change:
#
#   (default)  ${SHARDFLOW_FRAMEWORKS_VENV:-~/.cache/shardflow/venv-frameworks}: TensorFlow (CPU), JAX
#              (CPU) and Hugging Face datasets from PyPI, with PyPI's numpy 1.26 and h5py, for the
#              adapters' tests (python/tests_frameworks). Its own interpreter packages only: TF and
#              JAX need a newer numpy than Debian's 1.24, and the main venv's Debian h5py and torch are
#              built against that one, so the two never share a site-packages.
#   --bench    ${SHARDFLOW_BENCH_VENV:-~/.cache/shardflow/venv-bench}: the main venv's Debian packages
#              (numpy 1.24, h5py, torch 1.13) plus the peers the read benchmark compares against
#              (mosaicml-streaming, webdataset), installed under a constraint that keeps numpy and
#              torch as Debian has them.
#
# Install time of the default venv, measured on the shared 2-core machine: 3 min 50 s with an empty
# pip cache (about 600 MB of wheels downloaded), 71 s with the wheels cached; --bench about 40 s.
# Prints the venv's python as its last line, e.g.  PY=$(bash scripts/setup-frameworks.sh | tail -n1)
# Both use /usr/bin/python3 (3.11 on Debian 12); run scripts/setup-python.sh first (Debian packages).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOGS=${SHARDFLOW_LOGS:-$HOME/.cache/shardflow/logs}
SYS_PYTHON=/usr/bin/python3
mkdir -p "$LOGS"

# Pinned, tested together on Python 3.11 (python/pyproject.toml's extras give the same lower bounds).
FRAMEWORK_PINS=(
  "numpy==1.26.4" "h5py==3.12.1" "boto3==1.35.99"
  "tensorflow-cpu==2.17.1"
  "jax[cpu]==0.4.38"
  "datasets==3.6.0" "pyarrow==18.1.0"
  "pytest==8.3.4" "hypothesis==6.155.2"
)
# mosaicml-streaming's own requirements pull torchvision, transformers and every cloud SDK (and a torch
# that would replace Debian's): it is installed without them, with what its local and S3 reading imports.
BENCH_PINS=("mosaicml-streaming==0.7.6" "webdataset==1.0.2" "braceexpand==0.1.7" "xxhash==3.5.0" "zstd==1.5.6.1"
            "python-snappy==0.7.3" "cramjam==2.9.1" "Brotli==1.1.0" "tqdm==4.67.1" "filelock==3.16.1")

die() { echo "setup-frameworks: ERROR: $*" >&2; exit 1; }

run_step() {
  local step=$1; shift
  local log="$LOGS/frameworks-$step.log"
  if ! "$@" >"$log" 2>&1; then
    echo "setup-frameworks: ERROR: step '$step' failed: $*" >&2
    tail -n 40 "$log" >&2 || true
    exit 1
  fi
}

pip_env=(env PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1)

frameworks() {
  local venv=${SHARDFLOW_FRAMEWORKS_VENV:-$HOME/.cache/shardflow/venv-frameworks}
  local stamp="v1 ${FRAMEWORK_PINS[*]} $ROOT/python"
  if [[ -f $venv/.shardflow-stamp && "$(cat "$venv/.shardflow-stamp")" == "$stamp" ]] \
      && TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" -c 'import tensorflow, jax, datasets, h5py, shardflow' >/dev/null 2>&1; then
    echo "$venv/bin/python"; return 0
  fi
  [[ -x $SYS_PYTHON ]] || die "$SYS_PYTHON missing (run scripts/setup-python.sh first)"
  rm -rf "$venv"
  run_step venv "$SYS_PYTHON" -m venv "$venv"
  run_step pip "${pip_env[@]}" "$venv/bin/python" -m pip install -q "${FRAMEWORK_PINS[@]}"
  run_step project "${pip_env[@]}" "$venv/bin/python" -m pip install -q --no-deps -e "$ROOT/python"
  TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" -c 'import numpy, tensorflow, jax, datasets; assert numpy.__version__.startswith("1."), numpy.__version__' \
    || die "numpy 2 was installed into $venv"
  printf '%s' "$stamp" >"$venv/.shardflow-stamp"
  echo "$venv/bin/python"
}

bench() {
  local venv=${SHARDFLOW_BENCH_VENV:-$HOME/.cache/shardflow/venv-bench}
  local stamp="v1 ${BENCH_PINS[*]} $ROOT/python"
  if [[ -f $venv/.shardflow-stamp && "$(cat "$venv/.shardflow-stamp")" == "$stamp" ]] \
      && "$venv/bin/python" -c 'import streaming, webdataset, torch, h5py' >/dev/null 2>&1; then
    echo "$venv/bin/python"; return 0
  fi
  rm -rf "$venv"
  run_step bench-venv "$SYS_PYTHON" -m venv --system-site-packages "$venv"
  # Debian's numpy, torch and h5py stay: the constraint makes pip fail rather than replace them.
  local constraints="$venv/constraints.txt"
  "$venv/bin/python" - >"$constraints" <<'PY'
import numpy, torch
print(f"numpy=={numpy.__version__}")
print(f"torch=={torch.__version__}")
PY
  run_step bench-pip "${pip_env[@]}" "$venv/bin/python" -m pip install -q --no-deps -c "$constraints" "${BENCH_PINS[@]}"
  run_step bench-project "${pip_env[@]}" "$venv/bin/python" -m pip install -q --no-deps -e "$ROOT/python"
  printf '%s' "$stamp" >"$venv/.shardflow-stamp"
  echo "$venv/bin/python"
}

case ${1:-} in
  "") frameworks ;;
  --bench) bench ;;
  *) die "unknown argument '$1' (none, or --bench)" ;;
esac
