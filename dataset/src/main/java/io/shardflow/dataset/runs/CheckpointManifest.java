package io.shardflow.dataset.runs;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A training checkpoint's {@code MANIFEST.json} (dataset/FORMAT.md, "Training checkpoints"),
 * written last and create-only by the Python trainer API: the step exists once it does. Read by
 * {@link CheckpointManifestCodec}.
 *
 * @param readerState the ranks' reader states merged ({@code shardflow.read-state/2}), or null
 * @param datasets    the snapshots the reader position reads: what dataset expiry must keep
 */
public record CheckpointManifest(String run, long step, String attempt, Instant savedAt, int worldSize,
                                 List<RankFiles> ranks, JsonNode readerState, List<DatasetPin> datasets,
                                 Map<String, String> frameworks, JsonNode metadata) {

    public static final String FORMAT = "shardflow.training-checkpoint/1";

    /** One saved file: where, how big, its SHA-256, and how the trainer decodes it (torch, numpy, bytes). */
    public record SavedFile(String name, String kind, String key, long bytes, String sha256) {
    }

    public record RankFiles(int rank, List<SavedFile> files, JsonNode readerState) {
    }

    /** A snapshot the checkpoint needs; {@code sinceSnapshot} for a reader that reads only new shards. */
    public record DatasetPin(String dataset, String version, long snapshotId, OptionalLong sinceSnapshot) {

        /** The snapshots of this pin: the pinned one, and the one it reads on from. */
        public List<Long> snapshots() {
            return sinceSnapshot.isPresent() ? List.of(snapshotId, sinceSnapshot.getAsLong()) : List.of(snapshotId);
        }
    }

    public List<SavedFile> files() {
        return ranks.stream().flatMap(r -> r.files().stream()).toList();
    }

    public long bytes() {
        return files().stream().mapToLong(SavedFile::bytes).sum();
    }
}
