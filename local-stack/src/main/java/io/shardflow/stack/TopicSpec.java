package io.shardflow.stack;

import java.util.List;
import java.util.Objects;

/** A topic the stack creates at start; replication factor is always 1 (one broker). */
public record TopicSpec(String name, int partitions) {

    /** The pipeline's topics: input samples, dead letters, and the ingest-to-sink hand-off. */
    public static final List<TopicSpec> DEFAULTS = List.of(
            new TopicSpec("samples", 3),
            new TopicSpec("samples-dlq", 1),
            new TopicSpec("shard-assignments", 3));

    public TopicSpec {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("topic name must not be blank");
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("topic " + name + ": partitions must be >= 1, got " + partitions);
        }
    }
}
