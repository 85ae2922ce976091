package io.shardflow.dataset.quarantine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.internal.Json;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The quarantine records of a dataset version. Records are written create-only: writing the same
 * shard again (a sink that crashed after the write and replays) keeps the first record. Listing
 * is fine here, unlike on the data path: quarantine is rare and read only by people and tools.
 */
public final class QuarantineLog {

    private static final String WHAT = "quarantine record";
    private static final int PAGE = 1000;

    private final ObjectStore store;

    public QuarantineLog(ObjectStore store) {
        this.store = store;
    }

    /** Writes the record unless one exists for the shard; either way it is durable on return. */
    public PutOutcome record(QuarantinedShard shard) {
        return store.putIfAbsent(DatasetLayout.quarantineKey(ShardId.parse(shard.shardId())), encode(shard));
    }

    /** Every record of the version, in shard order. */
    public List<QuarantinedShard> list(String dataset, String version) {
        String prefix = DatasetLayout.quarantinePrefix(dataset, version);
        List<QuarantinedShard> records = new ArrayList<>();
        String after = null;
        while (true) {
            List<String> keys = store.list(prefix, after, PAGE);
            for (String key : keys) {
                if (key.endsWith(".json")) {
                    store.get(key).map(QuarantineLog::decode).ifPresent(records::add);
                }
            }
            if (keys.size() < PAGE) {
                return records;
            }
            after = keys.get(keys.size() - 1);
        }
    }

    static byte[] encode(QuarantinedShard shard) {
        ObjectNode root = Json.object();
        root.put("formatVersion", QuarantinedShard.FORMAT_VERSION);
        root.put("shardId", shard.shardId());
        root.put("objectKey", shard.objectKey());
        root.put("reason", shard.reason());
        root.put("detail", shard.detail());
        root.put("sampleCount", shard.sampleCount());
        root.put("specFingerprint", shard.specFingerprint());
        ObjectNode offsets = root.putObject("sourceOffsets");
        shard.sourceOffsets().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> offsets.put(e.getKey(), e.getValue()));
        root.put("quarantinedBy", shard.quarantinedBy());
        root.put("quarantinedAt", shard.quarantinedAt().toString());
        return Json.pretty(root);
    }

    static QuarantinedShard decode(byte[] bytes) {
        JsonNode root = Json.parseObject(bytes, WHAT);
        int format = Json.intValue(root, "formatVersion", WHAT);
        if (format != QuarantinedShard.FORMAT_VERSION) {
            throw new IllegalArgumentException(WHAT + " has formatVersion " + format + ", this reader knows "
                    + QuarantinedShard.FORMAT_VERSION);
        }
        Map<String, Long> offsets = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = Json.required(root, "sourceOffsets", WHAT).fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            offsets.put(e.getKey(), e.getValue().asLong());
        }
        return new QuarantinedShard(Json.text(root, "shardId", WHAT), Json.text(root, "objectKey", WHAT),
                Json.text(root, "reason", WHAT), Json.text(root, "detail", WHAT), Json.intValue(root, "sampleCount", WHAT),
                Json.text(root, "specFingerprint", WHAT), offsets, Json.text(root, "quarantinedBy", WHAT),
                Json.instant(root, "quarantinedAt", WHAT));
    }
}
