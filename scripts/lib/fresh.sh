# `scripts/test.sh --fresh`: every cache the project's scripts keep starts empty, in one temporary
# folder, so a proof run cannot lean on anything an earlier run (or an older script) left behind.
# Sourced, not run. Debian packages stay as installed: they are the machine, not a cache.

fresh_caches() {
  FRESH_DIR=$(mktemp -d "${TMPDIR:-/tmp}/shardflow-fresh.XXXXXX")
  chmod 0755 "$FRESH_DIR"
  FRESH_ID=$(basename "$FRESH_DIR" | tr -cd 'a-zA-Z0-9' | tr 'A-Z' 'a-z')
  export SHARDFLOW_TOOLS=$FRESH_DIR/tools SHARDFLOW_IMAGE_CACHE=$FRESH_DIR/images \
    SHARDFLOW_VENV=$FRESH_DIR/venv SHARDFLOW_LOGS=$FRESH_DIR/logs SHARDFLOW_K8S_TOOLS=$FRESH_DIR/k8s-tools \
    SHARDFLOW_CACHE_DIR=$FRESH_DIR/shards SHARDFLOW_FRAMEWORKS_VENV=$FRESH_DIR/venv-frameworks \
    SHARDFLOW_BENCH_VENV=$FRESH_DIR/venv-bench SHARDFLOW_DOCS_VENV=$FRESH_DIR/docs-venv
  # pip downloads every wheel again rather than taking one an earlier run cached.
  export PIP_CACHE_DIR=$FRESH_DIR/pip
  # Maven: the scripts pass MAVEN_REPO_LOCAL on; MAVEN_OPTS reaches every other mvn, the tests' included.
  export MAVEN_REPO_LOCAL=$FRESH_DIR/m2
  export MAVEN_OPTS="${MAVEN_OPTS:-} -Dmaven.repo.local=$FRESH_DIR/m2"
  export GOPATH=$FRESH_DIR/go GOMODCACHE=$FRESH_DIR/go/pkg/mod GOCACHE=$FRESH_DIR/go/build-cache
  # Images under a tag of their own, on a base image imported anew: no layer of an earlier build is reused.
  export SHARDFLOW_IMAGE_TAG=$FRESH_ID SHARDFLOW_BASE_TAG=$FRESH_ID
  echo "== fresh: every cache starts empty in $FRESH_DIR; images tagged $SHARDFLOW_IMAGE_TAG =="
}

fresh_cleanup() {
  [[ -n ${FRESH_DIR:-} && -d $FRESH_DIR ]] || return 0
  if command -v docker >/dev/null 2>&1 && timeout 10 docker info >/dev/null 2>&1; then
    docker images --format '{{.Repository}}:{{.Tag}}' | grep -E "^shardflow/.*:$FRESH_ID\$" \
      | xargs -r docker image rm -f >/dev/null 2>&1 || true
  fi
  if [[ ${SHARDFLOW_KEEP_FRESH:-0} == 1 ]]; then
    echo "fresh caches kept in $FRESH_DIR (SHARDFLOW_KEEP_FRESH=1)"
  else
    chmod -R u+w "$FRESH_DIR" 2>/dev/null   # Go's module cache is read-only
    rm -rf "$FRESH_DIR"
  fi
}
