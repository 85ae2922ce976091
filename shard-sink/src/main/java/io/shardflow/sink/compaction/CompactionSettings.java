package io.shardflow.sink.compaction;

import java.time.Duration;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The sink's background compaction settings (docs/datasets/lifecycle.md): off by default. Defined
 * here and named by constants of {@code SinkConfig}, so a bad value stops the sink at start with the
 * key in the message, like every other setting.
 */
public record CompactionSettings(boolean enabled, Duration interval, int targetSamples, int minSmallShards) {

    public static final String ENABLED = "compaction.enabled";
    public static final String INTERVAL_MS = "compaction.interval.ms";
    public static final String TARGET_SAMPLES = "compaction.target.samples";
    public static final String MIN_SMALL_SHARDS = "compaction.min.small.shards";

    public static void define(ConfigDef definition) {
        definition.define(ENABLED, Type.BOOLEAN, false, Importance.MEDIUM,
                        "merge small shards of the dataset versions this sink writes into full ones in the background, "
                                + "as 'shardflow dataset compact' does")
                .define(INTERVAL_MS, Type.LONG, 300_000L, Range.atLeast(100), Importance.LOW,
                        "pause between two compaction rounds")
                .define(TARGET_SAMPLES, Type.INT, 1000, Range.atLeast(2), Importance.LOW,
                        "a shard with fewer samples is small; merged shards hold at least this many")
                .define(MIN_SMALL_SHARDS, Type.INT, 4, Range.atLeast(2), Importance.LOW,
                        "a round compacts a dataset version only when it could merge at least this many small shards");
    }

    public static CompactionSettings of(AbstractConfig config) {
        return new CompactionSettings(config.getBoolean(ENABLED), Duration.ofMillis(config.getLong(INTERVAL_MS)),
                config.getInt(TARGET_SAMPLES), config.getInt(MIN_SMALL_SHARDS));
    }
}
