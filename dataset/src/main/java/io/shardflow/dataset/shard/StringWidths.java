package io.shardflow.dataset.shard;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Widths in bytes of the fixed-length string datasets of one shard: the longest UTF-8 value plus
 * the terminating NUL, as jHDF sizes them (so an all-empty column is one byte wide, never zero).
 */
record StringWidths(int sampleId, int deviceId, int attributes) {

    static StringWidths measure(List<SampleRow> rows) {
        int sampleId = 0;
        int deviceId = 0;
        int attributes = 0;
        for (SampleRow row : rows) {
            sampleId = Math.max(sampleId, utf8(row.sampleId()).length);
            deviceId = Math.max(deviceId, utf8(row.deviceId()).length);
            attributes = Math.max(attributes, utf8(ShardWriter.attributesJson(row)).length);
        }
        return new StringWidths(sampleId + 1, deviceId + 1, attributes + 1);
    }

    static byte[] utf8(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
