package io.shardflow.reader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.internal.Json;
import java.nio.charset.StandardCharsets;

/**
 * Where a reader is: enough for a new reader with the same split and buffer settings to yield
 * exactly the samples this one has not yielded yet ({@link ReaderOptions#resumeFrom}). Save it with
 * a training checkpoint; {@link #toJson()} is one line.
 *
 * @param snapshotId     the pinned snapshot (in follow mode: the one the reader started from)
 * @param samplesYielded samples this worker has yielded so far in this epoch
 */
public record ReaderState(long epoch, long seed, long snapshotId, long samplesYielded) {

    public ReaderState {
        if (epoch < 0 || seed < 0 || snapshotId < 0 || samplesYielded < 0) {
            throw new IllegalArgumentException("reader state values must be >= 0: epoch " + epoch + ", seed " + seed
                    + ", snapshot " + snapshotId + ", samples " + samplesYielded);
        }
    }

    public String toJson() {
        ObjectNode node = Json.object();
        node.put("epoch", epoch);
        node.put("seed", seed);
        node.put("snapshotId", snapshotId);
        node.put("samplesYielded", samplesYielded);
        return Json.compact(node);
    }

    public static ReaderState fromJson(String json) {
        String what = "reader state";
        JsonNode node = Json.parseObject(json.getBytes(StandardCharsets.UTF_8), what);
        return new ReaderState(Json.longValue(node, "epoch", what), Json.longValue(node, "seed", what),
                Json.longValue(node, "snapshotId", what), Json.longValue(node, "samplesYielded", what));
    }
}
