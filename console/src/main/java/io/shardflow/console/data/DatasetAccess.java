package io.shardflow.console.data;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitInfo;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.ShardContents;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.reader.ShardCache;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the console reads about datasets, through the dataset module alone: the catalog for
 * names, one {@link CommitLog} per version for snapshots (the log, never a listing of shards, is the
 * truth: docs/ARCHITECTURE.md invariant 4), and the shard files the log names, downloaded once into a
 * verified on-disk cache ({@link ShardCache} checks every download against the log's SHA-256 and size)
 * and decoded rows kept in memory for the pages that show samples.
 */
public final class DatasetAccess {

    private final ObjectStore store;
    private final DatasetCatalog catalog;
    private final Clock clock;
    private final ShardCache shardFiles;
    private final ShardReader reader = new ShardReader();
    private final LoadingCache<VersionKey, CommitLog> logs;
    private final LoadingCache<VersionKey, Optional<DatasetSpec>> specs;
    /** Where each shard id was found: a committed shard's entry and the snapshot that added it never change. */
    private final com.github.benmanes.caffeine.cache.Cache<String, LocatedShard> located =
            Caffeine.newBuilder().maximumSize(200_000).build();
    /** Decoded shards by SHA-256: content-addressed, so an entry can never go stale. */
    private final com.github.benmanes.caffeine.cache.Cache<String, ShardContents> rows;

    /** A dataset version; both names already checked against the naming rule. */
    public record VersionKey(String dataset, String version) {
    }

    /**
     * @param cacheDir        where shard files are kept between requests (and between runs)
     * @param shardCacheBytes the most bytes of shard files kept there
     * @param decodedShards   how many decoded shards to keep in memory for the sample pages
     */
    public DatasetAccess(ObjectStore store, Path cacheDir, long shardCacheBytes, int decodedShards, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.catalog = new DatasetCatalog(store);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.shardFiles = new ShardCache(store, cacheDir.resolve("shards"), shardCacheBytes, false);
        // Read-only: checkpoint interval 0 writes none; every instance reads the checkpoints others wrote.
        this.logs = Caffeine.newBuilder().maximumSize(256).build(k -> new CommitLog(store, k.dataset(), k.version(), clock, 0));
        // Specs are immutable once written; a missing one is asked again after a while (it may be created).
        this.specs = Caffeine.newBuilder().maximumSize(1024).expireAfterWrite(Duration.ofSeconds(30))
                .build(k -> catalog.spec(k.dataset(), k.version()));
        this.rows = Caffeine.newBuilder().maximumSize(decodedShards).build();
    }

    public ObjectStore store() {
        return store;
    }

    public Clock clock() {
        return clock;
    }

    /** Dataset names, from the catalog (names only; no data is ever found by listing). */
    public List<String> datasets() {
        return catalog.datasets();
    }

    public List<String> versions(String dataset) {
        return catalog.versions(dataset);
    }

    /** The version's spec; empty when no such version exists (the page answers 404). */
    public Optional<DatasetSpec> spec(VersionKey version) {
        Optional<DatasetSpec> spec = specs.get(version);
        if (spec.isEmpty()) {
            specs.invalidate(version);
        }
        return spec;
    }

    public CommitLog log(VersionKey version) {
        return logs.get(version);
    }

    public Snapshot latest(VersionKey version) {
        return log(version).latest();
    }

    public Snapshot snapshot(VersionKey version, long id) {
        return log(version).snapshot(id);
    }

    public List<CommitInfo> history(VersionKey version) {
        return log(version).history();
    }

    /**
     * The log's entry for a shard id and the snapshot whose commit added it, if the log has it; the
     * shard id comes from a URL, so it is only ever used to look the shard up, never to build a key.
     */
    public Optional<LocatedShard> shard(VersionKey version, ShardId id) {
        LocatedShard known = located.getIfPresent(id.toString());
        if (known != null) {
            return Optional.of(known);
        }
        Optional<LocatedShard> found = find(version, id);
        found.ifPresent(f -> located.put(id.toString(), f));
        return found;
    }

    private Optional<LocatedShard> find(VersionKey version, ShardId id) {
        CommitLog log = log(version);
        log.latest();
        Optional<ShardEntry> entry = log.committedShard(id.toString());
        if (entry.isEmpty()) {
            return Optional.empty();
        }
        for (CommitInfo commit : log.history()) {
            if (commit.addedShardCount() > 0 && log.addedBy(commit.snapshotId()).stream()
                    .anyMatch(s -> s.shardId().equals(id.toString()))) {
                return Optional.of(new LocatedShard(entry.get(), commit.snapshotId()));
            }
        }
        return Optional.of(new LocatedShard(entry.get(), 0));
    }

    /** A committed shard and the snapshot that added it. */
    public record LocatedShard(ShardEntry entry, long addedIn) {
    }

    /** The shard's file, downloaded and checked against the log's SHA-256 and size on first use. */
    public Path file(ShardEntry shard) {
        return shardFiles.fetch(shard);
    }

    /** Whether the shard's verified file is already on local disk (no download needed to show it). */
    public boolean isCached(ShardEntry shard) {
        return shardFiles.cached(shard).isPresent();
    }

    /** Every row of the shard, decoded once per process and kept while there is room. */
    public ShardContents contents(ShardEntry shard) {
        return rows.get(shard.sha256(), sha -> reader.read(file(shard)));
    }
}
