package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.stack.LocalGateway;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stack up --gateway} leaves a real gateway process running beside the stack, which
 * {@code stack status} reports and {@code stack down} stops; a token from {@code gateway token
 * create} is accepted by it.
 */
class GatewayStackCommandTest {

    @TempDir
    Path work;

    @Test
    void shouldStartTheGatewayWithTheStackAndStopItWithTheStack() throws Exception {
        String dir = work.resolve("stack").toString();
        try {
            CliRun up = CliRun.of("stack", "up", "--gateway", "--stack-dir", dir);
            assertThat(up.exitCode()).as(up.err()).isZero();
            LocalGateway.Recorded gateway = LocalGateway.recorded(Path.of(dir)).orElseThrow();
            assertThat(up.out()).contains("gateway   " + gateway.url());

            CliRun status = CliRun.of("stack", "status", "--stack-dir", dir);
            assertThat(status.out()).containsPattern("gateway +up +pid " + gateway.pid());
            String token = CliRun.of("gateway", "token", "create", "--device", "cli-phone", "--dataset", "*", "--stack-dir", dir).out().strip();
            HttpResponse<String> spec = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(gateway.url() + "/v1/datasets/none/versions/v1/spec")).header("Authorization", "Bearer " + token)
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(spec.statusCode()).as("the token is known to the running gateway: the dataset is what is missing").isEqualTo(404);
            assertThat(spec.body()).contains("UNKNOWN_DATASET");

            CliRun down = CliRun.of("stack", "down", "--stack-dir", dir);
            assertThat(down.out()).contains("gateway: stopped (pid " + gateway.pid() + ")");
            assertThat(ProcessHandle.of(gateway.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        } finally {
            CliRun.of("stack", "down", "--stack-dir", dir);
        }
    }
}
