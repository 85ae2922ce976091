# A shardflow process (ingest-app, shard-sink, edge-gateway or the CLI) from its distribution folder
# (<module>/target/dist, built by `mvn package`), which is the build context.
#   docker build -f docker/service.Dockerfile --build-arg JAR=shardflow-shard-sink.jar shard-sink/target/dist
# BASE_IMAGE: any image with a Java 17+ runtime and bash on PATH; the upstream Temurin JRE by default,
# a locally built Debian one where no registry can be reached (scripts/build-images.sh).
ARG BASE_IMAGE=eclipse-temurin:17-jre
FROM ${BASE_IMAGE}
ARG JAR
# Libraries first: they change less often than the application jar, so their layer is reused.
COPY lib/ /app/lib/
COPY . /app/
# A fixed numeric non-root user needs no /etc/passwd entry, and a Kubernetes runAsNonRoot check can verify it.
# Owned by the runtime user, so a named volume mounted there starts out writable.
RUN mkdir -p /var/lib/shardflow && chown 10001:10001 /var/lib/shardflow
USER 10001:10001
ENV HOME=/tmp \
    JAR=/app/${JAR} \
    SHARDFLOW_METRICS_HOST=0.0.0.0 \
    SHARDFLOW_METRICS_PORT=9404 \
    JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError"
WORKDIR /tmp
# 9404: /metrics, /health, /ready; edge-gateway also serves its API on SHARDFLOW_LISTEN_PORT (8080 in compose and k8s)
EXPOSE 9404
# Liveness only: /ready (partitions assigned) is for orchestrators that route or roll on readiness.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${SHARDFLOW_METRICS_PORT} && printf 'GET /health HTTP/1.0\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
# Exec form, and bash replaces itself with the JVM: java is PID 1 and receives SIGTERM itself.
ENTRYPOINT ["bash", "-c", "exec java ${JAVA_OPTS:-} -jar \"$JAR\" \"$@\"", "shardflow"]
