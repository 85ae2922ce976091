package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.stack.IdentityClient;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.StackConfig;
import io.shardflow.stack.StackEndpoints;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands against {@code stack up --secure}, found through --stack-dir: the registry on https
 * behind OIDC, the broker on SASL_SSL. publish reaches both as the edge principal (its client file
 * carries the serde's OAuth2 keys), doctor trusts the registry's CA, and schemas register works for
 * the admin client only.
 */
class SecureStackCommandsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;
    private static LocalStack stack;

    @BeforeAll
    static void startStack() {
        stack = LocalStack.start(StackConfig.defaults(work.resolve("stack")).withSecure(true));
    }

    @AfterAll
    static void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    private static CliRun run(String... args) {
        String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--stack-dir";
        all[args.length + 1] = work.resolve("stack").toString();
        return CliRun.of(all);
    }

    @Test
    void shouldPublishAsTheEdgePrincipalOverOAuth2AndTls() throws Exception {
        CliRun publish = run("publish", "--dataset", "cams", "--version", "v1", "--count", "5", "--size", "4", "--json");
        assertThat(publish.exitCode()).as(publish.out() + publish.err()).isZero();
        assertThat(JSON.readTree(publish.out()).get("samples").asLong()).isEqualTo(5);
    }

    @Test
    void shouldCheckTheRegistryOverTlsTrustingTheStacksCa() {
        CliRun doctor = run("doctor");
        assertThat(doctor.out().lines()).as(doctor.out() + doctor.err())
                .anyMatch(l -> l.matches("OK +registry +https://127.*answers \\(Apicurio Registry 3\\..*\\)"));
    }

    @Test
    void shouldRegisterSchemasAsTheAdminClientOnly() throws Exception {
        StackEndpoints endpoints = StackEndpoints.of(stack);
        CliRun admin = run("schemas", "register", "--registry-config",
                endpoints.registryConfig(IdentityClient.ADMIN).orElseThrow().toString());
        CliRun edge = run("schemas", "register", "--registry-config",
                endpoints.registryConfig(IdentityClient.EDGE).orElseThrow().toString());

        assertThat(admin.exitCode()).as(admin.out() + admin.err()).isZero();
        JsonNode registered = JSON.readTree(admin.out());
        assertThat(registered.get("contentId").asLong()).isPositive();
        assertThat(edge.exitCode()).as("a read-only client registers").isEqualTo(1);
        assertThat(edge.err()).contains("cannot register the schemas of samples", "sr-admin")
                .doesNotContain(endpoints.registrySettings(IdentityClient.EDGE).get("registry.auth.client.secret"));
    }
}
