# Smoke tests of the images just built: each runs as its own user with no network, and its
# entrypoint must start (the services and the CLI print their version through the entrypoint; the
# Kafka broker, the registry and MinIO start for real until they say they are up). A failure names
# the image and what its user cannot read or run. Sourced by scripts/build-images.sh.

SMOKE_KAFKA_ENV=(-e CLUSTER_ID=MkU3OEVBNTcwNTJENDM2Qk -e KAFKA_NODE_ID=1 -e KAFKA_PROCESS_ROLES=broker,controller
  -e KAFKA_LISTENERS=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093
  -e KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://127.0.0.1:9092 -e KAFKA_CONTROLLER_LISTENER_NAMES=CONTROLLER
  -e KAFKA_LISTENER_SECURITY_PROTOCOL_MAP=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
  -e KAFKA_CONTROLLER_QUORUM_VOTERS=1@127.0.0.1:9093 -e KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR=1
  -e KAFKA_HEAP_OPTS=-Xmx256m)

# What the image's user cannot reach among / and the paths given, checked as that user with the
# image's own shell; root lists the modes when even that shell cannot start.
smoke_diagnose() { # image paths...
  local image=$1; shift
  local user
  user=$(docker image inspect -f '{{.Config.User}}' "$image")
  echo "  user ${user:-root}; what it cannot reach:" >&2
  docker run --rm --network none --entrypoint /bin/sh "$image" -c \
    'for p in / "$@"; do [ -r "$p" ] || echo "    cannot read $p"; [ -d "$p" ] && [ ! -x "$p" ] && echo "    cannot enter $p"; done; true' \
    sh "$@" >&2 2>&1 || echo "    (its shell cannot even start as ${user:-root})" >&2
  echo "  modes, as root:" >&2
  docker run --rm --network none --user 0 --entrypoint /bin/sh "$image" -c 'stat -c "    %A %U:%G %n" / "$@" 2>&1' sh "$@" >&2 || true
}

# A command whose output must name what it is: the version line through the real entrypoint.
smoke_version() { # image expected-text [args...]
  local image=$1 expected=$2 out; shift 2
  if out=$(timeout 120 docker run --rm --network none "$image" "$@" 2>&1) && grep -q -- "$expected" <<<"$out"; then
    echo "smoke ok: $image: $(grep -m1 -- "$expected" <<<"$out")"
    return 0
  fi
  echo "smoke FAILED: $image: its entrypoint did not print '$expected':" >&2
  sed 's/^/    /' <<<"$out" | tail -n 15 >&2
  return 1
}

# A server that must come up: started detached, then its log must say so within the limit (or, for
# a readiness text starting with "http:", a GET of that path inside the container must answer 200).
smoke_server() { # image started-text limit-seconds [docker run args...] -- [command args...]
  local image=$1 expected=$2 limit=$3; shift 3
  local opts=() name="shardflow-smoke-$RANDOM$RANDOM" deadline
  while (($#)) && [[ $1 != -- ]]; do opts+=("$1"); shift; done
  [[ ${1:-} == -- ]] && shift
  docker run -d --network none --name "$name" "${opts[@]}" "$image" "$@" >/dev/null || return 1
  deadline=$((SECONDS + limit))
  while ((SECONDS < deadline)); do
    if smoke_ready "$name" "$expected"; then
      echo "smoke ok: $image: started ($expected)"
      docker rm -f "$name" >/dev/null
      return 0
    fi
    [[ $(docker inspect -f '{{.State.Running}}' "$name") == true ]] || break
    sleep 1
  done
  echo "smoke FAILED: $image: '$expected' not in its log within $limit s (exit code $(docker inspect -f '{{.State.ExitCode}}' "$name")):" >&2
  docker logs "$name" 2>&1 | tail -n 15 | sed 's/^/    /' >&2
  docker rm -f "$name" >/dev/null
  return 1
}

smoke_ready() { # container started-text
  local name=$1 expected=$2
  if [[ $expected == http:* ]]; then
    local rest=${expected#http:}
    docker exec "$name" bash -c "exec 3<>/dev/tcp/127.0.0.1/${rest%%/*} 2>/dev/null && printf 'GET /${rest#*/} HTTP/1.0\\r\\n\\r\\n' >&3 && head -n 1 <&3" 2>/dev/null | grep -q ' 200 '
  else
    docker logs "$name" 2>&1 | grep -q -- "$expected"
  fi
}

smoke_all() { # tag --all|--services
  local tag=$1 what=$2 pids=() names=() failed=0 i
  _smoke() { # name paths-to-diagnose... -- check...
    local image=shardflow/$1:$tag paths=(); shift
    while [[ $1 != -- ]]; do paths+=("$1"); shift; done; shift
    "$@" || { smoke_diagnose "$image" "${paths[@]}"; return 1; }
  }
  _smoke ingest-app /app /app/shardflow-ingest-app.jar /app/lib -- smoke_version "shardflow/ingest-app:$tag" shardflow-ingest-app --version & pids+=($!); names+=(ingest-app)
  _smoke shard-sink /app /app/shardflow-shard-sink.jar /app/lib -- smoke_version "shardflow/shard-sink:$tag" shardflow-shard-sink --version & pids+=($!); names+=(shard-sink)
  _smoke edge-gateway /app /app/shardflow-edge-gateway.jar /app/lib -- smoke_version "shardflow/edge-gateway:$tag" shardflow-edge-gateway --version & pids+=($!); names+=(edge-gateway)
  _smoke cli /app /app/shardflow-cli.jar /app/lib -- smoke_version "shardflow/cli:$tag" "shardflow " --version & pids+=($!); names+=(cli)
  if [[ $what == --all ]]; then
    _smoke kafka /opt/kafka /opt/kafka/bin/kafka-run.sh /opt/kafka/libs /var/lib/kafka/data -- \
      smoke_server "shardflow/kafka:$tag" "Kafka Server started" 180 "${SMOKE_KAFKA_ENV[@]}" & pids+=($!); names+=(kafka)
    _smoke apicurio-registry /opt/apicurio /opt/apicurio/lib -- \
      smoke_server "shardflow/apicurio-registry:$tag" "http:8080/apis/registry/v3/system/info" 180 & pids+=($!); names+=(apicurio-registry)
    # its version through kc.sh as the image's user (the server itself needs the secure profile's key store)
    _smoke keycloak /opt/keycloak /opt/keycloak/bin/kc.sh /opt/keycloak/lib /opt/keycloak/data -- \
      smoke_version "shardflow/keycloak:$tag" "Keycloak " --version & pids+=($!); names+=(keycloak)
    _smoke minio /usr/local/bin/minio /data -- \
      smoke_server "shardflow/minio:$tag" "API:" 60 -e MINIO_ROOT_USER=smoke -e MINIO_ROOT_PASSWORD=smoke-secret -- \
      server /data --address 127.0.0.1:9000 & pids+=($!); names+=(minio)
  fi
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { echo "image shardflow/${names[$i]}:$tag failed its smoke test" >&2; failed=1; }
  done
  return $failed
}
