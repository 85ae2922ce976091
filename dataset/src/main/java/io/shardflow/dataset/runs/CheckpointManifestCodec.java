package io.shardflow.dataset.runs;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardflow.dataset.internal.Json;
import io.shardflow.dataset.runs.CheckpointManifest.DatasetPin;
import io.shardflow.dataset.runs.CheckpointManifest.RankFiles;
import io.shardflow.dataset.runs.CheckpointManifest.SavedFile;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Parses and checks a manifest read from {@code runs/<run>/step-<step>/MANIFEST.json}: the format,
 * that it is stored where it says it belongs, and that every file it names lies in its own attempt
 * folder (a manifest cannot make garbage collection keep, or verification read, anything else).
 */
public final class CheckpointManifestCodec {

    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    private CheckpointManifestCodec() {
    }

    public static CheckpointManifest decode(byte[] bytes, String run, long step) {
        String what = RunLayout.manifestKey(run, step);
        JsonNode doc = Json.parseObject(bytes, what);
        String format = Json.optionalText(doc, "format", what);
        if (!CheckpointManifest.FORMAT.equals(format)) {
            throw new IllegalArgumentException(what + ": format '" + format + "', expected '"
                    + CheckpointManifest.FORMAT + "' (written by a newer shardflow?)");
        }
        CheckpointManifest manifest = new CheckpointManifest(Json.text(doc, "run", what), Json.longValue(doc, "step", what),
                Json.text(doc, "attempt", what), Json.instant(doc, "savedAt", what), Json.intValue(doc, "worldSize", what),
                ranks(Json.array(doc, "ranks", what), what), nullable(doc.get("readerState")),
                datasets(doc.get("datasets"), what), frameworks(doc.get("frameworks")), nullable(doc.get("metadata")));
        if (!manifest.run().equals(run) || manifest.step() != step) {
            throw new IllegalArgumentException(what + " says run '" + manifest.run() + "' step " + manifest.step()
                    + ", but it is stored as run '" + run + "' step " + step);
        }
        Set<String> seen = new HashSet<>();
        for (RankFiles rank : manifest.ranks()) {
            for (SavedFile file : rank.files()) {
                String expected = RunLayout.fileKey(run, step, manifest.attempt(), rank.rank(), file.name());
                if (!file.key().equals(expected)) {
                    throw new IllegalArgumentException(what + ": file '" + file.name() + "' of rank " + rank.rank()
                            + " is stored at '" + file.key() + "', expected '" + expected + "'");
                }
                if (file.bytes() < 0 || !SHA256.matcher(file.sha256()).matches() || !seen.add(file.key())) {
                    throw new IllegalArgumentException(what + ": bad entry for '" + file.key() + "'");
                }
            }
        }
        return manifest;
    }

    private static List<RankFiles> ranks(JsonNode array, String what) {
        List<RankFiles> ranks = new ArrayList<>();
        for (JsonNode rank : array) {
            List<SavedFile> files = new ArrayList<>();
            for (JsonNode f : Json.array(rank, "files", what)) {
                files.add(new SavedFile(Json.text(f, "name", what), Json.text(f, "kind", what), Json.text(f, "key", what),
                        Json.longValue(f, "bytes", what), Json.text(f, "sha256", what)));
            }
            ranks.add(new RankFiles(Json.intValue(rank, "rank", what), List.copyOf(files), nullable(rank.get("readerState"))));
        }
        return List.copyOf(ranks);
    }

    private static List<DatasetPin> datasets(JsonNode array, String what) {
        List<DatasetPin> pins = new ArrayList<>();
        if (array != null && array.isArray()) {
            for (JsonNode d : array) {
                JsonNode since = d.get("sinceSnapshot");
                pins.add(new DatasetPin(Json.text(d, "dataset", what), Json.text(d, "version", what),
                        Json.longValue(d, "snapshotId", what),
                        since == null || since.isNull() ? OptionalLong.empty() : OptionalLong.of(since.longValue())));
            }
        }
        return List.copyOf(pins);
    }

    private static Map<String, String> frameworks(JsonNode node) {
        Map<String, String> out = new LinkedHashMap<>();
        if (node != null && node.isObject()) {
            node.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        }
        return out;
    }

    private static JsonNode nullable(JsonNode node) {
        return node == null || node.isNull() ? null : node;
    }
}
