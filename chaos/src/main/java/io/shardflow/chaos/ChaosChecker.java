package io.shardflow.chaos;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.log.CommitEntry;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.CommitLogCodec;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.verify.SnapshotVerifier.VerificationReport;
import io.shardflow.dataset.verify.SnapshotVerifier;
import io.shardflow.edge.SyntheticSamples;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The end-of-run check, from object storage alone: the raw commit-log entries (decoded here, not
 * through the reader), every shard object they name (through the project's {@link SnapshotVerifier},
 * with each row compared to what was published), and every snapshot through the public reader.
 * It compares the union of committed sample ids with the ids the broker acknowledged.
 */
final class ChaosChecker {

    private static final int PAGE = 1000;

    private final ObjectStore store;
    private final String dataset;
    private final String version;
    private final Path scratch;
    private final SyntheticSamples synthetic;

    ChaosChecker(ObjectStore store, String dataset, String version, Path scratch, SyntheticSamples synthetic) {
        this.store = store;
        this.dataset = dataset;
        this.version = version;
        this.scratch = scratch;
        this.synthetic = synthetic;
    }

    /** What the check found; {@link #ok()} when nothing is wrong. */
    record Result(long entries, long shards, long rows, long distinctIds, long acknowledged, long missing,
                  long duplicated, long unexpected, long unacknowledgedPresent, long checksumMismatches,
                  long missingObjects, long objectsReferencedTwice, long valueMismatches, long orphanObjects,
                  boolean snapshotsReadable, List<String> problems) {
        boolean ok() {
            return problems.isEmpty();
        }
    }

    Result check(Set<String> acknowledged, Set<String> unacknowledged) {
        List<String> problems = new ArrayList<>();
        List<CommitEntry> entries = readEntries(problems);
        List<ShardEntry> shards = new ArrayList<>();
        entries.forEach(e -> shards.addAll(e.addedShards()));

        Set<String> objectKeys = new HashSet<>();
        shards.forEach(shard -> {
            objectKeys.add(shard.objectKey());
            if (shard.hasPageIndex()) {
                objectKeys.add(DatasetLayout.pageIndexKey(shard.objectKey())); // it goes with its shard
            }
        });
        long[] valueMismatches = {0};
        VerificationReport verified = new SnapshotVerifier(store, scratch).verify(
                new Snapshot(dataset, version, entries.size(), shards), (shard, row) -> {
                    if (!holdsPublishedValues(row) && ++valueMismatches[0] <= 5) {
                        problems.add("sample " + row.sampleId() + " in " + shard.shardId() + " does not hold the values published");
                    }
                });
        problems.addAll(verified.problems());
        Set<String> committedIds = verified.sampleIds();

        boolean readable = snapshotsReadable(entries, problems);
        long orphans = orphanObjects(objectKeys);

        long duplicated = verified.duplicateIds().size();
        long missing = acknowledged.stream().filter(id -> !committedIds.contains(id)).count();
        long unexpected = committedIds.stream()
                .filter(id -> !acknowledged.contains(id) && !unacknowledged.contains(id)).count();
        long unackedPresent = unacknowledged.stream().filter(committedIds::contains).count();
        if (missing > 0) {
            problems.add(missing + " acknowledged samples are missing, e.g. "
                    + acknowledged.stream().filter(id -> !committedIds.contains(id)).sorted().limit(5).toList());
        }
        if (unexpected > 0) {
            problems.add(unexpected + " committed samples were never published");
        }
        return new Result(entries.size(), shards.size(), verified.samples(), committedIds.size(), acknowledged.size(), missing,
                duplicated, unexpected, unackedPresent, verified.checksumMismatches(), verified.missingObjects(),
                verified.objectsReferencedTwice(), valueMismatches[0], orphans, readable, List.copyOf(problems));
    }

    /** Every entry log/1..n, decoded here; a gap, an unreadable entry or a wrong id is a problem. */
    private List<CommitEntry> readEntries(List<String> problems) {
        CommitLogCodec codec = new CommitLogCodec();
        List<CommitEntry> entries = new ArrayList<>();
        String prefix = DatasetLayout.commitPrefix(dataset, version);
        String after = null;
        while (true) {
            List<String> keys = store.list(prefix, after, PAGE);
            for (String key : keys) {
                after = key;
                OptionalLong id = DatasetLayout.snapshotIdOf(dataset, version, key);
                if (id.isEmpty()) {
                    continue;
                }
                if (id.getAsLong() != entries.size() + 1) {
                    problems.add("log entry " + key + " where snapshot " + (entries.size() + 1) + " was expected");
                    return entries;
                }
                try {
                    CommitEntry entry = codec.decode(store.get(key).orElseThrow());
                    if (entry.snapshotId() != id.getAsLong()) {
                        problems.add("log entry " + key + " says it is snapshot " + entry.snapshotId());
                    }
                    entries.add(entry);
                } catch (RuntimeException e) {
                    problems.add("log entry " + key + " cannot be read: " + e.getMessage());
                    return entries;
                }
            }
            if (keys.size() < PAGE) {
                return entries;
            }
        }
    }

    /** Every snapshot 1..n through the public reader, each with exactly the shards of entries 1..k. */
    private boolean snapshotsReadable(List<CommitEntry> entries, List<String> problems) {
        CommitLog log = new CommitLog(store, dataset, version, Clock.systemUTC());
        long expected = 0;
        try {
            if (log.latest().snapshotId() != entries.size()) {
                problems.add("the reader's latest snapshot is " + log.latest().snapshotId() + ", the log has " + entries.size()
                        + " entries");
                return false;
            }
            for (CommitEntry entry : entries) {
                expected += entry.addedShards().size();
                int actual = log.snapshot(entry.snapshotId()).shards().size();
                if (actual != expected) {
                    problems.add("snapshot " + entry.snapshotId() + " has " + actual + " shards, expected " + expected);
                    return false;
                }
            }
            return true;
        } catch (RuntimeException e) {
            problems.add("the reader cannot read the log: " + e.getMessage());
            return false;
        }
    }

    /** Shard objects no entry names: uploads whose commit never came (not wrong, but worth knowing). */
    private long orphanObjects(Set<String> referenced) {
        String prefix = DatasetLayout.versionPrefix(dataset, version) + "shards/";
        long orphans = 0;
        String after = null;
        while (true) {
            List<String> keys = store.list(prefix, after, PAGE);
            for (String key : keys) {
                after = key;
                if (!referenced.contains(key)) {
                    orphans++;
                }
            }
            if (keys.size() < PAGE) {
                return orphans;
            }
        }
    }

    private boolean holdsPublishedValues(SampleRow row) {
        String id = row.sampleId();
        long n;
        try {
            n = Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
        } catch (NumberFormatException e) {
            return false;
        }
        if (!synthetic.sampleId(n).equals(id) || row.producedAtMillis() != ChaosPublisher.BASE_MILLIS + n) {
            return false;
        }
        float[] image = synthetic.image(n);
        ByteBuffer expected = ByteBuffer.allocate(image.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : image) {
            expected.putFloat(v);
        }
        byte[] label = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(synthetic.label(n)).array();
        return Arrays.equals(expected.array(), row.tensors().get("image")) && Arrays.equals(label, row.tensors().get("label"));
    }
}
