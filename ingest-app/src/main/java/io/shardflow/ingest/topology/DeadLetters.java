package io.shardflow.ingest.topology;

import io.shardflow.ingest.validate.Rejection;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Builds the dead-letter record for a refused input: the original key, value and headers untouched,
 * plus headers that say why and where it came from, so it can be inspected or replayed.
 */
public final class DeadLetters {

    public static final String REASON_HEADER = "shardflow.dlq.reason";
    public static final String DETAIL_HEADER = "shardflow.dlq.detail";
    public static final String SOURCE_HEADER = "shardflow.dlq.source";

    private DeadLetters() {
    }

    public static Record<byte[], byte[]> of(Record<byte[], byte[]> original, Rejection rejection, RecordMetadata source) {
        Headers headers = new RecordHeaders(original.headers().toArray());
        headers.remove(REASON_HEADER).remove(DETAIL_HEADER).remove(SOURCE_HEADER);
        headers.add(REASON_HEADER, utf8(rejection.reason().name()));
        headers.add(DETAIL_HEADER, utf8(rejection.detail()));
        if (source != null) {
            headers.add(SOURCE_HEADER, utf8(source.topic() + "/" + source.partition() + "/" + source.offset()));
        }
        return new Record<>(original.key(), original.value(), original.timestamp(), headers);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
