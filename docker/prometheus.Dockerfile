# Prometheus for machines that cannot pull images (compose profile `monitoring`, PROMETHEUS_IMAGE):
# the prometheus and promtool binaries of Debian's `prometheus` package. Context: a folder holding
# both binaries (cp /usr/bin/prometheus /usr/bin/promtool CONTEXT/). Used like prom/prometheus: the
# command is the server's flags; the configuration is mounted at /etc/prometheus.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
COPY prometheus promtool /usr/local/bin/
# Owned by the runtime user, so a named volume mounted there starts out writable.
RUN mkdir -p /prometheus /etc/prometheus && chown 10001:10001 /prometheus
USER 10001:10001
EXPOSE 9090
ENTRYPOINT ["/usr/local/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
