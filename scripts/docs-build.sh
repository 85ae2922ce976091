#!/usr/bin/env bash
# Builds the documentation site with MkDocs Material (pinned; scripts/lib/docs-venv.sh installs it)
# in strict mode: a broken link or anchor, or a page missing from the navigation, fails the build.
# Also runs the runnable-docs runner's own tests and checks every marker is well-formed and every code
# block of the guides carries one
# (scripts/docs-run.sh runs the marked blocks themselves).
# Usage: scripts/docs-build.sh [--site-dir DIR]   (default: target/site, ignored by git)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SITE=$ROOT/target/site
[[ ${1:-} == --site-dir ]] && SITE=${2:?--site-dir needs a folder}
# shellcheck source=scripts/lib/docs-venv.sh
source "$ROOT/scripts/lib/docs-venv.sh"
PY=$(docs_venv)
"$PY" -m pytest -q -p no:cacheprovider scripts/tests/test_runnable_docs.py
# every bash/python block of the guides is marked runnable or not runnable (with why): the counts, and
# any unmarked block, which fails the build
"$PY" scripts/lib/runnable_docs.py --coverage | grep -v '^  not runnable '
export NO_MKDOCS_2_WARNING=1
mkdocs_build() { # config site-dir: a strict build; warnings shown, INFO lines not
  "$PY" -m mkdocs build --strict -f "$1" --site-dir "$2" 2>&1 | { grep -v '^INFO' || true; }
  return "${PIPESTATUS[0]}"
}
mkdocs_build "$ROOT/mkdocs.yml" "$SITE"
echo "docs: site built strictly in $SITE ($(find "$SITE" -name '*.html' | wc -l) pages)"

# The strict build bites: a copy whose guide links a missing anchor, and one whose included page
# (dataset/FORMAT.md) links a missing page, must both fail.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for mistake in "docs/index.md|(getting-started.md)|(getting-started.md#no-such-section)" \
               "dataset/FORMAT.md|(../docs/READING-RULES.md)|(../docs/NO-SUCH-PAGE.md)"; do
  IFS='|' read -r file text replacement <<<"$mistake"
  copy=$work/copy; rm -rf "$copy"; mkdir -p "$copy/scripts/lib" "$copy/dataset" "$copy/bench"
  cp -r mkdocs.yml docs "$copy/"; cp scripts/lib/mkdocs_hooks.py "$copy/scripts/lib/"
  cp dataset/FORMAT.md "$copy/dataset/"; cp -r bench/results "$copy/bench/"
  grep -qF -- "$text" "$copy/$file" || { echo "docs: the deliberate mistake no longer applies to $file" >&2; exit 1; }
  "$PY" -c 'import sys; p, a, b = sys.argv[1:]; s = open(p).read(); open(p, "w").write(s.replace(a, b, 1))' "$copy/$file" "$text" "$replacement"
  if mkdocs_build "$copy/mkdocs.yml" "$work/site" >"$work/report" 2>&1; then
    echo "NOT REJECTED: $file with $replacement"; cat "$work/report"; exit 1
  fi
  echo "rejected as expected: $file with $replacement -> $(grep -m1 WARNING "$work/report" | cut -c1-140)"
done
