#!/usr/bin/env bash
# Makes sure a Docker engine answers, for the image build, the compose test and Testcontainers.
# Idempotent: does nothing when `docker info` already answers. Otherwise installs Debian's engine and
# docker-compose (apt) if missing and starts dockerd with settings that work without iptables or a
# default bridge (compose creates its own network), storing layers with vfs (no overlay mounts).
# Prints how to stop the daemon it started. Exit 3: no engine can be started here.
set -euo pipefail
STATE=${SHARDFLOW_DOCKER_STATE:-$HOME/.cache/shardflow/docker}
mkdir -p "$STATE"

engine_answers() { timeout 10 docker info >/dev/null 2>&1; }

if command -v docker >/dev/null && engine_answers; then
  echo "docker engine: already running"
  exit 0
fi

if ! command -v dockerd >/dev/null || ! command -v docker-compose >/dev/null; then
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "docker engine: not installed and cannot install it here (needs root and apt-get)" >&2
    exit 3
  fi
  echo "docker engine: installing docker.io and docker-compose (apt)"
  # A fresh machine may have empty package lists.
  apt-get update -q -o DPkg::Lock::Timeout=300 >"$STATE/apt.log" 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 docker.io docker-compose >>"$STATE/apt.log" 2>&1 \
    || { tail -n 20 "$STATE/apt.log" >&2; echo "docker engine: apt-get install failed" >&2; exit 3; }
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "docker engine: not running, and starting dockerd needs root" >&2
  exit 3
fi

echo "docker engine: starting dockerd (log $STATE/dockerd.log)"
nohup dockerd --storage-driver=vfs --iptables=false --ip6tables=false --bridge=none \
  >"$STATE/dockerd.log" 2>&1 &
echo $! >"$STATE/dockerd.pid"
for _ in $(seq 1 60); do
  if engine_answers; then
    echo "docker engine: ready; stop it with: kill $(cat "$STATE/dockerd.pid")"
    exit 0
  fi
  if ! kill -0 "$(cat "$STATE/dockerd.pid")" 2>/dev/null; then
    tail -n 20 "$STATE/dockerd.log" >&2
    echo "docker engine: dockerd exited" >&2
    exit 3
  fi
  sleep 1
done
echo "docker engine: dockerd did not answer within 60 s (see $STATE/dockerd.log)" >&2
exit 3
