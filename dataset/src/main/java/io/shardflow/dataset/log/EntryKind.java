package io.shardflow.dataset.log;

/**
 * What a commit-log entry does (dataset/FORMAT.md, "Entry kinds"). Only {@link #APPEND} existed in
 * format version 1; every other kind is written with {@code formatVersion} 2, so a reader that
 * predates them refuses the entry instead of misreading the snapshot.
 */
public enum EntryKind {

    /** Adds shards (shard-sink's commits). */
    APPEND("append"),
    /** Replaces shards by others holding the same rows (compaction). */
    REPLACE("replace"),
    /** Replaces shards by rewritten ones without some rows (sample deletion). */
    DELETE("delete"),
    /** Names a snapshot; changes no shard. */
    TAG("tag"),
    /** Sets the retention policy of the version; changes no shard. */
    RETENTION("retention"),
    /** Takes old snapshots out of the live view; changes no shard. */
    EXPIRE("expire");

    private final String wireName;

    EntryKind(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    /** Whether entries of this kind may remove shards from the snapshot. */
    public boolean removesShards() {
        return this == REPLACE || this == DELETE;
    }

    /** Whether entries of this kind change no shard at all. */
    public boolean metadataOnly() {
        return this == TAG || this == RETENTION || this == EXPIRE;
    }

    public static EntryKind fromWire(String name) {
        for (EntryKind kind : values()) {
            if (kind.wireName.equals(name)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown commit entry kind '" + name + "': upgrade shardflow");
    }
}
