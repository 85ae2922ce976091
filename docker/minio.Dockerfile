# The MinIO server binary scripts/fetch-tools.sh builds (no registry needed); used like minio/minio:
# the command is `server /data ...`. Context: a folder holding the `minio` binary.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
COPY minio /usr/local/bin/minio
# Owned by the runtime user, so a named volume mounted there starts out writable.
RUN mkdir -p /data && chown 10001:10001 /data
USER 10001:10001
ENV HOME=/tmp MINIO_UPDATE=off
EXPOSE 9000
ENTRYPOINT ["/usr/local/bin/minio"]
