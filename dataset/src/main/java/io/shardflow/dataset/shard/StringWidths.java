package io.shardflow.dataset.shard;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Widths in bytes of the fixed-length string datasets of one shard: the longest UTF-8 value plus
 * the terminating NUL, as jHDF sizes them (so an all-empty column is one byte wide, never zero).
 */
record StringWidths(int sampleId, int deviceId, int attributes) {

    static StringWidths measure(List<SampleRow> rows) {
        StringWidths widths = NARROWEST;
        for (SampleRow row : rows) {
            widths = widths.widen(row);
        }
        return widths;
    }

    /** Widths of no rows yet: the terminating NUL alone. */
    static final StringWidths NARROWEST = new StringWidths(1, 1, 1);

    /** These widths grown to hold {@code row} too. */
    StringWidths widen(SampleRow row) {
        return new StringWidths(Math.max(sampleId, utf8(row.sampleId()).length + 1),
                Math.max(deviceId, utf8(row.deviceId()).length + 1),
                Math.max(attributes, utf8(ShardWriter.attributesJson(row)).length + 1));
    }

    static byte[] utf8(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
