package io.shardflow.ingest.dedupe;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Where a record sits in its producer's durable queue: the queue's id and the entry's sequence
 * number, from the headers {@code shardflow.queue} and {@code shardflow.seq} (decimal) that the
 * edge SDKs set on every queued send. A queue numbers its entries 1, 2, 3, ... and sends them in that
 * order, so per partition a record whose seq is not above the highest seen is a resend
 * (docs/ARCHITECTURE.md § 1, resends from a device's queue).
 */
public record QueueSequence(String queueId, long seq) {

    public static final String QUEUE_HEADER = "shardflow.queue";
    public static final String SEQ_HEADER = "shardflow.seq";
    private static final Pattern QUEUE_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /** The record's queue position; empty when it carries neither header (a producer without a queue). */
    public static Optional<QueueSequence> of(Headers headers) {
        Header queue = headers.lastHeader(QUEUE_HEADER);
        Header seq = headers.lastHeader(SEQ_HEADER);
        if (queue == null && seq == null) {
            return Optional.empty();
        }
        if (queue == null || seq == null || queue.value() == null || seq.value() == null) {
            throw new MalformedSequenceException("a record carries only one of the headers " + QUEUE_HEADER + " and " + SEQ_HEADER);
        }
        String id = new String(queue.value(), StandardCharsets.UTF_8);
        String number = new String(seq.value(), StandardCharsets.UTF_8);
        if (!QUEUE_ID.matcher(id).matches()) {
            throw new MalformedSequenceException("header " + QUEUE_HEADER + " is not 1-64 characters of [A-Za-z0-9_-]");
        }
        if (number.isEmpty() || number.length() > 19 || !number.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new MalformedSequenceException("header " + SEQ_HEADER + " is not a decimal number: '"
                    + number.substring(0, Math.min(32, number.length())) + "'");
        }
        long value = Long.parseLong(number);
        if (value < 1) {
            throw new MalformedSequenceException("header " + SEQ_HEADER + " must be at least 1, got " + value);
        }
        return Optional.of(new QueueSequence(id, value));
    }

    /** The headers are present but unusable: the record is dead-lettered as INVALID_FIELD. */
    public static final class MalformedSequenceException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        MalformedSequenceException(String message) {
            super(message);
        }
    }
}
