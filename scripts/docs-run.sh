#!/usr/bin/env bash
# Runs the code blocks the documentation marks runnable (<!-- runnable ... --> above a fenced block;
# scripts/lib/runnable_docs.py says how), those that need servers against one local pipeline
# (scripts/lib/local-pipeline.sh). Needs bin/shardflow built. Usage: scripts/docs-run.sh [FILE.md ...]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib/docs-venv.sh
source "$ROOT/scripts/lib/docs-venv.sh"
PY=$(docs_venv)
exec "$PY" scripts/lib/runnable_docs.py "$@"
