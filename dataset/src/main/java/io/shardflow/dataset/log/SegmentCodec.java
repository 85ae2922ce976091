package io.shardflow.dataset.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.internal.Json;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The gzip-compressed JSON form of a {@link CheckpointSegment}: the entries in exactly the JSON of
 * log entries, so one parser serves both. Level 1, as for version-1 checkpoints: the SHA-256 digests
 * dominate and do not compress.
 */
public final class SegmentCodec {

    private static final String WHAT = "checkpoint";
    private final CommitLogCodec entries = new CommitLogCodec();

    public byte[] encode(CheckpointSegment segment) {
        ObjectNode root = Json.object();
        root.put("formatVersion", CheckpointSegment.FORMAT_VERSION);
        root.put("dataset", segment.dataset());
        root.put("version", segment.version());
        root.put("snapshotId", segment.snapshotId());
        root.put("base", segment.base());
        ArrayNode list = root.putArray("entries");
        segment.entries().forEach(entry -> list.add(entries.toNode(entry)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream gzip = new GZIPOutputStream(bytes, 1 << 16) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        }) {
            gzip.write(Json.compact(root).getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode checkpoint " + segment.snapshotId(), e);
        }
        return bytes.toByteArray();
    }

    /** The checkpoint's format version (1: a whole snapshot, {@link CheckpointCodec}; 2: a segment). */
    static int formatVersionOf(JsonNode root) {
        return Json.intValue(root, "formatVersion", WHAT);
    }

    static JsonNode parse(byte[] gzippedJson) {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gzippedJson), 1 << 16)) {
            return Json.parseObject(in.readAllBytes(), WHAT);
        } catch (IOException e) {
            throw new IllegalArgumentException("checkpoint is not gzip-compressed JSON: " + e.getMessage(), e);
        }
    }

    /** Throws {@link IllegalArgumentException} for anything that is not a valid version-2 checkpoint. */
    public CheckpointSegment decode(byte[] gzippedJson) {
        return fromNode(parse(gzippedJson));
    }

    CheckpointSegment fromNode(JsonNode root) {
        int format = formatVersionOf(root);
        if (format != CheckpointSegment.FORMAT_VERSION) {
            throw new IllegalArgumentException("checkpoint has formatVersion " + format + ", expected "
                    + CheckpointSegment.FORMAT_VERSION);
        }
        List<CommitEntry> list = new ArrayList<>();
        for (JsonNode node : Json.array(root, "entries", WHAT)) {
            list.add(entries.fromNode(node));
        }
        return new CheckpointSegment(Json.text(root, "dataset", WHAT), Json.text(root, "version", WHAT),
                Json.longValue(root, "snapshotId", WHAT), Json.longValue(root, "base", WHAT), list);
    }
}
