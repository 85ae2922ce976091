package io.shardflow.stack;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A topic the stack creates at start; replication factor is always 1 (one broker).
 *
 * @param configs topic-level configs, e.g. {@code max.message.bytes}
 */
public record TopicSpec(String name, int partitions, Map<String, String> configs) {

    /**
     * Largest record batch the samples topic takes: ingest-app's default {@code sample.max.bytes}
     * (1 MiB) plus 64 KiB for the key, headers and framing. docs/operating/limits.md explains the alignment.
     */
    public static final int SAMPLES_MAX_MESSAGE_BYTES = (1 << 20) + (64 << 10);
    /**
     * Largest record batch of the dead-letter and assignments topics: a dead letter is the original
     * record plus a few KiB of headers (an assignment is a few dozen bytes). Matches ingest-app's
     * default {@code dlq.max.bytes}.
     */
    public static final int DERIVED_MAX_MESSAGE_BYTES = (1 << 20) + (128 << 10);

    /**
     * How long the samples topic keeps records: shard-sink reads a shard's samples from it when the
     * shard seals, so it must outlive the sink's lag (docs/ARCHITECTURE.md § 5). Seven days, as in
     * docker-compose.yml and k8s/.
     */
    public static final long SAMPLES_RETENTION_MS = 7L * 24 * 3600 * 1000;

    /** The pipeline's topics: input samples, dead letters, and the ingest-to-sink hand-off (decisions only). */
    public static final List<TopicSpec> DEFAULTS = List.of(
            // LogAppendTime: the dedupe window runs on broker time, whatever the devices' clocks say.
            new TopicSpec("samples", 3, Map.of("max.message.bytes", String.valueOf(SAMPLES_MAX_MESSAGE_BYTES),
                    "message.timestamp.type", "LogAppendTime", "retention.ms", String.valueOf(SAMPLES_RETENTION_MS))),
            new TopicSpec("samples-dlq", 1, Map.of("max.message.bytes", String.valueOf(DERIVED_MAX_MESSAGE_BYTES))),
            new TopicSpec("shard-assignments", 3, Map.of("max.message.bytes", String.valueOf(DERIVED_MAX_MESSAGE_BYTES))));

    public TopicSpec {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("topic name must not be blank");
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("topic " + name + ": partitions must be >= 1, got " + partitions);
        }
        configs = Map.copyOf(Objects.requireNonNull(configs, "configs"));
    }

    /** A topic with the broker's default configs. */
    public TopicSpec(String name, int partitions) {
        this(name, partitions, Map.of());
    }
}
