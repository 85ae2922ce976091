#!/usr/bin/env bash
# Builds the container images from what is on this machine, with no registry access:
#   shardflow/ingest-app, shardflow/shard-sink, shardflow/edge-gateway, shardflow/cli   (from mvn package's target/dist)
#   shardflow/kafka, shardflow/apicurio-registry, shardflow/keycloak, shardflow/minio (from scripts/fetch-tools.sh's tools)
# on a Debian bookworm base with openjdk-17-jre-headless made by debootstrap (scripts/lib/base-image.sh).
# Users with registry access build the shardflow images on the upstream eclipse-temurin:17-jre instead:
#   BASE_IMAGE=eclipse-temurin:17-jre scripts/build-images.sh --services
# Each image is labelled with a hash of what it was built from (io.shardflow.recipe), rebuilt only when
# that hash changes, and smoke-tested right after its build, as its own user with no network (scripts/lib/image-smoke.sh):
# a failure stops the build naming the image and what its user could not read or run.
# Usage: build-images.sh [--services|--all] [--from DIR]   (default --all; DIR holds <module>/ copies
#   of the service distributions, default <module>/target/dist); tag: SHARDFLOW_IMAGE_TAG (default dev).
# Needs an engine (scripts/docker-engine.sh) and `mvn package` run before.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TAG=${SHARDFLOW_IMAGE_TAG:-dev}
what=--all
FROM=""
while (($#)); do
  case $1 in
    --services|--all) what=$1 ;;
    --from) FROM=$2; shift ;;
    *) echo "build-images: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
export DOCKER_BUILDKIT=0   # the legacy builder builds FROM local images without asking a registry

TOOLS=${SHARDFLOW_TOOLS:-$HOME/.cache/shardflow/tools}   # where scripts/fetch-tools.sh put the servers
props() { grep -E "^$1=" "$TOOLS/tools.properties" | head -n 1 | cut -d= -f2-; }
# shellcheck source=scripts/lib/base-image.sh
source "$ROOT/scripts/lib/base-image.sh"
# shellcheck source=scripts/lib/image-smoke.sh
source "$ROOT/scripts/lib/image-smoke.sh"

# The hash of a build's inputs: the Dockerfile, the base image's id and every file of the context.
recipe_hash() { # dockerfile context
  { sha256sum "$1" | cut -d' ' -f1; docker image inspect -f '{{.Id}}' "$BASE" 2>/dev/null || echo "$BASE"
    (cd "$2" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum); } | sha256sum | cut -c1-16
}

build() { # name dockerfile context [build args...]
  local name=$1 file=$2 context=$3; shift 3
  local started=$SECONDS image="shardflow/$name:$TAG" recipe
  recipe=$({ recipe_hash "$file" "$context"; echo "$*"; } | sha256sum | cut -c1-16)
  # An image under this tag built from the same recipe is kept as it is (it is smoke-tested again below).
  if [[ $(docker image inspect -f '{{index .Config.Labels "io.shardflow.recipe"}}' "$image" 2>/dev/null) == "$recipe" ]]; then
    echo "kept $image (recipe $recipe unchanged)"
    return 0
  fi
  docker build -q --network none --build-arg BASE_IMAGE="$BASE" --label "io.shardflow.recipe=$recipe" "$@" \
    -t "$image" -f "$file" "$context" >/dev/null
  echo "built $image in $((SECONDS - started)) s ($(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%d MB", $1/1e6}'), recipe $recipe)"
}

if [[ -z ${BASE_IMAGE:-} ]]; then
  BASE=$(local_base_image)
else
  BASE=$BASE_IMAGE
fi

dist_of() { if [[ -n $FROM ]]; then echo "$FROM/$1"; else echo "$ROOT/$1/target/dist"; fi; }
for module in ingest-app shard-sink edge-gateway cli; do
  [[ -f $(dist_of "$module")/shardflow-$module.jar ]] || { echo "$(dist_of "$module") is missing: run mvn package first" >&2; exit 1; }
  build "$module" "$ROOT/docker/service.Dockerfile" "$(dist_of "$module")" --build-arg JAR="shardflow-$module.jar"
done

if [[ $what == --all ]]; then
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' EXIT
  mkdir -p "$stage/kafka/libs" "$stage/kafka/bin" "$stage/minio"
  { tr ':' '\n' <"$(props kafka.classpath.file)"; echo; } | while read -r jar; do [[ -z $jar ]] || cp "$jar" "$stage/kafka/libs/"; done
  cp "$(props kafka.log4j2.config)" "$stage/kafka/log4j2.xml"
  cp "$ROOT"/docker/kafka-bin/*.sh "$stage/kafka/bin/"
  build kafka "$ROOT/docker/kafka.Dockerfile" "$stage/kafka"
  build apicurio-registry "$ROOT/docker/registry.Dockerfile" "$(dirname "$(props apicurio.runner.jar)")"
  # Keycloak, built for dev-file by fetch-tools.sh (docker-compose's "secure" profile)
  keycloak_home=$(props keycloak.home)
  [[ -n $keycloak_home ]] || keycloak_home=$(ls -d "$TOOLS"/keycloak-*/ 2>/dev/null | sort -V | tail -n 1)
  [[ -f ${keycloak_home%/}/.shardflow-built ]] || { echo "no built Keycloak in $TOOLS: run scripts/fetch-tools.sh" >&2; exit 1; }
  build keycloak "$ROOT/docker/keycloak.Dockerfile" "${keycloak_home%/}"
  cp "$(props minio.binary)" "$stage/minio/minio"
  build minio "$ROOT/docker/minio.Dockerfile" "$stage/minio"
fi

# Images this build replaced under the same tag are left untagged: under vfs each holds whole copies.
docker image prune -f >/dev/null 2>&1 || true
smoke_all "$TAG" "$what"
