#!/usr/bin/env bash
# The virtualenv of the documentation and monitoring-kit tools, at ${SHARDFLOW_DOCS_VENV:-~/.cache/shardflow/docs-venv},
# with the pinned packages of scripts/lib/docs-requirements.txt (PyPI). Made again when that file
# changes. Source it and call docs_venv: it prints the venv's python. Run directly, it does the same.
docs_venv() {
  local root venv requirements marker
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  venv=${SHARDFLOW_DOCS_VENV:-$HOME/.cache/shardflow/docs-venv}
  requirements=$root/scripts/lib/docs-requirements.txt
  marker=$venv/.requirements.sha256
  if [[ ! -x $venv/bin/python || ! -f $marker || $(sha256sum <"$requirements") != "$(cat "$marker")" ]]; then
    echo "docs-venv: installing $(grep -c '^[a-zA-Z]' "$requirements") pinned packages into $venv (PyPI)" >&2
    if ! /usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null && [[ $(id -u) -eq 0 ]]; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 python3-venv >&2
    fi
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv" >&2 || return 1
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements" >&2 || return 1
    sha256sum <"$requirements" >"$marker"
  fi
  echo "$venv/bin/python"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -euo pipefail
  docs_venv
fi
