package io.shardflow.dataset.shard;

import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/** The shard writers a process can be configured with, by the name its settings use. */
public enum ShardWriterKind {

    /** {@link ShardWriter}: pure Java, holds the whole shard in Java arrays until the file is closed. */
    JHDF("jhdf", ShardWriter::new),
    /** {@link StreamingShardWriter}: the HDF Group's C library, memory bounded whatever the shard size. */
    HDF5("hdf5", StreamingShardWriter::new);

    private final String settingValue;
    private final Supplier<ShardFileWriter> factory;

    ShardWriterKind(String settingValue, Supplier<ShardFileWriter> factory) {
        this.settingValue = settingValue;
        this.factory = factory;
    }

    public String settingValue() {
        return settingValue;
    }

    public ShardFileWriter create() {
        return factory.get();
    }

    public static List<String> settingValues() {
        return Arrays.stream(values()).map(ShardWriterKind::settingValue).toList();
    }

    public static ShardWriterKind fromSetting(String value) {
        for (ShardWriterKind kind : values()) {
            if (kind.settingValue.equals(value)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown shard writer '" + value + "', expected one of " + settingValues());
    }
}
