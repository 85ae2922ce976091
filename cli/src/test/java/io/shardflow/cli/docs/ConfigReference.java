package io.shardflow.cli.docs;

import io.shardflow.app.KafkaClientConfig;
import io.shardflow.app.RegistryConfig;
import io.shardflow.app.S3Config;
import io.shardflow.app.ServiceConfig;
import io.shardflow.gateway.config.GatewayConfig;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.sink.compaction.CompactionSettings;
import io.shardflow.sink.config.SinkConfig;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;

/**
 * docs/reference/configuration.md from the services' {@link ConfigDef}s: every key with its
 * environment variable, type, default, valid values, importance and documentation. Keys are grouped
 * by the class that defines them; defaults that depend on the machine (the temp directory, the
 * process name) are written as what they stand for.
 */
final class ConfigReference {

    private ConfigReference() {
    }

    static String page() {
        StringBuilder out = new StringBuilder(Markdown.generatedBanner("Service configuration reference",
                "the ConfigDef definitions of ingest-app (IngestConfig), shard-sink (SinkConfig) and edge-gateway (GatewayConfig)"));
        out.append("Every service reads a properties file (`bin/shardflow ingest FILE`, `java -jar ... FILE`), then ")
                .append("environment variables, each overriding the file: `SHARDFLOW_` followed by the key in upper case with ")
                .append("dots as underscores (`s3.endpoint` is `SHARDFLOW_S3_ENDPOINT`). A missing or malformed value stops the ")
                .append("service at start with one line naming the key (exit code 2). Keys starting with `")
                .append(KafkaClientConfig.KAFKA_PREFIX).append("` are handed to the Kafka clients without the prefix.\n\n");
        Set<String> common = new LinkedHashSet<>();
        out.append("## Every service\n\n");
        out.append(section("Object storage (S3Config)", S3Config.define(new ConfigDef()), common));
        out.append(section("Kafka client security (KafkaClientConfig)", KafkaClientConfig.define(new ConfigDef()), common));
        out.append(section("Schema registry (RegistryConfig)", RegistryConfig.define(new ConfigDef()), common));
        out.append(section("Process: probes and shutdown (ServiceConfig)", ServiceConfig.define(new ConfigDef()), common));
        ConfigDef compaction = new ConfigDef();
        CompactionSettings.define(compaction);
        out.append("## ingest-app\n\n");
        out.append(section("ingest-app settings (IngestConfig)", without(IngestConfig.DEFINITION, common), new LinkedHashSet<>()));
        out.append("## shard-sink\n\n");
        Set<String> sinkOwn = new LinkedHashSet<>(common);
        sinkOwn.addAll(compaction.names());
        out.append(section("shard-sink settings (SinkConfig)", without(SinkConfig.DEFINITION, sinkOwn), new LinkedHashSet<>()));
        out.append(section("Background compaction (CompactionSettings)", compaction, new LinkedHashSet<>()));
        out.append("## edge-gateway\n\n");
        out.append(section("edge-gateway settings (GatewayConfig)", without(GatewayConfig.DEFINITION, common), new LinkedHashSet<>()));
        return out.toString();
    }

    private static ConfigDef without(ConfigDef definition, Set<String> names) {
        ConfigDef rest = new ConfigDef();
        definition.configKeys().values().stream().filter(key -> !names.contains(key.name)).forEach(rest::define);
        return rest;
    }

    private static String section(String title, ConfigDef definition, Set<String> seen) {
        List<List<String>> rows = new ArrayList<>();
        for (ConfigKey key : definition.configKeys().values()) {
            seen.add(key.name);
            rows.add(List.of(Markdown.code(key.name), Markdown.code(environmentName(key.name)),
                    key.type.toString().toLowerCase(Locale.ROOT), Markdown.cell(defaultOf(key)),
                    Markdown.cell(key.validator == null ? "" : key.validator.toString()),
                    key.importance.toString().toLowerCase(Locale.ROOT), Markdown.cell(key.documentation)));
        }
        return "### " + title + "\n\n"
                + Markdown.table(List.of("key", "environment", "type", "default", "valid values", "importance", "description"), rows);
    }

    static String environmentName(String key) {
        return "SHARDFLOW_" + key.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    private static String defaultOf(ConfigKey key) {
        if (!key.hasDefault()) {
            return "required";
        }
        if (key.type == ConfigDef.Type.PASSWORD) {
            return key.defaultValue == null ? "(none)" : "(hidden)";
        }
        Object value = key.defaultValue;
        if (value == null) {
            return "(none)";
        }
        String text = value instanceof List<?> list ? String.join(",", list.stream().map(String::valueOf).toList()) : value.toString();
        return text.isEmpty() ? "(empty)" : Markdown.code(MACHINE_SPECIFIC.apply(text));
    }

    /** Defaults computed from the JVM that defines them, written as what they stand for. */
    private static final UnaryOperator<String> MACHINE_SPECIFIC = text -> text
            .replace(System.getProperty("java.io.tmpdir"), "<java.io.tmpdir>")
            .replace(ManagementFactory.getRuntimeMXBean().getName(), "<pid>@<host>");
}
