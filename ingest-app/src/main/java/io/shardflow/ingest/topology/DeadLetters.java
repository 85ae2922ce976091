package io.shardflow.ingest.topology;

import io.shardflow.app.validate.Rejection;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Builds the dead-letter record for a refused input: the original key, value and headers untouched,
 * plus headers that say why and where it came from, so it can be inspected or replayed.
 *
 * <p>A dead letter must itself fit the dead-letter topic, or writing it would fail the stream
 * thread on the very record it was meant to set aside. So the detail is cut to
 * {@link #MAX_DETAIL_BYTES}, and if the record would still exceed {@code maxBytes} (the original was
 * larger than the topics are set up for) its value, then its original headers, are left out; the
 * {@link #DROPPED_HEADER} says what was left out and how big it was, and the source header still
 * points at the original.
 */
public final class DeadLetters {

    public static final String REASON_HEADER = "shardflow.dlq.reason";
    public static final String DETAIL_HEADER = "shardflow.dlq.detail";
    public static final String SOURCE_HEADER = "shardflow.dlq.source";
    public static final String DROPPED_HEADER = "shardflow.dlq.dropped";

    /** Longest detail header, in UTF-8 bytes: enough for any sentence, whatever names it repeats. */
    public static final int MAX_DETAIL_BYTES = 1024;
    /** Kafka's per-record and per-header framing, generously rounded up, so the estimate is never low. */
    private static final int RECORD_OVERHEAD = 128;
    private static final int HEADER_OVERHEAD = 16;
    private static final String ELLIPSIS = "...";

    private final long maxBytes;

    /** @param maxBytes largest dead letter to write; at most the dead-letter topic's {@code max.message.bytes} */
    public DeadLetters(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    public Record<byte[], byte[]> of(Record<byte[], byte[]> original, Rejection rejection, RecordMetadata source) {
        Headers ours = new RecordHeaders();
        ours.add(REASON_HEADER, utf8(rejection.reason().name()));
        ours.add(DETAIL_HEADER, truncate(rejection.detail(), MAX_DETAIL_BYTES));
        if (source != null) {
            ours.add(SOURCE_HEADER, utf8(source.topic() + "/" + source.partition() + "/" + source.offset()));
        }
        Headers theirs = new RecordHeaders(original.headers().toArray());
        theirs.remove(REASON_HEADER).remove(DETAIL_HEADER).remove(SOURCE_HEADER).remove(DROPPED_HEADER);
        byte[] value = original.value();

        long fixed = RECORD_OVERHEAD + length(original.key()) + size(ours) + HEADER_OVERHEAD + 64;
        StringBuilder dropped = new StringBuilder();
        if (fixed + length(value) + size(theirs) > maxBytes && value != null) {
            dropped.append("value=").append(value.length).append(" bytes");
            value = null;
        }
        if (fixed + size(theirs) > maxBytes) {
            dropped.append(dropped.isEmpty() ? "" : ", ").append("headers=").append(size(theirs)).append(" bytes");
            theirs = new RecordHeaders();
        }
        Headers headers = new RecordHeaders(theirs.toArray());
        ours.forEach(headers::add);
        if (!dropped.isEmpty()) {
            headers.add(DROPPED_HEADER, utf8(dropped.toString()));
        }
        return new Record<>(original.key(), value, original.timestamp(), headers);
    }

    /** Cuts {@code text} to at most {@code maxBytes} of UTF-8, on a character boundary, marking the cut. */
    static byte[] truncate(String text, int maxBytes) {
        byte[] whole = utf8(text);
        if (whole.length <= maxBytes) {
            return whole;
        }
        int end = maxBytes - ELLIPSIS.length();
        // Step back over UTF-8 continuation bytes (10xxxxxx) so no character is split.
        while (end > 0 && (whole[end] & 0xC0) == 0x80) {
            end--;
        }
        byte[] cut = new byte[end + ELLIPSIS.length()];
        System.arraycopy(whole, 0, cut, 0, end);
        System.arraycopy(utf8(ELLIPSIS), 0, cut, end, ELLIPSIS.length());
        return cut;
    }

    private static long size(Headers headers) {
        long total = 0;
        for (Header h : headers) {
            total += HEADER_OVERHEAD + utf8(h.key()).length + length(h.value());
        }
        return total;
    }

    private static int length(byte[] bytes) {
        return bytes == null ? 0 : bytes.length;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
