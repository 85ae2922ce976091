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

for image in ingest-app shard-sink edge-gateway cli kafka apicurio-registry minio; do
  mode=$(docker run --rm --network none --user 0 --entrypoint /bin/sh "shardflow/$image:$TAG" -c 'stat -c "%a %u" /')
  [[ $mode == "755 0" ]] || fail "shardflow/$image:$TAG has / with mode and owner '$mode', not '755 0'"
done
echo "every image's / is root's, mode 0755"

# The failure this guards against: a base image imported from a rootfs whose / is 0700, so the
# image's non-root user can open nothing. Rebuilt in small: the MinIO binary in a rootfs whose
# / is 0700, imported as an image that runs as a non-root user; with / at 0755 it must pass.
imported() { # name mode
  local image=shardflow/smoke-selftest-$1:$TAG minio
  minio=$(grep -E '^minio.binary=' "${SHARDFLOW_TOOLS:-$HOME/.cache/shardflow/tools}/tools.properties" | cut -d= -f2-)
  rm -rf "$work/rootfs" && mkdir -p "$work/rootfs" && cp "$minio" "$work/rootfs/minio"
  local lib   # the C library and loader it links to, at the same paths
  for lib in $(ldd "$minio" | grep -o '/[^ ]*'); do mkdir -p "$work/rootfs$(dirname "$lib")" && cp -L "$lib" "$work/rootfs$lib"; done
  chmod "$2" "$work/rootfs"
  tar --numeric-owner --owner=0 --group=0 -C "$work/rootfs" -c . \
    | docker import --change 'USER 10001:10001' --change 'ENTRYPOINT ["/minio"]' - "$image" >/dev/null
  broken+=("$image")
  echo "$image"
}
smoke_version "$(imported root-open 0755)" "minio version" --version >/dev/null \
  || fail "a rootfs with / at 0755 failed the smoke test: the check itself is broken"
if smoke_version "$(imported root-closed 0700)" "minio version" --version 2>"$work/out"; then
  fail "an image whose / is 0700 passed the smoke test"
fi
grep -q "permission denied" "$work/out" || { cat "$work/out" >&2; fail "the smoke test failed an image with / at 0700 without saying 'permission denied'"; }
echo "caught: / at 0700 ($(grep -m1 -o 'permission denied.\{0,60\}' "$work/out"))"

# An entrypoint jar its user cannot read: the smoke test fails and the diagnosis names the file.
image=shardflow/smoke-selftest-jar-unreadable:$TAG
printf 'FROM shardflow/cli:%s\nUSER 0\nRUN chmod 0600 /app/shardflow-cli.jar\nUSER 10001:10001\n' "$TAG" >"$work/Dockerfile"
docker build -q --network none -t "$image" "$work" >/dev/null 2>&1
broken+=("$image")
if smoke_version "$image" "shardflow " --version 2>"$work/out"; then
  fail "$image passed the smoke test although its jar is unreadable"
fi
smoke_diagnose "$image" /app /app/shardflow-cli.jar 2>>"$work/out"
grep -q "cannot read /app/shardflow-cli.jar" "$work/out" || { cat "$work/out" >&2; fail "the diagnosis does not name the unreadable jar"; }
echo "caught: unreadable entrypoint jar (cannot read /app/shardflow-cli.jar)"
echo "image-smoke-selftest: OK"
