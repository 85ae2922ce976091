package io.shardflow.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The parts that need no server: tool lookup, the state file, argument handling. */
class StackFilesTest {

    @TempDir
    Path tmp;

    @Test
    void shouldTellToRunFetchToolsWhenToolsAreMissing() {
        assertThatThrownBy(() -> ToolPaths.load(tmp.resolve("no-tools")))
                .isInstanceOf(StackException.class)
                .hasMessageContaining("run scripts/fetch-tools.sh");
    }

    @Test
    void shouldTellToRunFetchToolsWhenAJarWasDeleted() throws Exception {
        Path jar = Files.writeString(tmp.resolve("kafka.jar"), "x");
        Path classpath = Files.writeString(tmp.resolve("kafka.classpath"), jar + ":" + tmp.resolve("gone.jar"));
        Files.writeString(tmp.resolve("tools.properties"), String.join("\n",
                "kafka.classpath.file=" + classpath,
                "kafka.log4j2.config=" + jar,
                "apicurio.runner.jar=" + jar,
                "s3proxy.jar=" + jar));
        assertThatThrownBy(() -> ToolPaths.load(tmp))
                .isInstanceOf(StackException.class)
                .hasMessageContaining("gone.jar")
                .hasMessageContaining("run scripts/fetch-tools.sh");
    }

    @Test
    void shouldRequireMinioOnlyWhenAsked() throws Exception {
        Path jar = Files.writeString(tmp.resolve("kafka.jar"), "x");
        Path classpath = Files.writeString(tmp.resolve("kafka.classpath"), jar.toString());
        Files.writeString(tmp.resolve("tools.properties"), String.join("\n",
                "kafka.classpath.file=" + classpath,
                "kafka.log4j2.config=" + jar,
                "apicurio.runner.jar=" + jar,
                "s3proxy.jar=" + jar));
        ToolPaths tools = ToolPaths.load(tmp);
        assertThat(tools.kafkaClasspath()).isEqualTo(jar.toString());
        assertThatThrownBy(tools::requireMinio).hasMessageContaining("without --no-minio");
    }

    @Test
    void shouldReadBackTheStateItWrote() throws Exception {
        StackState state = new StackState(StackState.FORMAT_VERSION, tmp.toString(), S3Kind.MINIO, true, "bucket",
                "127.0.0.1:1", "http://127.0.0.1:2/apis/registry/v3", "http://127.0.0.1:3", "ak", "pa55-w0rd-xyz",
                new StackPorts(1, 4, 2, 3, 5, 6, 7),
                Map.of(Role.S3, new StackState.ServerState(42, Map.of("s3", 3, "console", 5), "s3.log")), null, null, null, null);
        state.write();
        assertThat(LocalStack.read(tmp)).contains(state);
        assertThat(Files.getPosixFilePermissions(tmp.resolve(StackState.FILE_NAME)))
                .as("stack.json holds the S3 secret key").isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(state.toString()).doesNotContain("pa55-w0rd-xyz");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        StackMain.printEndpoints(state, new PrintStream(printed, true, StandardCharsets.UTF_8));
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("SHARDFLOW_S3_SECRET_KEY_FILE=")
                .doesNotContain("pa55-w0rd-xyz");
        assertThat(LocalStack.read(tmp.resolve("elsewhere"))).isEmpty();
    }

    @Test
    void shouldNotTakeAnUnrelatedProcessForOneOfOurs() {
        long self = ProcessHandle.current().pid();
        assertThat(RecordedStack.isOurs(self, tmp.toString())).isFalse();
        assertThat(RecordedStack.isOurs(Long.MAX_VALUE, tmp.toString())).isFalse();
    }

    @Test
    void shouldReportNoStackAndUsageErrors() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);

        assertThat(StackMain.run(new String[] {"status", "--dir", tmp.toString()}, o, e)).isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("no stack recorded");
        assertThat(StackMain.run(new String[] {"down", "--dir", tmp.toString()}, o, e)).isZero();
        assertThat(StackMain.run(new String[] {"up", "--s3", "ceph"}, o, e)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown S3 server 'ceph'");
        assertThat(StackMain.run(new String[] {}, o, e)).isEqualTo(2);
    }

    @Test
    void shouldRejectInvalidConfig() {
        assertThatThrownBy(() -> StackConfig.defaults(tmp).withBucket("Bad_Bucket"))
                .hasMessageContaining("invalid bucket name");
        assertThatThrownBy(() -> StackConfig.defaults(tmp).withTopics(
                java.util.List.of(new TopicSpec("a", 1), new TopicSpec("a", 2))))
                .hasMessageContaining("listed twice");
        assertThat(StackConfig.defaults(Path.of("rel")).workDir()).isAbsolute();
    }
}
