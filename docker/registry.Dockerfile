# Apicurio Registry from the Quarkus runner that scripts/fetch-tools.sh downloads (no registry needed).
# Context: the runner's folder (the runner jar, lib/, meta/).
ARG BASE_IMAGE=eclipse-temurin:17-jre
FROM ${BASE_IMAGE}
COPY . /opt/apicurio/
USER 10001:10001
ENV HOME=/tmp JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75"
EXPOSE 8080
ENTRYPOINT ["bash", "-c", "exec java -Dquarkus.http.host=0.0.0.0 -Dquarkus.http.port=8080 -jar /opt/apicurio/apicurio-registry-app-*-runner.jar"]
