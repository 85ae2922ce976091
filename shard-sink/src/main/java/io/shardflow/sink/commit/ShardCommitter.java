package io.shardflow.sink.commit;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.CommitResult;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.retry.Retrier;
import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;

/**
 * Appends finished shards to their dataset version's commit log, one commit (one new snapshot) per
 * dataset version per batch. Holds one {@link CommitLog} per dataset version so the committed-shard
 * index is read from object storage once and then kept up to date incrementally.
 */
public final class ShardCommitter {

    private final ObjectStore store;
    private final DatasetCatalog catalog;
    private final Clock clock;
    private final Retrier retrier;
    private final String committerId;
    // The poll loop asks isCommitted while a finishing round builds (spec) and commits on other threads.
    private final Map<String, CommitLog> logs = new ConcurrentHashMap<>();
    private final Map<String, DatasetSpec> specs = new ConcurrentHashMap<>();

    public ShardCommitter(ObjectStore store, Clock clock, Retrier retrier, String committerId) {
        this.store = store;
        this.catalog = new DatasetCatalog(store);
        this.clock = clock;
        this.retrier = retrier;
        this.committerId = committerId;
    }

    /**
     * Whether the shard is already in the log as far as this instance has read it. A stale "no" is
     * harmless: the shard is rebuilt byte for byte and {@link CommitLog#commit} recognises it.
     */
    public boolean isCommitted(ShardId shard) {
        CommitLog log = log(shard.dataset(), shard.version());
        // The first call per dataset version reads the whole log from the store: retried like every store call.
        synchronized (log) {
            return retrier.call("read commit log of " + shard.dataset() + "/" + shard.version(),
                    () -> log.committedShard(shard.toString())).isPresent();
        }
    }

    /** The dataset versions this sink has looked up or committed to since it started, as {@code dataset/version}. */
    public java.util.Set<String> versionsSeen() {
        return java.util.Set.copyOf(logs.keySet());
    }

    public DatasetSpec spec(String dataset, String version) {
        String key = dataset + "/" + version;
        DatasetSpec spec = specs.get(key);
        if (spec == null) {
            spec = retrier.call("read spec " + key, () -> catalog.spec(dataset, version))
                    .orElseThrow(() -> new IllegalStateException("dataset " + key + " has no spec in the catalog"));
            specs.putIfAbsent(key, spec);
        }
        return spec;
    }

    public CommitResult commit(String dataset, String version, List<ShardEntry> shards, Map<String, Long> sourceOffsets) {
        CommitLog log = log(dataset, version);
        synchronized (log) {
            return retrier.call("commit " + shards.size() + " shards to " + dataset + "/" + version,
                    () -> log.commit(shards, committerId, sourceOffsets));
        }
    }

    private CommitLog log(String dataset, String version) {
        return logs.computeIfAbsent(dataset + "/" + version, k -> new CommitLog(store, dataset, version, clock));
    }
}
