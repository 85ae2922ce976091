package io.shardflow.reader;

import io.shardflow.dataset.spec.Names;

/**
 * One source of a read as a resume state records it: the snapshot its epoch order was made from,
 * and what it gives each epoch (docs/READING-RULES.md, section 3).
 *
 * @param sinceSnapshot new-only reads: the epoch reads the shards of {@code snapshotId} appended
 *                      after this snapshot; null otherwise
 * @param count         samples this source gives each epoch
 */
public record SourcePin(String dataset, String version, long snapshotId, Long sinceSnapshot, boolean shuffleShards,
                        int shuffleBlock, long count) {

    public SourcePin {
        Names.requireDatasetName("dataset name", dataset);
        Names.requireDatasetName("dataset version", version);
        if (snapshotId < 0 || sinceSnapshot != null && sinceSnapshot < 0 || shuffleBlock < 0 || count < 0) {
            throw new IllegalArgumentException("a source pin's snapshot ids, shuffle block and count are >= 0: snapshot "
                    + snapshotId + ", since " + sinceSnapshot + ", block " + shuffleBlock + ", count " + count);
        }
    }

    SourcePin withSnapshot(long id) {
        return new SourcePin(dataset, version, id, sinceSnapshot, shuffleShards, shuffleBlock, count);
    }

    SourcePin withCount(long n) {
        return new SourcePin(dataset, version, snapshotId, sinceSnapshot, shuffleShards, shuffleBlock, n);
    }

    String name() {
        return dataset + "/" + version;
    }
}
