package io.shardflow.dataset.runs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.internal.Json;
import io.shardflow.dataset.store.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Writes training checkpoints the way the Python trainer API does (files, then the manifest, then
 * the pointer), for tests of the Java side: whole saves, and saves killed before their manifest.
 */
public final class SavedRuns {

    private final ObjectStore store;

    public SavedRuns(ObjectStore store) {
        this.store = store;
    }

    /** A snapshot a checkpoint's reader reads. */
    public record Pin(String dataset, String version, long snapshotId) {
    }

    public static String attempt(int n) {
        return String.format("%016x", n);
    }

    /** A whole save: every rank's files, the manifest, the pointer. Returns the keys of the files. */
    public List<String> save(String run, long step, String attempt, Map<Integer, List<String>> filesPerRank,
                             List<Pin> pins) {
        List<String> keys = new ArrayList<>();
        ObjectNode manifest = Json.object().put("format", CheckpointManifest.FORMAT).put("run", run).put("step", step)
                .put("attempt", attempt).put("savedAt", "2026-05-01T10:00:00.000Z").put("worldSize", filesPerRank.size());
        ArrayNode datasets = manifest.putArray("datasets");
        pins.forEach(p -> datasets.addObject().put("dataset", p.dataset()).put("version", p.version())
                .put("snapshotId", p.snapshotId()).putNull("sinceSnapshot"));
        manifest.putNull("readerState");
        ArrayNode ranks = manifest.putArray("ranks");
        filesPerRank.forEach((rank, names) -> {
            ObjectNode r = ranks.addObject().put("rank", rank);
            r.putNull("readerState");
            ArrayNode files = r.putArray("files");
            for (String name : names) {
                String key = RunLayout.fileKey(run, step, attempt, rank, name);
                byte[] content = (key + " content").getBytes(StandardCharsets.UTF_8);
                store.putIfAbsent(key, content);
                keys.add(key);
                files.addObject().put("name", name).put("kind", "bytes").put("key", key).put("bytes", content.length)
                        .put("sha256", sha256(content));
            }
        });
        manifest.putObject("frameworks").put("python", "3.11.2");
        manifest.putObject("metadata");
        store.putIfAbsent(RunLayout.manifestKey(run, step), Json.pretty(manifest));
        store.putIfAbsent(RunLayout.pointerKey(run, step), ("{\"step\": " + step + "}").getBytes(StandardCharsets.UTF_8));
        return keys;
    }

    /** A save killed before its manifest: some files only. */
    public List<String> partial(String run, long step, String attempt, List<String> names) {
        List<String> keys = new ArrayList<>();
        for (String name : names) {
            String key = RunLayout.fileKey(run, step, attempt, 0, name);
            store.putIfAbsent(key, "partial".getBytes(StandardCharsets.UTF_8));
            keys.add(key);
        }
        return keys;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
