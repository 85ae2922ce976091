#!/usr/bin/env bash
# Builds the container images from what is on this machine, with no registry access:
#   shardflow/ingest-app, shardflow/shard-sink, shardflow/edge-gateway, shardflow/cli   (from mvn package's target/dist)
#   shardflow/kafka, shardflow/apicurio-registry, shardflow/minio (from scripts/fetch-tools.sh's tools)
# on a Debian bookworm base with openjdk-17-jre-headless made by debootstrap and cached under
# ~/.cache/shardflow/images. Users with registry access build the shardflow images on the upstream
# eclipse-temurin:17-jre instead: BASE_IMAGE=eclipse-temurin:17-jre scripts/build-images.sh --services
# Usage: build-images.sh [--services|--all] (default --all); tag: SHARDFLOW_IMAGE_TAG (default dev).
# Needs an engine (scripts/docker-engine.sh) and `mvn package` run before.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TAG=${SHARDFLOW_IMAGE_TAG:-dev}
CACHE=${SHARDFLOW_IMAGE_CACHE:-$HOME/.cache/shardflow/images}
LOCAL_BASE=shardflow/base-jre17:bookworm
what=${1:---all}
export DOCKER_BUILDKIT=0   # the legacy builder builds FROM local images without asking a registry

TOOLS=${SHARDFLOW_TOOLS:-$HOME/.cache/shardflow/tools}   # where scripts/fetch-tools.sh put the servers
props() { grep -E "^$1=" "$TOOLS/tools.properties" | head -n 1 | cut -d= -f2-; }

build() { # name dockerfile context [build args...]
  local name=$1 file=$2 context=$3; shift 3
  local started=$SECONDS
  docker build -q --network none --build-arg BASE_IMAGE="$BASE" "$@" -t "shardflow/$name:$TAG" -f "$file" "$context" >/dev/null
  echo "built shardflow/$name:$TAG in $((SECONDS - started)) s ($(docker image inspect -f '{{.Size}}' "shardflow/$name:$TAG" | awk '{printf "%d MB", $1/1e6}'))"
}

local_base() {
  if docker image inspect "$LOCAL_BASE" >/dev/null 2>&1; then return; fi
  mkdir -p "$CACHE"
  local tarball=$CACHE/base-bookworm-jre17.tar
  if [[ ! -f $tarball ]]; then
    if ! command -v debootstrap >/dev/null; then
      apt-get update -q -o DPkg::Lock::Timeout=300 >/dev/null 2>&1 || true
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 debootstrap >/dev/null
    fi
    local mirror rootfs
    mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    rootfs=$(mktemp -d)
    echo "debootstrap bookworm + openjdk-17-jre-headless (about a minute, cached in $CACHE)"
    debootstrap --variant=minbase --include=openjdk-17-jre-headless bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" \
      >"$CACHE/debootstrap.log" 2>&1 || { tail -n 20 "$CACHE/debootstrap.log" >&2; exit 1; }
    # Every image copies this in full under the vfs driver: leave out what a JRE never reads.
    chmod 0755 "$rootfs"   # mktemp -d made it 0700: the image's / would be closed to its non-root user
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc \
      "$rootfs"/usr/share/man "$rootfs"/usr/share/locale "$rootfs"/usr/share/info
    tar -C "$rootfs" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
    rm -rf "$rootfs"
  fi
  docker import "$tarball" "$LOCAL_BASE" >/dev/null
  echo "imported $LOCAL_BASE"
}

if [[ -z ${BASE_IMAGE:-} ]]; then
  local_base
  BASE=$LOCAL_BASE
else
  BASE=$BASE_IMAGE
fi

for module in ingest-app shard-sink edge-gateway cli; do
  [[ -f $ROOT/$module/target/dist/shardflow-$module.jar ]] || { echo "$module/target/dist is missing: run mvn package first" >&2; exit 1; }
  build "$module" "$ROOT/docker/service.Dockerfile" "$ROOT/$module/target/dist" --build-arg JAR="shardflow-$module.jar"
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
  cp "$(props minio.binary)" "$stage/minio/minio"
  build minio "$ROOT/docker/minio.Dockerfile" "$stage/minio"
fi
