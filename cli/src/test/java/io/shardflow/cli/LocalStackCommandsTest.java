package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.StackConfig;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * doctor and publish against a real broker, registry and S3Proxy started by local-stack; the
 * commands find them through --stack-dir, as they would after 'shardflow stack up'. Output goes to
 * a pipe, so progress comes as plain lines.
 */
class LocalStackCommandsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;
    private static LocalStack stack;

    @BeforeAll
    static void startStack() {
        stack = LocalStack.start(StackConfig.defaults(work.resolve("stack")));
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
    void shouldFindNothingWrongWithAFreshLocalStackAndProveCreateOnlyWrites() throws Exception {
        CliRun human = run("doctor");
        CliRun json = run("doctor", "--json");

        assertThat(human.exitCode()).as(human.out() + human.err()).isZero();
        assertThat(human.out().lines()).anyMatch(l -> l.matches("OK +kafka +127\\.0\\.0\\.1:\\d+ answers \\(1 broker\\)"))
                .anyMatch(l -> l.matches("OK +registry +http://127.*answers \\(Apicurio Registry 3\\..*\\)"))
                .anyMatch(l -> l.matches("OK +s3 +http://127.*answers; bucket shardflow is readable.*"))
                .anyMatch(l -> l.matches("OK +s3\\.create-only +a second PUT with If-None-Match: \\* was refused \\(412\\)"))
                .anyMatch(l -> l.matches("OK +s3\\.probe-cleanup +removed the probe key doctor/create-only-probe-\\d+"))
                .anyMatch(l -> l.matches("OK +kafka\\.topic\\.samples +3 partitions, max\\.message\\.bytes=\\d+ "
                        + "\\(>= sample\\.max\\.bytes=1048576\\)"))
                .anyMatch(l -> l.matches("OK +kafka\\.topic\\.samples\\.timestamps +message\\.timestamp\\.type=LogAppendTime: "
                        + "the dedupe window runs on broker time"))
                .anyMatch(l -> l.matches("OK +kafka\\.topic\\.samples-dlq +exists"))
                .anyMatch(l -> l.matches("OK +kafka\\.topic\\.shard-assignments +exists"))
                .last().asString().startsWith("doctor: OK (9 checks, 0 warnings)");
        JsonNode report = JSON.readTree(json.out());
        assertThat(report.get("ok").asBoolean()).isTrue();
        List<String> checks = report.get("findings").findValuesAsText("check");
        assertThat(checks).contains("kafka", "registry", "s3", "s3.create-only", "s3.probe-cleanup", "kafka.topic.samples");
        assertThat(report.get("findings").get(0).has("fix")).isTrue();
    }

    @Test
    void shouldRegisterTheSamplesSchemasAsTheSerializerWouldAndFindThemTheSecondTime() throws Exception {
        CliRun first = run("schemas", "register");
        CliRun again = run("schemas", "register");

        assertThat(first.exitCode()).as(first.out() + first.err()).isZero();
        assertThat(again.exitCode()).as(again.out() + again.err()).isZero();
        JsonNode registered = JSON.readTree(first.out());
        assertThat(registered.get("artifact").asText()).isEqualTo("samples-value");
        assertThat(registered.get("contentId").asLong()).isPositive();
        assertThat(JSON.readTree(again.out()).get("contentId")).as("the same text and references find the same content")
                .isEqualTo(registered.get("contentId"));
    }

    @Test
    void shouldSayWhatIsWrongAndHowToFixItWithExitOne() {
        CliRun run = run("doctor", "--samples-topic", "no-such-topic", "--registry", "http://127.0.0.1:1/apis/registry/v3");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).containsPattern("FAIL kafka\\.topic\\.no-such-topic +does not exist -> create it: kafka-topics\\.sh "
                + "--create --topic no-such-topic --partitions 3 --config max\\.message\\.bytes=\\d+ "
                + "--config message\\.timestamp\\.type=LogAppendTime")
                .contains("FAIL registry", "no answer from http://127.0.0.1:1/apis/registry/v3", "-> start the registry")
                .contains("doctor: PROBLEMS FOUND");
    }

    @Test
    void shouldWarnAboutASamplesTopicThatRefusesBigSamplesAndTrustsDeviceClocks() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("small-samples", 1, (short) 1).configs(Map.of(
                    "max.message.bytes", "100000", "message.timestamp.type", "CreateTime")))).all().get();
        }

        CliRun run = run("doctor", "--samples-topic", "small-samples");

        assertThat(run.exitCode()).as("warnings only").isZero();
        assertThat(run.out()).containsPattern("WARN kafka\\.topic\\.small-samples +1 partitions, max\\.message\\.bytes=100000: samples "
                        + "between 100000 and sample\\.max\\.bytes=1048576 bytes are refused by the broker .* -> kafka-configs\\.sh "
                        + "--alter --entity-type topics --entity-name small-samples --add-config max\\.message\\.bytes=1048576")
                .containsPattern("WARN kafka\\.topic\\.small-samples\\.timestamps +message\\.timestamp\\.type=CreateTime: the dedupe "
                        + "window follows device clocks.* --add-config message\\.timestamp\\.type=LogAppendTime")
                .contains("doctor: OK (9 checks, 2 warnings)");
    }

    @Test
    void shouldFailEveryCheckThatHasNoEndpointWithExitOne() {
        CliRun run = CliRun.of("doctor", "--stack-dir", work.resolve("no-stack").toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).containsPattern("FAIL kafka +not configured: no --bootstrap given, SHARDFLOW_BOOTSTRAP_SERVERS is not set")
                .containsPattern("FAIL registry +not configured: ")
                .containsPattern("FAIL s3 +not configured: ")
                .contains("doctor: PROBLEMS FOUND (3 checks");
    }

    @Test
    void shouldPublishWithPlainProgressLinesWhenTheOutputIsAPipe() throws Exception {
        CliRun created = run("dataset", "create", "--name", "progress", "--version", "v1", "--tensor", "image:float32:3x32x32",
                "--tensor", "label:int64", "--label", "label");
        CliRun published = run("publish", "--dataset", "progress", "--version", "v1", "--count", "3000", "--json");

        assertThat(created.exitCode()).as(created.err()).isZero();
        assertThat(published.exitCode()).as(published.err()).isZero();
        List<String> lines = published.err().lines().toList();
        assertThat(lines).anyMatch(l -> l.matches("publish: \\d+/3000 samples \\(\\d+%\\), \\d+ samples/s(, ETA .*)?"));
        assertThat(lines).last().asString().matches("publish: 3000 samples done in [\\d.]+ s \\(\\d+ samples/s\\)");
        assertThat(lines).noneMatch(l -> l.contains("\r"));
        assertThat(JSON.readTree(published.out()).get("samples").asLong()).isEqualTo(3000);
    }
}
