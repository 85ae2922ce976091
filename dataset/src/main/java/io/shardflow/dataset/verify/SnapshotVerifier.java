package io.shardflow.dataset.verify;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardContents;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.store.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Checks a snapshot against the objects it names, from object storage alone: every shard object
 * exists with the recorded SHA-256, byte size and sample count, no object is referenced twice, and
 * no sample id appears twice. Each shard's rows can be handed to a visitor for deeper checks.
 */
public final class SnapshotVerifier {

    private final ObjectStore store;
    private final Path scratch;

    public SnapshotVerifier(ObjectStore store, Path scratch) {
        this.store = store;
        this.scratch = scratch;
    }

    public VerificationReport verify(Snapshot snapshot) {
        return verify(snapshot, row -> { });
    }

    public VerificationReport verify(Snapshot snapshot, Consumer<SampleRow> visitor) {
        List<String> problems = new ArrayList<>();
        Set<String> objectKeys = new HashSet<>();
        Map<String, Integer> idCounts = new HashMap<>();
        long samples = 0;
        for (ShardEntry entry : snapshot.shards()) {
            if (!objectKeys.add(entry.objectKey())) {
                problems.add("object " + entry.objectKey() + " is referenced twice");
                continue;
            }
            Path file = scratch.resolve("verify-" + entry.sequence() + "-" + entry.lane() + ".h5");
            try {
                store.download(entry.objectKey(), file);
                String sha = ShardDigest.sha256(file);
                if (!sha.equals(entry.sha256())) {
                    problems.add("shard " + entry.shardId() + " has sha256 " + sha + ", log says " + entry.sha256());
                }
                if (Files.size(file) != entry.bytes()) {
                    problems.add("shard " + entry.shardId() + " has " + Files.size(file) + " bytes, log says " + entry.bytes());
                }
                ShardContents contents = new ShardReader().read(file);
                if (contents.rows().size() != entry.sampleCount()) {
                    problems.add("shard " + entry.shardId() + " holds " + contents.rows().size() + " rows, log says "
                            + entry.sampleCount());
                }
                for (SampleRow row : contents.rows()) {
                    idCounts.merge(row.sampleId(), 1, Integer::sum);
                    visitor.accept(row);
                    samples++;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (RuntimeException e) {
                problems.add("shard " + entry.shardId() + " cannot be read: " + e.getMessage());
            } finally {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // scratch space; a leftover file is harmless
                }
            }
        }
        List<String> duplicates = idCounts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).sorted().toList();
        if (!duplicates.isEmpty()) {
            problems.add(duplicates.size() + " sample ids appear more than once, e.g. " + duplicates.get(0));
        }
        return new VerificationReport(snapshot.snapshotId(), snapshot.shards().size(), samples, Set.copyOf(idCounts.keySet()),
                duplicates, problems);
    }

    /** What {@link #verify} found; {@link #ok()} when there is nothing to report. */
    public record VerificationReport(long snapshotId, int shards, long samples, Set<String> sampleIds,
                                     List<String> duplicateIds, List<String> problems) {
        public boolean ok() {
            return problems.isEmpty();
        }
    }
}
