package io.shardflow.dataset.log;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The gzip-compressed JSON form of a {@link Checkpoint}, read by Java and Python readers alike
 * ({@code dataset/FORMAT.md}).
 *
 * <p>Streams in both directions: a checkpoint of 100,000 shards is ~40 MB of JSON, which a tree
 * model would hold twice. Compact JSON, fields in a fixed order, shard objects with exactly the
 * fields of a commit entry's {@code addedShards}. Unknown fields are skipped on read; an unknown
 * {@code formatVersion} is refused. Compression uses level 1: checkpoints are written on the commit
 * path, and the SHA-256 digests, which dominate the compressed size, do not compress anyway.
 */
public final class CheckpointCodec {

    private static final JsonFactory JSON = new JsonFactory();
    private static final String WHAT = "checkpoint";

    public byte[] encode(Checkpoint checkpoint) {
        if (checkpoint.formatVersion() != Checkpoint.FORMAT_VERSION) {
            throw new IllegalArgumentException("cannot encode checkpoint formatVersion " + checkpoint.formatVersion()
                    + ", only " + Checkpoint.FORMAT_VERSION);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + checkpoint.shards().size() * 64);
        try (OutputStream gzip = new FastGzipOutputStream(bytes); JsonGenerator out = JSON.createGenerator(gzip)) {
            out.writeStartObject();
            out.writeNumberField("formatVersion", checkpoint.formatVersion());
            out.writeStringField("dataset", checkpoint.dataset());
            out.writeStringField("version", checkpoint.version());
            out.writeNumberField("snapshotId", checkpoint.snapshotId());
            out.writeObjectFieldStart("sourceOffsets");
            for (Map.Entry<String, Long> e : checkpoint.sourceOffsets().entrySet()) {
                out.writeNumberField(e.getKey(), e.getValue());
            }
            out.writeEndObject();
            out.writeArrayFieldStart("commits");
            for (CommitInfo commit : checkpoint.commits()) {
                out.writeStartObject();
                out.writeNumberField("snapshotId", commit.snapshotId());
                out.writeStringField("committer", commit.committer());
                out.writeStringField("committedAt", commit.committedAt().toString());
                out.writeNumberField("addedShardCount", commit.addedShardCount());
                out.writeEndObject();
            }
            out.writeEndArray();
            out.writeArrayFieldStart("shards");
            for (ShardEntry shard : checkpoint.shards()) {
                out.writeStartObject();
                out.writeStringField("shardId", shard.shardId());
                out.writeStringField("objectKey", shard.objectKey());
                out.writeNumberField("lane", shard.lane());
                out.writeNumberField("sequence", shard.sequence());
                out.writeNumberField("sampleCount", shard.sampleCount());
                out.writeNumberField("bytes", shard.bytes());
                out.writeStringField("sha256", shard.sha256());
                out.writeStringField("specFingerprint", shard.specFingerprint());
                out.writeNumberField("firstProducedAt", shard.firstProducedAt());
                out.writeNumberField("lastProducedAt", shard.lastProducedAt());
                out.writeEndObject();
            }
            out.writeEndArray();
            out.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode checkpoint " + checkpoint.snapshotId(), e);
        }
        return bytes.toByteArray();
    }

