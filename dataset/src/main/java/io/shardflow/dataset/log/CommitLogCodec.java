package io.shardflow.dataset.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.internal.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON form of a {@link CommitEntry} ({@code log/<20-digit snapshot id>.json}), read by Java and
 * Python readers alike.
 *
 * <p>Fields are written in a fixed order. On read, unknown fields are ignored (a newer writer may
 * add optional fields) but an unknown {@code formatVersion} is refused: it announces a change an
 * old reader would misread.
 */
public final class CommitLogCodec {

    private static final String WHAT = "commit entry";

    public byte[] encode(CommitEntry entry) {
        return Json.pretty(toNode(entry));
    }

    /** The entry as a JSON tree: the same fields a log entry has (checkpoints embed entries this way). */
    ObjectNode toNode(CommitEntry entry) {
        ObjectNode root = Json.object();
        root.put("formatVersion", entry.formatVersion());
        root.put("snapshotId", entry.snapshotId());
        if (entry.kind() != EntryKind.APPEND) {
            // Absent means append, so version-1 entries keep their exact bytes.
            root.put("kind", entry.kind().wireName());
        }
        root.put("committer", entry.committer());
        root.put("committedAt", entry.committedAt().toString());
        ObjectNode offsets = root.putObject("sourceOffsets");
        entry.sourceOffsets().forEach(offsets::put);
        if (entry.kind() != EntryKind.APPEND) {
            ArrayNode removed = root.putArray("removedShards");
            entry.removedShards().forEach(removed::add);
            ObjectNode details = root.putObject("details");
            entry.details().forEach(details::put);
        }
        ArrayNode shards = root.putArray("addedShards");
        for (ShardEntry shard : entry.addedShards()) {
            ObjectNode node = shards.addObject();
            node.put("shardId", shard.shardId());
            node.put("objectKey", shard.objectKey());
            node.put("lane", shard.lane());
            node.put("sequence", shard.sequence());
            node.put("sampleCount", shard.sampleCount());
            node.put("bytes", shard.bytes());
            node.put("sha256", shard.sha256());
            node.put("specFingerprint", shard.specFingerprint());
            node.put("firstProducedAt", shard.firstProducedAt());
            node.put("lastProducedAt", shard.lastProducedAt());
            if (shard.hasPageIndex()) {
                // Only when there is one: entries of shards without an index keep their exact bytes.
                node.put("pageIndexSha256", shard.pageIndexSha256());
            }
        }
        return root;
    }

    public CommitEntry decode(byte[] json) {
        return fromNode(Json.parseObject(json, WHAT));
    }

    /** Reads an entry from its JSON tree; throws {@link IllegalArgumentException} for anything invalid. */
    CommitEntry fromNode(JsonNode root) {
        int formatVersion = Json.intValue(root, "formatVersion", WHAT);
        if (formatVersion != CommitEntry.FORMAT_VERSION && formatVersion != CommitEntry.LIFECYCLE_FORMAT_VERSION) {
            throw new IllegalArgumentException("commit entry has formatVersion " + formatVersion
                    + " but this reader understands only " + CommitEntry.FORMAT_VERSION + " and "
                    + CommitEntry.LIFECYCLE_FORMAT_VERSION + ": upgrade shardflow");
        }
        String kindName = Json.optionalText(root, "kind", WHAT);
        EntryKind kind = kindName == null ? EntryKind.APPEND : EntryKind.fromWire(kindName);
        List<String> removed = new ArrayList<>();
        Map<String, String> details = new LinkedHashMap<>();
        if (root.has("removedShards")) {
            for (JsonNode id : Json.array(root, "removedShards", WHAT)) {
                if (!id.isTextual()) {
                    throw new IllegalArgumentException("commit entry field 'removedShards' must hold strings");
                }
                removed.add(id.textValue());
            }
        }
        if (root.has("details")) {
            JsonNode detailsNode = root.get("details");
            if (!detailsNode.isObject()) {
                throw new IllegalArgumentException("commit entry field 'details' must be an object");
            }
            for (Map.Entry<String, JsonNode> e : detailsNode.properties()) {
                details.put(e.getKey(), Json.text(detailsNode, e.getKey(), "commit entry details"));
            }
        }
        Map<String, Long> offsets = new LinkedHashMap<>();
        JsonNode offsetsNode = Json.required(root, "sourceOffsets", WHAT);
        if (!offsetsNode.isObject()) {
            throw new IllegalArgumentException("commit entry field 'sourceOffsets' must be an object");
        }
        for (Map.Entry<String, JsonNode> e : offsetsNode.properties()) {
            offsets.put(e.getKey(), Json.longValue(offsetsNode, e.getKey(), "commit entry sourceOffsets"));
        }
        List<ShardEntry> shards = new ArrayList<>();
        for (JsonNode node : Json.array(root, "addedShards", WHAT)) {
            String what = "commit entry shard";
            shards.add(new ShardEntry(
                    Json.text(node, "shardId", what),
                    Json.text(node, "objectKey", what),
                    Json.intValue(node, "lane", what),
                    Json.longValue(node, "sequence", what),
                    Json.intValue(node, "sampleCount", what),
                    Json.longValue(node, "bytes", what),
                    Json.text(node, "sha256", what),
                    Json.text(node, "specFingerprint", what),
                    Json.longValue(node, "firstProducedAt", what),
                    Json.longValue(node, "lastProducedAt", what),
                    Json.optionalText(node, "pageIndexSha256", what)));
        }
        return new CommitEntry(
                formatVersion,
                Json.longValue(root, "snapshotId", WHAT),
                kind,
                shards,
                removed,
                details,
                Json.text(root, "committer", WHAT),
                offsets,
                Json.instant(root, "committedAt", WHAT));
    }
}
