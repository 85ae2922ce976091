package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code shardflow ui} refuses before it listens: a console reachable from elsewhere without credentials, bad credentials files. */
class UiCommandTest {

    @TempDir
    Path work;

    @Test
    void shouldRefuseToListenBeyondLoopbackWithoutCredentials() {
        CliRun run = CliRun.of("ui", "--bind", "0.0.0.0", "--port", "0", "--no-kafka", "--stack-dir", work.resolve("none").toString(),
                "--s3-endpoint", "http://127.0.0.1:1", "--s3-access-key", "k", "--bucket", "b", "--cache-dir", work.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--bind 0.0.0.0 is reachable from other machines", "SHARDFLOW_CONSOLE_TOKEN_FILE");
    }

    @Test
    void shouldRefuseABasicAuthFileWithoutAUserAndATokenShorterThanEightCharacters() throws Exception {
        Path basic = Files.writeString(work.resolve("basic"), "no-colon-here\n");
        Path token = Files.writeString(work.resolve("token"), "short\n");

        CliRun noUser = CliRun.of("ui", "--basic-auth-file", basic.toString(), "--no-kafka", "--stack-dir", work.toString());
        CliRun shortToken = CliRun.of("ui", "--token-file", token.toString(), "--no-kafka", "--stack-dir", work.toString());
        CliRun both = CliRun.of("ui", "--token-file", token.toString(), "--basic-auth-file", basic.toString(), "--stack-dir", work.toString());

        assertThat(noUser.exitCode()).isEqualTo(2);
        assertThat(noUser.err()).contains("must hold user:password");
        assertThat(shortToken.exitCode()).isEqualTo(2);
        assertThat(shortToken.err()).contains("at least 8 characters").doesNotContain("short\n");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("either a token or basic-auth credentials");
    }
}