    /** Throws {@link IllegalArgumentException} for anything that is not a valid checkpoint. */
    public Checkpoint decode(byte[] gzippedJson) {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gzippedJson), 1 << 16);
             JsonParser p = JSON.createParser(in)) {
            expect(p.nextToken(), JsonToken.START_OBJECT, "the document");
            Integer formatVersion = null;
            String dataset = null;
            String version = null;
            Long snapshotId = null;
            Map<String, Long> offsets = null;
            List<CommitInfo> commits = null;
            List<ShardEntry> shards = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "formatVersion" -> {
                        formatVersion = (int) integer(p, value, field);
                        if (formatVersion != Checkpoint.FORMAT_VERSION) {
                            throw new IllegalArgumentException("checkpoint has formatVersion " + formatVersion
                                    + " but this reader understands only " + Checkpoint.FORMAT_VERSION + ": upgrade shardflow");
                        }
                    }
                    case "dataset" -> dataset = text(p, value, field);
                    case "version" -> version = text(p, value, field);
                    case "snapshotId" -> snapshotId = integer(p, value, field);
                    case "sourceOffsets" -> offsets = offsets(p, value);
                    case "commits" -> commits = commits(p, value);
                    case "shards" -> shards = shards(p, value);
                    default -> p.skipChildren();
                }
            }
            return new Checkpoint(
                    required(formatVersion, "formatVersion"),
                    required(dataset, "dataset"),
                    required(version, "version"),
                    required(snapshotId, "snapshotId"),
                    required(offsets, "sourceOffsets"),
                    required(commits, "commits"),
                    required(shards, "shards"));
        } catch (IOException e) {
            throw new IllegalArgumentException("checkpoint is not gzip-compressed JSON: " + e.getMessage(), e);
        }
    }

    private static Map<String, Long> offsets(JsonParser p, JsonToken value) throws IOException {
        expect(value, JsonToken.START_OBJECT, "sourceOffsets");
        Map<String, Long> offsets = new TreeMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String source = p.currentName();
            offsets.put(source, integer(p, p.nextToken(), "sourceOffsets." + source));
        }
        return offsets;
    }

    private static List<CommitInfo> commits(JsonParser p, JsonToken value) throws IOException {
        expect(value, JsonToken.START_ARRAY, "commits");
        List<CommitInfo> commits = new ArrayList<>();
        while (p.nextToken() == JsonToken.START_OBJECT) {
            Long snapshotId = null;
            String committer = null;
            Instant committedAt = null;
            Long added = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken token = p.nextToken();
                switch (field) {
                    case "snapshotId" -> snapshotId = integer(p, token, "commits[].snapshotId");
                    case "committer" -> committer = text(p, token, "commits[].committer");
                    case "committedAt" -> committedAt = instant(text(p, token, "commits[].committedAt"));
                    case "addedShardCount" -> added = integer(p, token, "commits[].addedShardCount");
                    default -> p.skipChildren();
                }
            }
            commits.add(new CommitInfo(required(snapshotId, "commits[].snapshotId"), required(committer, "commits[].committer"),
                    required(committedAt, "commits[].committedAt"),
                    Math.toIntExact(required(added, "commits[].addedShardCount"))));
        }
        expect(p.currentToken(), JsonToken.END_ARRAY, "commits");
        return commits;
    }

    private static List<ShardEntry> shards(JsonParser p, JsonToken value) throws IOException {
        expect(value, JsonToken.START_ARRAY, "shards");
        List<ShardEntry> shards = new ArrayList<>();
        // Nearly every shard of a version has the same fingerprint: keep one copy, not 100,000.
        Map<String, String> fingerprints = new java.util.HashMap<>();
        while (p.nextToken() == JsonToken.START_OBJECT) {
            String shardId = null;
            String objectKey = null;
            String sha256 = null;
            String fingerprint = null;
            long[] numbers = new long[6];
            int seen = 0;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken token = p.nextToken();
                switch (field) {
                    case "shardId" -> shardId = text(p, token, "shards[].shardId");
                    case "objectKey" -> objectKey = text(p, token, "shards[].objectKey");
                    case "sha256" -> sha256 = text(p, token, "shards[].sha256");
                    case "specFingerprint" -> fingerprint = fingerprints.computeIfAbsent(
                            text(p, token, "shards[].specFingerprint"), f -> f);
                    case "lane" -> seen |= number(p, token, field, numbers, 0);
                    case "sequence" -> seen |= number(p, token, field, numbers, 1);
                    case "sampleCount" -> seen |= number(p, token, field, numbers, 2);
                    case "bytes" -> seen |= number(p, token, field, numbers, 3);
                    case "firstProducedAt" -> seen |= number(p, token, field, numbers, 4);
                    case "lastProducedAt" -> seen |= number(p, token, field, numbers, 5);
                    default -> p.skipChildren();
                }
            }
            if (shardId == null || objectKey == null || sha256 == null || fingerprint == null || seen != 0b111111) {
                throw new IllegalArgumentException("checkpoint shard #" + shards.size() + " (" + shardId
                        + ") lacks one of the ten shard fields");
            }
            shards.add(new ShardEntry(shardId, objectKey, Math.toIntExact(numbers[0]), numbers[1],
                    Math.toIntExact(numbers[2]), numbers[3], sha256, fingerprint, numbers[4], numbers[5]));
        }
        expect(p.currentToken(), JsonToken.END_ARRAY, "shards");
        return shards;
    }

    private static int number(JsonParser p, JsonToken token, String field, long[] numbers, int slot) throws IOException {
        numbers[slot] = integer(p, token, "shards[]." + field);
        return 1 << slot;
    }

    private static long integer(JsonParser p, JsonToken token, String field) throws IOException {
        if (token != JsonToken.VALUE_NUMBER_INT) {
            throw new IllegalArgumentException(WHAT + " field '" + field + "' must be an integer");
        }
        return p.getLongValue();
    }

    private static String text(JsonParser p, JsonToken token, String field) throws IOException {
        if (token != JsonToken.VALUE_STRING) {
            throw new IllegalArgumentException(WHAT + " field '" + field + "' must be a string");
        }
        return p.getText();
    }

    private static Instant instant(String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(WHAT + " commit time is not an ISO-8601 instant: " + text, e);
        }
    }

    private static void expect(JsonToken actual, JsonToken expected, String what) {
        if (actual != expected) {
            throw new IllegalArgumentException(WHAT + ": " + what + " must start with " + expected.asString()
                    + ", found " + actual);
        }
    }

    private static <T> T required(T value, String field) {
        if (value == null) {
            throw new IllegalArgumentException(WHAT + " has no field '" + field + "'");
        }
        return value;
    }

    /** gzip at deflate level 1. */
    private static final class FastGzipOutputStream extends GZIPOutputStream {
        FastGzipOutputStream(OutputStream out) throws IOException {
            super(out, 1 << 16);
            def.setLevel(Deflater.BEST_SPEED);
        }
    }
}
