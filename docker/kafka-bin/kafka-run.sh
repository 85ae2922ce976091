#!/usr/bin/env bash
# Entry point of the locally built Kafka image: KAFKA_FOO_BAR=x becomes foo.bar=x in
# server.properties (___ stands for '-', __ for '_'), as in the upstream apache/kafka image; the
# storage is formatted once with CLUSTER_ID, then the broker runs as PID 1 (exec) so it gets SIGTERM.
set -euo pipefail
conf=/tmp/server.properties
: >"$conf"
while IFS='=' read -r name value; do
  case "$name" in
    KAFKA_HEAP_OPTS|KAFKA_OPTS|KAFKA_JVM_PERFORMANCE_OPTS|KAFKA_LOG4J_OPTS) continue ;;
    KAFKA_*)
      key=${name#KAFKA_}; key=${key,,}; key=${key//___/-}; key=${key//__/@}; key=${key//_/.}; key=${key//@/_}
      printf '%s=%s\n' "$key" "$value" >>"$conf" ;;
  esac
done < <(env)
export CLASSPATH="/opt/kafka/libs/*"
logging=-Dlog4j2.configurationFile=/opt/kafka/log4j2.xml
if [[ ! -f "${KAFKA_LOG_DIRS%%,*}/meta.properties" ]]; then
  java -Xmx256m $logging kafka.tools.StorageTool format --ignore-formatted -t "${CLUSTER_ID:?set CLUSTER_ID}" -c "$conf"
fi
exec java ${KAFKA_HEAP_OPTS:--Xmx1g} ${KAFKA_OPTS:-} $logging kafka.Kafka "$conf"
