package io.shardflow.cli;

import io.shardflow.cli.doctor.Finding;
import io.shardflow.cli.doctor.KafkaDoctor;
import io.shardflow.cli.doctor.RegistryDoctor;
import io.shardflow.cli.doctor.StoreDoctor;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.stack.TopicSpec;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code shardflow doctor}: is everything the pipeline needs there and set as it expects? One line per check. */
@Command(name = "doctor", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Check the configured broker, registry and S3 server: reachable, credentials accepted, the pipeline's "
                + "topics and their settings, the bucket, and create-only writes (a second If-None-Match: * PUT must be "
                + "refused). Prints one line per check with how to fix it; exits 1 if any check FAILs (WARN: works, but "
                + "not as the pipeline expects).",
        footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow doctor                      # the stack started by 'stack up'",
                "  SHARDFLOW_BOOTSTRAP_SERVERS=kafka:9092 bin/shardflow doctor --json"})
final class DoctorCommand implements Callable<Integer> {

    @Mixin
    Endpoints endpoints;
    @Spec
    picocli.CommandLine.Model.CommandSpec command;

    @Option(names = "--samples-topic", defaultValue = "samples", description = "input topic of ingest-app (default: ${DEFAULT-VALUE})")
    String samplesTopic;
    @Option(names = "--dlq-topic", defaultValue = "samples-dlq", description = "dead-letter topic (default: ${DEFAULT-VALUE})")
    String dlqTopic;
    @Option(names = "--assignments-topic", defaultValue = "shard-assignments",
            description = "topic from ingest-app to shard-sink (default: ${DEFAULT-VALUE})")
    String assignmentsTopic;
    @Option(names = "--sample-max-bytes", paramLabel = "BYTES", defaultValue = "${env:SHARDFLOW_SAMPLE_MAX_BYTES}",
            description = "ingest-app's sample.max.bytes, compared with the samples topic's max.message.bytes "
                    + "(env SHARDFLOW_SAMPLE_MAX_BYTES, default: ingest-app's default)")
    Long sampleMaxBytes;
    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "10", description = "per check (default: ${DEFAULT-VALUE})")
    int timeoutSeconds;
    @Option(names = "--json", description = "print the findings as JSON: {ok, findings: [{check, status, detail, fix}]}")
    boolean json;

    Clock clock = Clock.systemUTC();

    /** Trusts the registry's CA when the client file names one (a secure local stack's does). */
    private HttpClient registryHttp(Duration timeout) {
        HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(timeout);
        endpoints.registryTls().ifPresent(http::sslContext);
        return http.build();
    }

    @Override
    public Integer call() {
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        long sampleLimit = sampleMaxBytes != null ? sampleMaxBytes
                : (Long) IngestConfig.DEFINITION.defaultValues().get(IngestConfig.SAMPLE_MAX_BYTES);
        List<Finding> findings = new ArrayList<>();
        check("kafka", endpoints::bootstrapServers, bootstrap -> new KafkaDoctor(kafkaSettings(bootstrap), timeout).check(
                asNamed(samplesTopic, "samples"), List.of(asNamed(dlqTopic, "samples-dlq"),
                        asNamed(assignmentsTopic, "shard-assignments")), sampleLimit), findings);
        check("registry", endpoints::registryUrl, url -> List.of(
                new RegistryDoctor(registryHttp(timeout), timeout).check(url)), findings);
        check("s3", endpoints::s3, s3 -> new StoreDoctor(clock, timeout).check(s3), findings);
        boolean ok = findings.stream().noneMatch(f -> f.status() == Finding.Status.FAIL);
        PrintWriter out = command.commandLine().getOut();
        if (json) {
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("ok", ok);
            view.put("findings", findings);
            out.println(JsonOutput.write(view));
        } else {
            findings.forEach(f -> out.println(f.line()));
            long warnings = findings.stream().filter(f -> f.status() == Finding.Status.WARN).count();
            out.printf("doctor: %s (%d checks, %d warnings)%n", ok ? "OK" : "PROBLEMS FOUND", findings.size(), warnings);
        }
        return ok ? 0 : Shardflow.PROBLEM;
    }

    private Map<String, Object> kafkaSettings(String bootstrap) {
        // The same security settings as every other Kafka command, so doctor checks what they will meet.
        Map<String, Object> settings = new LinkedHashMap<>(endpoints.kafkaClientSettings());
        settings.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return settings;
    }

    /** The local stack's settings of a pipeline topic (partitions, configs), under the name configured here. */
    private static TopicSpec asNamed(String name, String role) {
        TopicSpec stack = TopicSpec.DEFAULTS.stream().filter(t -> t.name().equals(role)).findFirst().orElseThrow();
        return new TopicSpec(name, stack.partitions(), stack.configs());
    }

    /** Runs {@code checks} on the configured endpoint; one failing finding when the endpoint is not configured. */
    private static <T> void check(String what, Supplier<T> endpoint, Function<T, List<Finding>> checks, List<Finding> into) {
        T configured;
        try {
            configured = endpoint.get();
        } catch (IllegalArgumentException e) {
            into.add(Finding.fail(what, "not configured: " + e.getMessage(), "set the option or environment variable it names"));
            return;
        }
        into.addAll(checks.apply(configured));
    }
}
