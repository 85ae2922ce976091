# Keycloak, the identity provider of docker-compose's "secure" profile, from the distribution that
# scripts/fetch-tools.sh downloads from Maven Central and builds once for the dev-file database (no
# registry needed). Context: that folder (~/.cache/shardflow/tools/keycloak-<version>).
#   docker build -f docker/keycloak.Dockerfile ~/.cache/shardflow/tools/keycloak-26.7.3
# Configure it with KC_* variables (docker-compose.yml); `start --optimized` reuses the build.
ARG BASE_IMAGE=eclipse-temurin:17-jre
FROM ${BASE_IMAGE}
COPY . /opt/keycloak/
# data/ (the dev-file database, transaction logs, data/import for a mounted realm) is the runtime user's
RUN mkdir -p /opt/keycloak/data/import && chown -R 10001:10001 /opt/keycloak/data
USER 10001:10001
ENV HOME=/tmp JAVA_OPTS_KC_HEAP="-XX:MaxRAMPercentage=70"
EXPOSE 8443
ENTRYPOINT ["/opt/keycloak/bin/kc.sh"]
CMD ["start", "--optimized", "--import-realm"]
