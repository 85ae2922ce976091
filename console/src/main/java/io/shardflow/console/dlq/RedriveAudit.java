package io.shardflow.console.dlq;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The record of every redrive, one object per dead letter, written create-only next to the datasets:
 * {@code audit/redrive/<dlq topic>/<partition>/<offset>.json} with who, when, why and where the record
 * went. A dead letter with an audit record is not redriven again (unless asked), and the console marks
 * it as redriven. Listing this prefix is fine: it names dead letters, not data.
 */
public final class RedriveAudit {

    static final String PREFIX = "audit/redrive/";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ObjectStore store;

    public RedriveAudit(ObjectStore store) {
        this.store = store;
    }

    /** What one redrive did. */
    public record Entry(String deadLetter, String reason, String by, String note, Instant at, String target, long targetOffset) {
    }

    public static String key(DeadLetter letter) {
        return PREFIX + letter.topic() + "/" + letter.partition() + "/" + String.format("%020d", letter.offset()) + ".json";
    }

    public boolean exists(DeadLetter letter) {
        return store.head(key(letter)).isPresent();
    }

    /** Writes the record create-only; CREATED or ALREADY_EXISTS (a second redrive of the same letter keeps the first record). */
    public PutOutcome record(DeadLetter letter, Entry entry) {
        ObjectNode node = JSON.createObjectNode();
        node.put("formatVersion", 1);
        node.put("deadLetter", entry.deadLetter());
        node.put("reason", entry.reason());
        node.put("by", entry.by());
        node.put("note", entry.note());
        node.put("at", entry.at().toString());
        node.put("target", entry.target());
        node.put("targetOffset", entry.targetOffset());
        try {
            return store.putIfAbsent(key(letter), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(node));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The addresses ({@code topic/partition/offset}) of every redriven dead letter of {@code topic}. */
    public Set<String> redriven(String topic) {
        Set<String> out = new HashSet<>();
        String prefix = PREFIX + topic + "/";
        String after = null;
        while (true) {
            List<String> keys = store.list(prefix, after, 1000);
            for (String key : keys) {
                String[] parts = key.substring(prefix.length()).replace(".json", "").split("/");
                if (parts.length == 2 && parts[0].matches("\\d+") && parts[1].matches("\\d{1,20}")) {
                    out.add(topic + "/" + parts[0] + "/" + Long.parseLong(parts[1]));
                }
            }
            if (keys.size() < 1000) {
                return out;
            }
            after = keys.get(keys.size() - 1);
        }
    }
}
