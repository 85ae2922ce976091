# A single-node KRaft Kafka from the jars scripts/fetch-tools.sh resolves (no registry needed). It
# reads its settings from KAFKA_* environment variables the way the upstream apache/kafka image
# does, so docker-compose.yml configures either image the same way. Context: a folder with libs/,
# log4j2.xml and bin/ (scripts/build-images.sh stages it).
ARG BASE_IMAGE=eclipse-temurin:17-jre
FROM ${BASE_IMAGE}
COPY . /opt/kafka/
# Owned by the runtime user, so a named volume mounted there starts out writable.
RUN mkdir -p /var/lib/kafka/data && chown 10001:10001 /var/lib/kafka/data
USER 10001:10001
ENV HOME=/tmp KAFKA_LOG_DIRS=/var/lib/kafka/data
EXPOSE 9092
ENTRYPOINT ["/opt/kafka/bin/kafka-run.sh"]
