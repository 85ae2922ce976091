package io.shardflow.dataset.verify;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.pages.PageIndexCheck;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardContents;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.store.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Checks a snapshot against the objects it names, from object storage alone (docs/ARCHITECTURE.md,
 * invariants 1, 2 and 5): every shard object exists with the recorded SHA-256, byte size and sample
 * count, with a sound page index where its entry names one, no shard and no object is in the
 * snapshot twice, and no sample id appears twice. With the
 * version's spec it also checks every shard's spec fingerprint and that the checkpoints agree with
 * the log entries read one by one. Each shard's rows can be handed to a visitor for deeper checks
 * (the chaos harness compares them with what was published). The one verifier of the project:
 * {@code dataset verify}, the quickstart, the chaos checker and the tests use it.
 */
public final class SnapshotVerifier {

    private final ObjectStore store;
    private final Path scratch;
    private final ShardReader reader = new ShardReader();

    public SnapshotVerifier(ObjectStore store, Path scratch) {
        this.store = store;
        this.scratch = scratch;
    }

    public VerificationReport verify(Snapshot snapshot) {
        return verify(snapshot, (shard, row) -> { });
    }

    /** Also checks each shard's spec fingerprint against {@code spec}, and the checkpoints against the entries. */
    public VerificationReport verify(DatasetSpec spec, Snapshot snapshot, Clock clock) {
        VerificationReport shards = verify(snapshot);
        List<String> problems = new ArrayList<>(checkpointProblems(snapshot, clock));
        for (ShardEntry shard : snapshot.shards()) {
            if (!shard.specFingerprint().equals(spec.fingerprint())) {
                problems.add("shard " + shard.shardId() + " has spec fingerprint " + shard.specFingerprint()
                        + ", the version's spec has " + spec.fingerprint());
            }
        }
        problems.addAll(shards.problems());
        return shards.withProblems(problems);
    }

    /** Hands every row to {@code visitor} with the shard it is in. */
    public VerificationReport verify(Snapshot snapshot, BiConsumer<ShardEntry, SampleRow> visitor) {
        List<String> problems = new ArrayList<>();
        Set<String> shardIds = new HashSet<>();
        Set<String> objectKeys = new HashSet<>();
        Map<String, Integer> idCounts = new HashMap<>();
        Counts counts = new Counts();
        for (ShardEntry entry : snapshot.shards()) {
            if (!shardIds.add(entry.shardId())) {
                problems.add("shard " + entry.shardId() + " is in the snapshot twice");
            }
            if (!objectKeys.add(entry.objectKey())) {
                counts.referencedTwice++;
                problems.add("object " + entry.objectKey() + " is referenced twice");
                continue;
            }
            Path file = scratch.resolve("verify-" + entry.sequence() + "-" + entry.lane() + ".h5");
            try {
                checkShard(entry, file, problems, counts).ifPresent(contents -> {
                    for (SampleRow row : contents.rows()) {
                        idCounts.merge(row.sampleId(), 1, Integer::sum);
                        visitor.accept(entry, row);
                        counts.samples++;
                    }
                });
            } finally {
                deleteQuietly(file);
            }
        }
        List<String> duplicates = idCounts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).sorted().toList();
        if (!duplicates.isEmpty()) {
            problems.add(duplicates.size() + " sample ids appear more than once, e.g. " + duplicates.get(0));
        }
        return new VerificationReport(snapshot.snapshotId(), snapshot.shards().size(), counts.samples,
                Set.copyOf(idCounts.keySet()), duplicates, counts.missingObjects, counts.checksumMismatches,
                counts.referencedTwice, List.copyOf(problems));
    }

    /** Downloads and re-hashes one shard; its contents, or empty when it is missing or unreadable. */
    private Optional<ShardContents> checkShard(ShardEntry entry, Path file, List<String> problems, Counts counts) {
        if (store.head(entry.objectKey()).isEmpty()) {
            counts.missingObjects++;
            problems.add("log entry names " + entry.objectKey() + ", which does not exist");
            return Optional.empty();
        }
        try {
            store.download(entry.objectKey(), file);
            String sha = ShardDigest.sha256(file);
            long size = Files.size(file);
            if (!sha.equals(entry.sha256()) || size != entry.bytes()) {
                counts.checksumMismatches++;
            }
            if (!sha.equals(entry.sha256())) {
                problems.add("shard " + entry.shardId() + " has sha256 " + sha + ", log says " + entry.sha256());
            }
            if (size != entry.bytes()) {
                problems.add("shard " + entry.shardId() + " has " + size + " bytes, log says " + entry.bytes());
            }
            if (sha.equals(entry.sha256())) {
                problems.addAll(PageIndexCheck.problems(store, entry, file));
            }
            ShardContents contents = reader.read(file);
            if (contents.rows().size() != entry.sampleCount()) {
                problems.add("shard " + entry.shardId() + " holds " + contents.rows().size() + " rows, log says "
                        + entry.sampleCount());
            }
            return Optional.of(contents);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            problems.add("shard " + entry.shardId() + " cannot be read: " + e.getMessage());
            return Optional.empty();
        }
    }

    /** Reads the snapshot again from its log entries alone: a gap or a checkpoint that disagrees is a problem. */
    private List<String> checkpointProblems(Snapshot snapshot, Clock clock) {
        try {
            Snapshot fromEntries = CommitLog.entriesOnly(store, snapshot.dataset(), snapshot.version(), clock)
                    .snapshot(snapshot.snapshotId());
            if (!fromEntries.shards().equals(snapshot.shards())) {
                return List.of("the log entries 1.." + snapshot.snapshotId() + " and the checkpoint-based reading disagree:"
                        + " a checkpoint is wrong (readers use it)");
            }
            return List.of();
        } catch (RuntimeException e) {
            return List.of("the log entries cannot be read one by one: " + e.getMessage());
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // scratch space; a leftover file is harmless
        }
    }

    private static final class Counts {
        long samples;
        long missingObjects;
        long checksumMismatches;
        long referencedTwice;
    }

    /** What {@link #verify} found; {@link #ok()} when there is nothing to report. */
    public record VerificationReport(long snapshotId, int shards, long samples, Set<String> sampleIds,
                                     List<String> duplicateIds, long missingObjects, long checksumMismatches,
                                     long objectsReferencedTwice, List<String> problems) {
        public boolean ok() {
            return problems.isEmpty();
        }

        VerificationReport withProblems(List<String> all) {
            return new VerificationReport(snapshotId, shards, samples, sampleIds, duplicateIds, missingObjects,
                    checksumMismatches, objectsReferencedTwice, List.copyOf(all));
        }
    }
}
