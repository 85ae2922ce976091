package io.shardflow.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A secure stack's key material and identity settings, without servers: made once and kept, the
 * realm text stable across loads (Keycloak re-imports only a changed realm), each client's files
 * agreeing with the realm, least privilege in the realm's roles, and Keycloak found in a tools dir.
 */
class SecureMaterialTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN_ENDPOINT = "https://127.0.0.1:8443/realms/shardflow/protocol/openid-connect/token";

    @TempDir
    Path work;

    @Test
    void shouldMakeTheMaterialOnceAndGiveTheSameRealmAtEveryLoad() throws Exception {
        StackSecurity first = StackSecurity.prepare(work);
        String realm = first.identity().realmJson();
        StackSecurity again = StackSecurity.prepare(work);

        assertThat(again.identity().realmJson()).as("the realm text, byte for byte").isEqualTo(realm);
        assertThat(again.secretValues()).containsExactlyInAnyOrderElementsOf(first.secretValues());
        assertThat(first.secretValues()).doesNotHaveDuplicates().allSatisfy(secret -> assertThat(secret).hasSizeGreaterThanOrEqualTo(20));
    }

    @Test
    void shouldRemakeMaterialOfAnOlderVersion() throws Exception {
        StackSecurity first = StackSecurity.prepare(work);
        Path secretsFile = work.resolve("secure/secrets.properties");
        Properties older = new Properties();
        try (var in = Files.newBufferedReader(secretsFile)) {
            older.load(in);
        }
        older.remove("material.version");
        StringBuilder text = new StringBuilder();
        older.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        OwnerOnlyFiles.write(secretsFile, text.toString());

        StackSecurity remade = StackSecurity.prepare(work);
        assertThat(remade.secretValues()).doesNotContainAnyElementsOf(first.secretValues());
        assertThat(remade.identity().realmJson()).isNotEqualTo(first.identity().realmJson());
    }

    @Test
    void shouldGiveEveryClientOnlyItsRoleAndOnlyClientCredentials() throws Exception {
        StackSecurity security = StackSecurity.prepare(work);
        JsonNode realm = JSON.readTree(security.identity().realmJson());

        Map<String, String> roleOf = new HashMap<>();
        realm.get("users").forEach(user -> roleOf.put(user.get("serviceAccountClientId").asText(),
                user.get("realmRoles").toString()));
        assertThat(roleOf).containsEntry("shardflow-admin", "[\"sr-admin\"]").containsEntry("shardflow-edge", "[\"sr-readonly\"]")
                .containsEntry("shardflow-ingest", "[\"sr-readonly\"]").containsEntry("shardflow-sink", "[\"sr-readonly\"]")
                .containsEntry("shardflow-trainer", "[\"sr-readonly\"]").hasSize(IdentityClient.values().length);
        for (JsonNode client : realm.get("clients")) {
            assertThat(client.get("publicClient").asBoolean()).isFalse();
            assertThat(client.get("serviceAccountsEnabled").asBoolean()).isTrue();
            assertThat(client.get("standardFlowEnabled").asBoolean() || client.get("directAccessGrantsEnabled").asBoolean()
                    || client.get("implicitFlowEnabled").asBoolean()).as("browser or password flows of %s", client.get("clientId")).isFalse();
            assertThat(client.at("/protocolMappers/0/config/included.custom.audience").asText()).isEqualTo(StackIdentity.REGISTRY_AUDIENCE);
        }
    }

    @Test
    void shouldDeclareTheSameClientsRolesAndAudienceInDockerComposesRealm() throws Exception {
        JsonNode stack = JSON.readTree(StackSecurity.prepare(work).identity().realmJson());
        JsonNode compose = JSON.readTree(Path.of("..", "docker", "keycloak", "shardflow-realm.json").toFile());

        assertThat(shape(compose)).isEqualTo(shape(stack));
        compose.get("clients").forEach(client -> assertThat(client.get("secret").asText())
                .as("compose takes each secret from the environment").matches("\\$\\{SHARDFLOW_OIDC_[A-Z]+_SECRET}"));
    }

    /** Per client: its roles, flows and mappers; the realm's roles and settings. Everything but the secrets (JSON equality ignores field order). */
    private static Map<String, JsonNode> shape(JsonNode realm) {
        Map<String, JsonNode> shape = new HashMap<>();
        realm.get("users").forEach(user -> shape.put("roles of " + user.get("serviceAccountClientId").asText(), user.get("realmRoles")));
        realm.get("clients").forEach(client -> {
            com.fasterxml.jackson.databind.node.ObjectNode copy = client.deepCopy();
            copy.remove("secret");
            shape.put("client " + client.get("clientId").asText(), copy);
        });
        for (String field : new String[] {"realm", "enabled", "sslRequired", "accessTokenLifespan", "roles"}) {
            shape.put(field, realm.get(field));
        }
        return shape;
    }

    @Test
    void shouldWriteEachClientsFilesOwnerOnlyAndAgreeingWithTheRealm() throws Exception {
        StackSecurity security = StackSecurity.prepare(work);
        security.writeClientFiles(TOKEN_ENDPOINT);
        JsonNode realm = JSON.readTree(security.identity().realmJson());
        Path clients = security.clientDir();

        for (JsonNode client : realm.get("clients")) {
            String id = client.get("clientId").asText();
            Properties registry = load(clients.resolve(id + "-registry.properties"));
            assertThat(registry).containsEntry("registry.auth.token.endpoint", TOKEN_ENDPOINT).containsEntry("registry.auth.client.id", id)
                    .containsEntry("registry.auth.client.secret", client.get("secret").asText())
                    .containsEntry("registry.tls.truststore.location", security.caFile().toString())
                    .containsEntry("registry.tls.truststore.type", "PEM");
        }
        Properties edge = load(StackPrincipal.EDGE.scramClientConfig(clients));
        assertThat(edge).containsEntry("apicurio.registry.auth.client.id", "shardflow-edge")
                .containsEntry("apicurio.registry.auth.service.token.endpoint", TOKEN_ENDPOINT)
                .containsEntry("apicurio.registry.auto-register", "false").containsEntry("apicurio.registry.find-latest", "true");
        assertThat(load(StackPrincipal.EDGE.mtlsClientConfig(clients))).containsEntry("apicurio.registry.auto-register", "false");
        assertThat(load(StackPrincipal.INGEST.scramClientConfig(clients)).stringPropertyNames())
                .as("a service's Kafka file: its registry settings are in its own file").noneMatch(key -> key.startsWith("apicurio."));
        try (Stream<Path> files = Files.list(clients)) {
            assertThat(files).allSatisfy(file -> assertThat(Files.getPosixFilePermissions(file))
                    .as("%s", file).isEqualTo(PosixFilePermissions.fromString("rw-------")));
        }
    }

    @Test
    void shouldFindAKeycloakThatFetchToolsBuiltWhenToolsPropertiesDoesNotNameIt() throws Exception {
        Path jar = Files.writeString(work.resolve("kafka.jar"), "x");
        Files.writeString(work.resolve("tools.properties"), String.join("\n", "kafka.classpath.file="
                + Files.writeString(work.resolve("kafka.classpath"), jar.toString()), "kafka.log4j2.config=" + jar,
                "apicurio.runner.jar=" + jar, "s3proxy.jar=" + jar));
        assertThatThrownBy(() -> ToolPaths.load(work).requireKeycloak()).hasMessageContaining("run scripts/fetch-tools.sh");

        for (String version : new String[] {"26.7.3", "26.10.0", "9.0.1"}) {
            Path home = Files.createDirectories(work.resolve("keycloak-" + version + "/lib"));
            Files.writeString(home.resolve("quarkus-run.jar"), "x");
        }
        assertThatThrownBy(() -> ToolPaths.load(work).requireKeycloak()).as("none finished its build").isInstanceOf(StackException.class);
        Files.writeString(work.resolve("keycloak-26.7.3/.shardflow-built"), "");
        Files.writeString(work.resolve("keycloak-26.10.0/.shardflow-built"), "");
        assertThat(ToolPaths.load(work).requireKeycloak()).as("the newest built one").isEqualTo(work.resolve("keycloak-26.10.0"));
    }

    private static Properties load(Path file) throws Exception {
        Properties props = new Properties();
        try (var in = Files.newBufferedReader(file)) {
            props.load(in);
        }
        return props;
    }
}
