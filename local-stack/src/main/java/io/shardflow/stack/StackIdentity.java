package io.shardflow.stack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * The OIDC side of a secure stack: one Keycloak realm with a confidential client per
 * {@link IdentityClient} (OAuth2 client credentials, a random secret each), the realm roles the
 * registry authorizes by, and the settings each client needs to get a token and trust the
 * registry's certificate (docs/ARCHITECTURE.md § 6). Secrets stay in the owner-only
 * {@code secrets.properties} and the files made from it.
 */
final class StackIdentity {

    static final String REALM = "shardflow";
    /** The audience every client's token carries and the registry requires: a token minted for another API is refused. */
    static final String REGISTRY_AUDIENCE = "shardflow-registry";
    static final String IDP_ADMIN_USER = "shardflow-idp-admin";
    static final String REGISTRY_CERTIFICATE = "registry.crt";
    static final String REGISTRY_KEY = "registry.key";
    static final String IDP_CERTIFICATE = "idp.crt";
    static final String IDP_KEY = "idp.key";
    /** The CA in PKCS12: the registry's OIDC client (Quarkus 3.15) reads no PEM trust store. */
    static final String IDP_TRUSTSTORE = "idp-truststore.p12";
    private static final String CLIENT_SECRET_PREFIX = "oidc.client.";
    private static final String IDP_ADMIN_PASSWORD = "oidc.idp.admin.password";
    private static final String TRUSTSTORE_PASSWORD = "oidc.truststore.password";
    /** Five minutes, Keycloak's default: the serde and the Python SDK fetch a new token before expiry. */
    private static final int ACCESS_TOKEN_SECONDS = 300;

    private final Path dir;
    private final Properties secrets;

    StackIdentity(Path dir, Properties secrets) {
        this.dir = dir;
        this.secrets = secrets;
    }

    /** Adds the client secrets and passwords to {@code secrets} and writes the registry's trust store. */
    static void generate(Path dir, StackCertificates ca, Properties secrets, Supplier<String> newPassword) {
        for (IdentityClient client : IdentityClient.values()) {
            secrets.setProperty(CLIENT_SECRET_PREFIX + client.clientId(), newPassword.get());
        }
        secrets.setProperty(IDP_ADMIN_PASSWORD, newPassword.get());
        String truststorePassword = newPassword.get();
        secrets.setProperty(TRUSTSTORE_PASSWORD, truststorePassword);
        OwnerOnlyFiles.write(dir.resolve(IDP_TRUSTSTORE), StackCertificates.trustStore(ca.authority(), truststorePassword.toCharArray()));
    }

    /** {@code https://127.0.0.1:PORT/realms/shardflow}: the issuer of every token. */
    static String issuer(int idpPort) {
        return "https://" + StackPorts.HOST + ":" + idpPort + "/realms/" + REALM;
    }

    static String tokenEndpoint(int idpPort) {
        return issuer(idpPort) + "/protocol/openid-connect/token";
    }

    String clientSecret(IdentityClient client) {
        return secrets.getProperty(CLIENT_SECRET_PREFIX + client.clientId());
    }

    String idpAdminPassword() {
        return secrets.getProperty(IDP_ADMIN_PASSWORD);
    }

    Path truststore() {
        return dir.resolve(IDP_TRUSTSTORE);
    }

    String truststorePassword() {
        return secrets.getProperty(TRUSTSTORE_PASSWORD);
    }

    Path certificate(String name) {
        return dir.resolve(name);
    }

    /** The shardflow services' keys (app-common's RegistryConfig), also read by the Python edge SDK. */
    List<String> registryLines(IdentityClient client, String tokenEndpoint, Path caFile) {
        return List.of(
                "registry.auth.token.endpoint=" + tokenEndpoint,
                "registry.auth.client.id=" + client.clientId(),
                "registry.auth.client.secret=" + clientSecret(client),
                "registry.tls.truststore.location=" + caFile,
                "registry.tls.truststore.type=PEM");
    }

    /**
     * The Apicurio serde's keys, for a Kafka client file that a device hands to edge-client whole.
     * A read-only client cannot register, so the serializer looks up the latest version of the
     * topic's artifact instead (its search by content does not match an artifact registered with
     * references); the stack's admin registered it at start (docs/ARCHITECTURE.md § 6).
     */
    List<String> serdeLines(IdentityClient client, String tokenEndpoint, Path caFile) {
        List<String> lines = new ArrayList<>(List.of(
                "apicurio.registry.auth.service.token.endpoint=" + tokenEndpoint,
                "apicurio.registry.auth.client.id=" + client.clientId(),
                "apicurio.registry.auth.client.secret=" + clientSecret(client),
                "apicurio.registry.tls.truststore.location=" + caFile,
                "apicurio.registry.tls.truststore.type=PEM"));
        if (client.registryRole() == IdentityClient.RegistryRole.READ_ONLY) {
            lines.add("apicurio.registry.auto-register=false");
            lines.add("apicurio.registry.find-latest=true");
        }
        return lines;
    }

    /** The realm Keycloak imports at its first start: clients, their service accounts and roles. */
    String realmJson() {
        Map<String, Object> realm = new LinkedHashMap<>();
        realm.put("realm", REALM);
        realm.put("enabled", true);
        realm.put("sslRequired", "all");
        realm.put("accessTokenLifespan", ACCESS_TOKEN_SECONDS);
        List<Map<String, Object>> roles = new ArrayList<>();
        for (IdentityClient.RegistryRole role : IdentityClient.RegistryRole.values()) {
            roles.add(Map.of("name", role.roleName(), "description", "Apicurio Registry role " + role.roleName()));
        }
        realm.put("roles", Map.of("realm", roles));
        List<Map<String, Object>> clients = new ArrayList<>();
        List<Map<String, Object>> users = new ArrayList<>();
        for (IdentityClient client : IdentityClient.values()) {
            clients.add(client(client));
            users.add(Map.of("username", "service-account-" + client.clientId(), "enabled", true,
                    "serviceAccountClientId", client.clientId(), "realmRoles", List.of(client.registryRole().roleName())));
        }
        realm.put("clients", clients);
        realm.put("users", users);
        try {
            // keys sorted: the same material gives the same text, which KeycloakProcess compares across starts
            return new ObjectMapper().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).writerWithDefaultPrettyPrinter()
                    .writeValueAsString(realm);
        } catch (JsonProcessingException e) {
            throw new StackException("cannot write the identity provider's realm", e);
        }
    }

    /** A confidential client that can only get tokens for itself (client credentials): no browser or password flows. */
    private Map<String, Object> client(IdentityClient client) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("clientId", client.clientId());
        json.put("enabled", true);
        json.put("publicClient", false);
        json.put("clientAuthenticatorType", "client-secret");
        json.put("secret", clientSecret(client));
        json.put("serviceAccountsEnabled", true);
        json.put("standardFlowEnabled", false);
        json.put("implicitFlowEnabled", false);
        json.put("directAccessGrantsEnabled", false);
        json.put("protocolMappers", List.of(Map.of(
                "name", "registry-audience",
                "protocol", "openid-connect",
                "protocolMapper", "oidc-audience-mapper",
                "config", Map.of("included.custom.audience", REGISTRY_AUDIENCE, "access.token.claim", "true",
                        "id.token.claim", "false", "introspection.token.claim", "true"))));
        return json;
    }
}
