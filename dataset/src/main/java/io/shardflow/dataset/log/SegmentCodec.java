package io.shardflow.dataset.log;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

    /**
     * The checkpoint's format version (1: a whole snapshot, {@link CheckpointCodec}; 2: a segment),
     * read as a stream: the top-level fields are scanned and large arrays skipped, never held.
     */
    static int formatVersionOf(byte[] gzippedJson) {
        try (InputStream in = gunzip(gzippedJson); JsonParser p = Json.parser(in)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "the document must be a JSON object");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("formatVersion")) {
                    expect(value == JsonToken.VALUE_NUMBER_INT, "formatVersion must be an integer");
                    return p.getIntValue();
                }
                p.skipChildren();
            }
            throw new IllegalArgumentException(WHAT + " has no field 'formatVersion'");
        } catch (IOException e) {
            throw new IllegalArgumentException("checkpoint is not gzip-compressed JSON: " + e.getMessage(), e);
        }
    }

    /**
     * The checkpoint a checkpoint builds on (0 for none, and for a version-1 whole checkpoint), from
     * the start of its gzip stream: Java writes {@code base} before {@code entries}, so a caller may
     * pass only the first bytes of a large object (and read it whole if that throws).
     */
    static long baseOf(InputStream gzippedJson) {
        try (InputStream in = new GZIPInputStream(gzippedJson, 1 << 12); JsonParser p = Json.parser(in)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "the document must be a JSON object");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("formatVersion") && value == JsonToken.VALUE_NUMBER_INT
                        && p.getIntValue() == Checkpoint.FORMAT_VERSION) {
                    return 0;
                }
                if (field.equals("base")) {
                    expect(value == JsonToken.VALUE_NUMBER_INT, "base must be an integer");
                    return p.getLongValue();
                }
                p.skipChildren();
            }
            throw new IllegalArgumentException(WHAT + " has no field 'base'");
        } catch (IOException e) {
            throw new IllegalArgumentException("checkpoint is not gzip-compressed JSON: " + e.getMessage(), e);
        }
    }

    /**
     * Throws {@link IllegalArgumentException} for anything that is not a valid version-2 checkpoint.
     * Streams: one entry's tree at a time, so a segment of 100,000 shards is never held as one tree.
     */
    public CheckpointSegment decode(byte[] gzippedJson) {
        Map<String, JsonNode> scalars = new HashMap<>();
        List<CommitEntry> list = null;
        try (InputStream in = gunzip(gzippedJson); JsonParser p = Json.parser(in)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "the document must be a JSON object");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("entries")) {
                    expect(value == JsonToken.START_ARRAY, "entries must be an array");
                    list = new ArrayList<>();
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        list.add(entries.fromNode(Json.readTree(p)));
                    }
                } else {
                    scalars.put(field, Json.readTree(p));
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("checkpoint is not gzip-compressed JSON: " + e.getMessage(), e);
        }
        ObjectNode root = Json.object();
        scalars.forEach(root::set);
        int format = Json.intValue(root, "formatVersion", WHAT);
        if (format != CheckpointSegment.FORMAT_VERSION) {
            throw new IllegalArgumentException("checkpoint has formatVersion " + format + ", expected "
                    + CheckpointSegment.FORMAT_VERSION);
        }
        expect(list != null, "checkpoint has no field 'entries'");
        return new CheckpointSegment(Json.text(root, "dataset", WHAT), Json.text(root, "version", WHAT),
                Json.longValue(root, "snapshotId", WHAT), Json.longValue(root, "base", WHAT), list);
    }

    private static InputStream gunzip(byte[] gzippedJson) throws IOException {
        return new GZIPInputStream(new ByteArrayInputStream(gzippedJson), 1 << 16);
    }

    private static void expect(boolean condition, String problem) {
        if (!condition) {
            throw new IllegalArgumentException(WHAT + ": " + problem);
        }
    }
}
