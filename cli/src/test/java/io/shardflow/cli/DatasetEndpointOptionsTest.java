package io.shardflow.cli;

import static io.shardflow.cli.DatasetCommandRunner.concat;
import static io.shardflow.cli.DatasetCommandRunner.execute;
import static io.shardflow.cli.DatasetCommandRunner.publishThreeSnapshots;
import static io.shardflow.cli.DatasetCommandRunner.withStandardInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardflow.cli.DatasetCommandRunner.Run;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.dataset.store.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code dataset} commands against a real S3Proxy, opened from the endpoint options. */
class DatasetEndpointOptionsTest {

    @TempDir
    Path tmp;

    @Test
    void shouldRunAgainstARealS3ServerThroughTheEndpointOptions() throws Exception {
        assumeTrue(S3ProxyServer.jar().isPresent(), "S3Proxy jar not installed (scripts/fetch-tools.sh)");
        try (S3ProxyServer server = S3ProxyServer.start(tmp.resolve("s3proxy")); S3ObjectStore s3 = server.store("cli-test")) {
            publishThreeSnapshots(s3, tmp);
            Path secretFile = Files.writeString(tmp.resolve("s3-secret"), S3ProxyServer.SECRET_KEY + "\n");
            String[] endpoint = {"--s3-endpoint", server.endpoint(), "--s3-access-key", S3ProxyServer.ACCESS_KEY,
                    "--s3-secret-key-file", secretFile.toString(), "--bucket", "cli-test", "--stack-dir", tmp.toString()};

            Run verify = execute(null, concat(new String[] {"verify", "cams", "v1"}, endpoint));
            Run list = execute(null, concat(new String[] {"list", "--json"}, endpoint));

            assertThat(verify.exitCode()).as(verify.err()).isZero();
            assertThat(verify.out()).contains("snapshot 3: 12 shards, 46 samples: OK");
            assertThat(list.json().get("datasets").get(0).get("versions").get(0).get("latestSnapshot").asLong()).isEqualTo(3);
        }
    }

    @Test
    void shouldTakeTheS3SecretFromAPromptInsteadOfTheCommandLine() throws Exception {
        assumeTrue(S3ProxyServer.jar().isPresent(), "S3Proxy jar not installed (scripts/fetch-tools.sh)");
        try (S3ProxyServer server = S3ProxyServer.start(tmp.resolve("s3proxy")); S3ObjectStore s3 = server.store("cli-test")) {
            publishThreeSnapshots(s3, tmp);
            String[] verify = {"verify", "cams", "v1", "--s3-endpoint", server.endpoint(), "--s3-access-key",
                    S3ProxyServer.ACCESS_KEY, "--ask-s3-secret-key", "--bucket", "cli-test", "--stack-dir", tmp.toString()};

            Run typed = withStandardInput(S3ProxyServer.SECRET_KEY + "\n", () -> execute(null, verify));
            Run mistyped = withStandardInput("not-the-secret\n", () -> execute(null, verify));

            assertThat(typed.exitCode()).as(typed.err()).isZero();
            assertThat(typed.out()).contains("snapshot 3: 12 shards, 46 samples: OK");
            assertThat(mistyped.exitCode()).as("the prompt's value is the one used").isNotZero();
        }
    }
}
