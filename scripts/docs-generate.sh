#!/usr/bin/env bash
# Writes the generated reference pages again from the code they document (docs/reference/cli.md from
# picocli's model, configuration.md from the services' ConfigDefs, metrics.md from their meters):
# the test io.shardflow.cli.docs.ReferencePagesTest with -Dshardflow.docs.write=true. Without that
# property the same test fails whenever a committed page differs from what the code makes now.
# Usage: scripts/docs-generate.sh [extra mvn arguments, e.g. -o]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
mvn -B -q -ntp "$@" -pl cli -am test -Dtest=ReferencePagesTest -Dsurefire.failIfNoSpecifiedTests=false -Dshardflow.docs.write=true
git status --short -- docs/reference
