#!/usr/bin/env bash
# One-shot of docker-compose's "secure" profile: a CA, and key stores for Keycloak and the registry
# signed by it, made with the JDK's keytool (the shardflow images have a JRE and no openssl). Each
# server certificate names the compose service, localhost and 127.0.0.1. The CA's own key is thrown
# away once they are signed. Dev material for one machine, like the MinIO keys of docker-compose.yml;
# a real deployment takes its certificates from the organisation's CA.
#
# Env: SHARDFLOW_COMPOSE_STORE_PASSWORD (the key stores' password; read by keytool from the
# environment, never from an argument), CERTS_DIR (default /certs). Re-running changes nothing.
set -euo pipefail
OUT=${CERTS_DIR:-/certs}
: "${SHARDFLOW_COMPOSE_STORE_PASSWORD:?set SHARDFLOW_COMPOSE_STORE_PASSWORD}"
if [[ -f $OUT/.complete ]]; then
  echo "secure-certs: already made in $OUT"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kt() { keytool -noprompt -storetype PKCS12 -storepass:env SHARDFLOW_COMPOSE_STORE_PASSWORD "$@"; }

kt -genkeypair -alias ca -dname CN=shardflow-compose-ca -keyalg EC -groupname secp256r1 -validity 365 -ext bc:c \
  -keystore "$work/ca.p12"
kt -exportcert -rfc -alias ca -keystore "$work/ca.p12" -file "$OUT/ca.crt"
for name in keycloak registry; do
  kt -genkeypair -alias "$name" -dname "CN=$name" -keyalg EC -groupname secp256r1 -validity 365 -keystore "$OUT/$name.p12"
  kt -certreq -alias "$name" -keystore "$OUT/$name.p12" -file "$work/$name.csr"
  kt -gencert -alias ca -keystore "$work/ca.p12" -infile "$work/$name.csr" -outfile "$work/$name.crt" -rfc -validity 365 \
    -ext "san=dns:$name,dns:localhost,ip:127.0.0.1" -ext eku=serverAuth -ext ku=digitalSignature
  # the CA first, so the signed reply's chain can be built
  kt -importcert -alias ca -file "$OUT/ca.crt" -keystore "$OUT/$name.p12"
  kt -importcert -alias "$name" -file "$work/$name.crt" -keystore "$OUT/$name.p12"
done
# the registry's OIDC client (Quarkus 3.15) reads a PKCS12 trust store, not PEM
kt -importcert -alias ca -file "$OUT/ca.crt" -keystore "$OUT/truststore.p12"
# every shardflow image runs as 10001; key stores readable by it only
chown -R 10001:10001 "$OUT"
chmod 0600 "$OUT"/*.p12
chmod 0644 "$OUT/ca.crt"
touch "$OUT/.complete"
echo "secure-certs: CA and key stores made in $OUT"
