#!/usr/bin/env bash
# Proves the image smoke test bites: images whose / or entrypoint jar is unreadable to the image's
# user must fail it, with the diagnosis naming the path; and every image built here has / owned by
# root with mode 0755. Runs after scripts/build-images.sh (the images stage of scripts/test.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TAG=${SHARDFLOW_IMAGE_TAG:-dev}
export DOCKER_BUILDKIT=0
# shellcheck source=scripts/lib/image-smoke.sh
source "$ROOT/scripts/lib/image-smoke.sh"
work=$(mktemp -d)
broken=()
cleanup() { rm -rf "$work"; ((${#broken[@]})) && docker image rm -f "${broken[@]}" >/dev/null 2>&1; true; }
trap cleanup EXIT
fail() { echo "image-smoke-selftest: FAILED: $*" >&2; exit 1; }

for image in ingest-app shard-sink cli kafka apicurio-registry minio; do
  mode=$(docker run --rm --network none --user 0 --entrypoint /bin/sh "shardflow/$image:$TAG" -c 'stat -c "%a %u" /')
  [[ $mode == "755 0" ]] || fail "shardflow/$image:$TAG has / with mode and owner '$mode', not '755 0'"
done
echo "every image's / is root's, mode 0755"

expect_caught() { # name dockerfile-line expected-diagnosis
  local image=shardflow/smoke-selftest-$1:$TAG
  printf 'FROM shardflow/cli:%s\nUSER 0\nRUN %s\nUSER 10001:10001\n' "$TAG" "$2" >"$work/Dockerfile"
  docker build -q --network none -t "$image" "$work" >/dev/null
  broken+=("$image")
  if smoke_version "$image" "shardflow " --version 2>"$work/out"; then
    fail "$image passed the smoke test although $2"
  fi
  smoke_diagnose "$image" /app /app/shardflow-cli.jar 2>>"$work/out"
  grep -q -- "$3" "$work/out" || { cat "$work/out" >&2; fail "$image: the diagnosis does not say '$3'"; }
  echo "caught: $1 ($(grep -m1 -- "$3" "$work/out" | sed 's/^ *//'))"
}
expect_caught root-closed "chmod 0700 /" "drwx------ root:root /"
expect_caught jar-unreadable "chmod 0600 /app/shardflow-cli.jar" "cannot read /app/shardflow-cli.jar"
echo "image-smoke-selftest: OK"
