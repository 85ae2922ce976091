#!/usr/bin/env bash
# Installs the servers that local-stack runs as plain processes (no Docker here):
#   - Kafka broker classpath   (Maven, tools/kafka-broker/pom.xml)
#   - Apicurio Registry runner (Maven Central zip)
#   - Keycloak                 (Maven Central zip, built once for the dev-file database: the
#                               secure stack's OIDC server)
#   - S3Proxy                  (Maven Central jar-with-dependencies)
#   - MinIO server             (built from source with `go install`; skip with --no-minio)
# and writes $TOOLS/tools.properties, which io.shardflow.stack.ToolPaths reads.
#
# Idempotent and cached: a second run does nothing but check. Quiet when all is well (prints only
# the path of tools.properties); on failure it names the step, shows the end of that step's log
# and exits non-zero. Versions come from the root pom.xml, so they are bumped in one place.
#
# Usage: scripts/fetch-tools.sh [--no-minio]
# Env:   SHARDFLOW_TOOLS  install dir (default ~/.cache/shardflow/tools)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${SHARDFLOW_TOOLS:-$HOME/.cache/shardflow/tools}
M2_REPO=${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}
WITH_MINIO=1

die() { echo "fetch-tools: ERROR: $*" >&2; exit 1; }

usage() { sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

for arg in "$@"; do
  case "$arg" in
    --no-minio) WITH_MINIO=0 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$arg' (try --help)" ;;
  esac
done

# Reads <name>value</name> from the root pom's <properties>; one line per property there.
pom_prop() {
  local v
  v=$(sed -n "s:.*<$1>\([^<]*\)</$1>.*:\1:p" "$ROOT/pom.xml" | head -n1)
  [[ -n "$v" ]] || die "property <$1> not found in $ROOT/pom.xml"
  printf '%s' "$v"
}

KAFKA_VERSION=$(pom_prop kafka.version)
SLF4J_VERSION=$(pom_prop slf4j.version)
LOG4J_VERSION=$(pom_prop log4j.version)
APICURIO_VERSION=$(pom_prop apicurio.server.version)
KEYCLOAK_VERSION=$(pom_prop keycloak.version)
S3PROXY_VERSION=$(pom_prop s3proxy.version)
MINIO_VERSION=$(pom_prop minio.server.version)

mkdir -p "$TOOLS/logs"
LOGS="$TOOLS/logs"

# Runs one step with its output in $LOGS/<step>.log; on failure shows the log's end and exits.
run_step() {
  local step=$1; shift
  local log="$LOGS/$step.log"
  if ! "$@" >"$log" 2>&1; then
    echo "fetch-tools: ERROR: step '$step' failed: $*" >&2
    echo "---- last lines of $log ----" >&2
    tail -n 40 "$log" >&2 || true
    echo "----" >&2
    exit 1
  fi
}

# A fresh Debian machine may lack the JDK, Maven or unzip; all three are plain Debian packages.
ensure_java_and_maven() {
  local missing=()
  command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
  command -v mvn >/dev/null 2>&1 || missing+=(maven)
  command -v unzip >/dev/null 2>&1 || missing+=(unzip)
  if ((${#missing[@]} > 0)); then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
      run_step apt-update apt-get update -o DPkg::Lock::Timeout=300
      run_step apt-install env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        -o DPkg::Lock::Timeout=300 "${missing[@]}"
    else
      die "missing ${missing[*]}; install them (Debian: apt-get install ${missing[*]})"
    fi
  fi
  local jv
  jv=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  [[ "${jv%%.*}" =~ ^[0-9]+$ && "${jv%%.*}" -ge 17 ]] || die "Java 17+ is needed, found '${jv:-unknown}'"
}

# Kafka broker: a resolved runtime classpath (jars stay in the local Maven repo) plus the log4j2
# config. Re-resolved when the pom or a version changes, or when a jar vanished from ~/.m2.
fetch_kafka() {
  local cp_file="$TOOLS/kafka-$KAFKA_VERSION.classpath"
  local stamp_file="$cp_file.stamp"
  local stamp
  stamp="$(sha256sum "$ROOT/tools/kafka-broker/pom.xml" | cut -d' ' -f1) $KAFKA_VERSION $SLF4J_VERSION $LOG4J_VERSION $M2_REPO"
  if [[ -s "$cp_file" && -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]] && all_jars_exist "$cp_file"; then
    :
  else
    run_step kafka-classpath mvn -B -q -f "$ROOT/tools/kafka-broker/pom.xml" \
      -Dmaven.repo.local="$M2_REPO" \
      -Dkafka.version="$KAFKA_VERSION" -Dslf4j.version="$SLF4J_VERSION" -Dlog4j.version="$LOG4J_VERSION" \
      dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$cp_file.tmp"
    all_jars_exist "$cp_file.tmp" || die "resolved Kafka classpath $cp_file.tmp names missing jars"
    grep -q "kafka_2.13-$KAFKA_VERSION.jar" "$cp_file.tmp" || die "kafka_2.13-$KAFKA_VERSION.jar not in resolved classpath"
    mv -f "$cp_file.tmp" "$cp_file"
    printf '%s' "$stamp" >"$stamp_file"
  fi
  install -m 0644 "$ROOT/tools/kafka-broker/log4j2.xml" "$TOOLS/kafka-log4j2.xml"
}

all_jars_exist() {
  local jar
  while IFS= read -r jar; do
    [[ -z "$jar" || -f "$jar" ]] || return 1
  done < <(tr ':' '\n' <"$1")
}

# Maven outside any project: run inside the repo, dependency:get also tries to read Apicurio's
# parent pom (missing on Central) and fails, while a project-less run only warns.
mvn_standalone() { (cd "$TOOLS" && mvn "$@"); }

# Downloads one artifact into the local Maven repo (dependency:get; copy/unpack can't be used for
# Apicurio for the same missing parent pom) and prints its path. An empty classifier means none.
m2_get() {
  local g=$1 a=$2 v=$3 type=$4 classifier=${5:-}
  local file="$M2_REPO/${g//.//}/$a/$v/$a-$v${classifier:+-$classifier}.$type"
  if [[ ! -s "$file" ]]; then
    run_step "get-$a" mvn_standalone -B -q -Dmaven.repo.local="$M2_REPO" dependency:get \
      -Dartifact="$g:$a:$v:$type${classifier:+:$classifier}" -Dtransitive=false
    [[ -s "$file" ]] || die "mvn dependency:get succeeded but $file is missing"
  fi
  printf '%s' "$file"
}

fetch_apicurio() {
  local dir="$TOOLS/apicurio-$APICURIO_VERSION"
  local runner="$dir/apicurio-registry-app-$APICURIO_VERSION-runner.jar"
  [[ -s "$runner" && -d "$dir/lib" ]] && return 0
  local zip
  zip=$(m2_get io.apicurio apicurio-registry-app "$APICURIO_VERSION" zip all)
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  run_step unzip-apicurio unzip -q -o "$zip" -d "$dir.tmp"
  # The runner jar is a Quarkus legacy jar: it needs the lib/ folder beside it.
  local found
  found=$(find "$dir.tmp" -maxdepth 2 -name '*-runner.jar' | head -n1)
  [[ -n "$found" ]] || die "no *-runner.jar in $zip"
  [[ "$(dirname "$found")" == "$dir.tmp" ]] || die "unexpected zip layout: $found"
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
  [[ -s "$runner" ]] || die "expected $runner after unzip, found $(basename "$found")"
}

# Keycloak's Quarkus distribution, augmented once here (`kc.sh build`, 1-2 minutes) for the
# dev-file database, so every stack start is an optimized start of a prebuilt server. The build
# writes into the dist's lib/quarkus, so a half-built dir is never left under the final name.
fetch_keycloak() {
  local dir="$TOOLS/keycloak-$KEYCLOAK_VERSION"
  [[ -f "$dir/lib/quarkus/build-system.properties" && -f "$dir/.shardflow-built" ]] && return 0
  local zip
  zip=$(m2_get org.keycloak keycloak-quarkus-dist "$KEYCLOAK_VERSION" zip)
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  run_step unzip-keycloak unzip -q -o "$zip" -d "$dir.tmp"
  [[ -d "$dir.tmp/keycloak-$KEYCLOAK_VERSION/lib" ]] || die "unexpected zip layout in $zip"
  run_step build-keycloak "$dir.tmp/keycloak-$KEYCLOAK_VERSION/bin/kc.sh" build --db=dev-file
  rm -rf "$dir" && mv "$dir.tmp/keycloak-$KEYCLOAK_VERSION" "$dir" && rm -rf "$dir.tmp"
  # the build ran in the tmp dir: the paths it recorded must not matter, only the augmented app
  touch "$dir/.shardflow-built"
}

fetch_s3proxy() {
  local jar="$TOOLS/s3proxy-$S3PROXY_VERSION.jar"
  [[ -s "$jar" ]] && return 0
  local src
  src=$(m2_get org.gaul s3proxy "$S3PROXY_VERSION" jar jar-with-dependencies)
  cp -f "$src" "$jar.tmp" && mv -f "$jar.tmp" "$jar"
}

# MinIO community edition is source-only; its tags are not semver, so a pinned pseudo-version is
# installed with `go install` (about 3 minutes from an empty Go cache on 2 cores).
fetch_minio() {
  local dir="$TOOLS/minio-$MINIO_VERSION"
  local bin="$dir/minio"
  if [[ -x "$bin" ]] && "$bin" --version >/dev/null 2>&1; then
    return 0
  fi
  # A binary built earlier by hand in the older cache layout is reused rather than rebuilt.
  local legacy="$HOME/.cache/shardflow/minio/$MINIO_VERSION/minio"
  if [[ -x "$legacy" ]] && "$legacy" --version >/dev/null 2>&1; then
    mkdir -p "$dir" && cp -f "$legacy" "$bin.tmp" && mv -f "$bin.tmp" "$bin"
    return 0
  fi
  command -v go >/dev/null 2>&1 \
    || die "Go is needed to build MinIO (go.mod asks for go >= 1.24); install Go or run with --no-minio"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  run_step build-minio env GOBIN="$dir.tmp" go install "github.com/minio/minio@$MINIO_VERSION"
  [[ -x "$dir.tmp/minio" ]] || die "go install finished but $dir.tmp/minio is missing"
  mkdir -p "$dir" && mv -f "$dir.tmp/minio" "$bin" && rm -rf "$dir.tmp"
  "$bin" --version >/dev/null 2>&1 || die "$bin was built but does not run"
}

write_properties() {
  local props="$TOOLS/tools.properties"
  local minio_bin="$TOOLS/minio-$MINIO_VERSION/minio"
  {
    echo "# Written by scripts/fetch-tools.sh; read by io.shardflow.stack.ToolPaths. Do not edit."
    echo "tools.dir=$TOOLS"
    echo "kafka.version=$KAFKA_VERSION"
    echo "kafka.classpath.file=$TOOLS/kafka-$KAFKA_VERSION.classpath"
    echo "kafka.log4j2.config=$TOOLS/kafka-log4j2.xml"
    echo "apicurio.version=$APICURIO_VERSION"
    echo "apicurio.runner.jar=$TOOLS/apicurio-$APICURIO_VERSION/apicurio-registry-app-$APICURIO_VERSION-runner.jar"
    echo "keycloak.version=$KEYCLOAK_VERSION"
    echo "keycloak.home=$TOOLS/keycloak-$KEYCLOAK_VERSION"
    echo "s3proxy.version=$S3PROXY_VERSION"
    echo "s3proxy.jar=$TOOLS/s3proxy-$S3PROXY_VERSION.jar"
    echo "minio.version=$MINIO_VERSION"
    # With --no-minio an earlier build is still recorded; otherwise the key is left out.
    if [[ -x "$minio_bin" ]]; then echo "minio.binary=$minio_bin"; fi
  } >"$props.tmp"
  mv -f "$props.tmp" "$props"
  printf '%s\n' "$props"
}

# Two runs at once (say, parallel CI jobs) must not interleave their tmp files.
exec 9>"$TOOLS/.fetch-tools.lock"
flock 9

ensure_java_and_maven
fetch_kafka
fetch_apicurio
fetch_keycloak
fetch_s3proxy
if ((WITH_MINIO)); then fetch_minio; fi
write_properties
