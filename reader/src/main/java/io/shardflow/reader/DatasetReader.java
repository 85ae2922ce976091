package io.shardflow.reader;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.retry.Sleeper;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.store.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one worker's share of a dataset version for one epoch, from object storage through a
 * verified local cache.
 *
 * <p>The stream (dataset/FORMAT.md, "Reading"): the pinned snapshot's shards in the epoch's shuffle
 * order, this worker's positions only, each shard's rows through a seeded shuffle buffer drained at
 * the end; in follow mode then, commit by commit, the shards each later commit added, shuffled and
 * split the same way, until no new snapshot has appeared for {@code idleTimeout}.
 *
 * <p>{@link #state()} after any sample lets a new reader ({@link ReaderOptions#resumeFrom}) yield
 * exactly the samples this one has not. {@link #hasNext()} blocks while following. Not
 * thread-safe: one reader per worker.
 */
public final class DatasetReader implements Iterator<ReadSample>, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DatasetReader.class);

    private final ReaderOptions options;
    private final CommitLog commitLog;
    private final ShardCache cache;
    private final Path ownedCacheDir;
    private final Clock clock;
    private final Sleeper sleeper;
    private final long pinnedSnapshot;
    private final Deque<Segment> pending = new ArrayDeque<>();
    private final ShardReader shardReader = new ShardReader();
    private final ShardPrefetcher prefetcher;
    private SegmentReader current;
    /** The newest snapshot whose shards are in the stream (pinned, or followed up to). */
    private long lastSnapshot;
    private long nextPosition;
    private long yielded;
    private ReadSample lookahead;
    private boolean done;

    private DatasetReader(ReaderOptions options, ObjectStore store, CommitLog commitLog, ShardCache cache, Path ownedCacheDir,
                          Clock clock, Sleeper sleeper) {
        this.options = options;
        this.commitLog = commitLog;
        this.cache = cache;
        this.prefetcher = new ShardPrefetcher(cache, store, options.fetch());
        this.ownedCacheDir = ownedCacheDir;
        this.clock = clock;
        this.sleeper = sleeper;
        Snapshot pinned = options.snapshotId() == null ? commitLog.latest() : commitLog.snapshot(options.snapshotId());
        this.pinnedSnapshot = pinned.snapshotId();
        this.lastSnapshot = pinned.snapshotId();
        Segment first = Segment.of(pinned.snapshotId(), 0, pinned.shards(), options);
        pending.add(first);
        nextPosition = first.nextPosition();
        skip(options.skipSamples());
        log.info("Reading {}/{} snapshot {} epoch {} as worker {} of {}: {} shards, {} samples skipped{}", options.dataset(),
                options.version(), pinnedSnapshot, options.epoch(), options.globalWorker(), options.totalWorkers(),
                first.mine().size(), options.skipSamples(), options.follow() ? ", then following new commits" : "");
    }

    /** A reader with its own cache (options' dir, or a temporary one), the system clock and real sleeps. */
    public static DatasetReader open(ObjectStore store, ReaderOptions options) {
        Path owned = null;
        Path dir = options.cacheDir();
        if (dir == null) {
            try {
                owned = Files.createTempDirectory("shardflow-cache-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a temporary shard cache", e);
            }
            dir = owned;
        }
        ShardCache cache = new ShardCache(store, dir, options.cacheMaxBytes(), options.verifyCached());
        return open(store, options, cache, Clock.systemUTC(), Sleeper.SYSTEM, owned);
    }

    /** A reader on a shared cache with an injected clock and sleeper (follow-mode polling). */
    public static DatasetReader open(ObjectStore store, ReaderOptions options, ShardCache cache, Clock clock, Sleeper sleeper) {
        return open(store, options, cache, clock, sleeper, null);
    }

    private static DatasetReader open(ObjectStore store, ReaderOptions options, ShardCache cache, Clock clock,
                                      Sleeper sleeper, Path ownedCacheDir) {
        Objects.requireNonNull(store, "store");
        CommitLog commitLog = new CommitLog(store, options.dataset(), options.version(), clock, 0);
        return new DatasetReader(options, store, commitLog, Objects.requireNonNull(cache, "cache"), ownedCacheDir,
                Objects.requireNonNull(clock, "clock"), Objects.requireNonNull(sleeper, "sleeper"));
    }

    /** The pinned snapshot. */
    public long snapshotId() {
        return pinnedSnapshot;
    }

    /** The newest snapshot whose shards are part of this reader's stream (follow mode moves it on). */
    public long lastSnapshotRead() {
        return lastSnapshot;
    }

    /** Where this reader is; valid between any two samples. */
    public ReaderState state() {
        return new ReaderState(options.epoch(), options.seed(), pinnedSnapshot, yielded);
    }

    public ShardCache cache() {
        return cache;
    }

    @Override
    public boolean hasNext() {
        if (lookahead == null && !done) {
            lookahead = advance();
            done = lookahead == null;
        }
        return lookahead != null;
    }

    @Override
    public ReadSample next() {
        if (!hasNext()) {
            throw new NoSuchElementException("reader of " + options.dataset() + "/" + options.version() + " is exhausted");
        }
        ReadSample sample = lookahead;
        lookahead = null;
        yielded++;
        return sample;
    }

    /** Stops downloads ahead and removes the temporary cache directory, if this reader made one. */
    @Override
    public void close() {
        prefetcher.close();
        if (ownedCacheDir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(ownedCacheDir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            log.warn("Could not remove the temporary shard cache {}", ownedCacheDir, e);
        }
    }

    private ReadSample advance() {
        while (true) {
            if (current != null) {
                ReadSample sample = current.next();
                if (sample != null) {
                    return sample;
                }
                current = null;
            }
            Segment segment = pending.poll();
            if (segment != null) {
                current = SegmentReader.startingAfter(segment, 0, options, shard -> rowsOf(segment, shard));
                continue;
            }
            if (!options.follow() || !awaitNewSnapshots()) {
                return null;
            }
        }
    }

    /** Skips samples already yielded by an earlier reader: whole segments by count, then within one. */
    private void skip(long samples) {
        if (samples == 0) {
            return;
        }
        if (options.follow()) {
            queueSnapshotsUpTo(commitLog.latest().snapshotId());
        }
        long left = samples;
        while (!pending.isEmpty()) {
            Segment segment = pending.peek();
            long count = segment.sampleCount();
            if (left < count) {
                pending.poll();
                current = SegmentReader.startingAfter(segment, left, options, shard -> rowsOf(segment, shard));
                yielded = samples;
                return;
            }
            left -= count;
            pending.poll();
        }
        if (left > 0) {
            throw new IllegalStateException("cannot resume after " + samples + " samples: this worker's stream of "
                    + options.dataset() + "/" + options.version() + " from snapshot " + pinnedSnapshot + " has only "
                    + (samples - left) + (options.follow() ? "" : " (was the state saved by a follow-mode reader?)"));
        }
        yielded = samples;
    }

    /** Polls the log until a snapshot newer than the last one read appears (true) or the idle timeout passes (false). */
    private boolean awaitNewSnapshots() {
        Instant idleSince = clock.instant();
        while (true) {
            long latest = commitLog.latest().snapshotId();
            if (latest > lastSnapshot) {
                queueSnapshotsUpTo(latest);
                return true;
            }
            if (Duration.between(idleSince, clock.instant()).compareTo(options.idleTimeout()) >= 0) {
                log.info("No new snapshot of {}/{} after {} for {}; stopping at snapshot {}", options.dataset(),
                        options.version(), lastSnapshot, options.idleTimeout(), lastSnapshot);
                return false;
            }
            try {
                sleeper.sleep(options.pollInterval());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for new snapshots", e);
            }
        }
    }

    private void queueSnapshotsUpTo(long latest) {
        for (long id = lastSnapshot + 1; id <= latest; id++) {
            // Only appends bring new rows: a replace or delete entry's shards hold rows already read
            // (dataset/FORMAT.md, "Segments"), so its segment is empty.
            List<ShardEntry> added = commitLog.entry(id).kind() == EntryKind.APPEND ? commitLog.addedBy(id) : List.of();
            Segment segment = Segment.of(id, nextPosition, added, options);
            pending.add(segment);
            nextPosition = segment.nextPosition();
            log.debug("Following snapshot {}: {} new shards, {} for this worker", id, added.size(), segment.mine().size());
        }
        lastSnapshot = Math.max(lastSnapshot, latest);
    }

    /** The shard's rows; first schedules it and the next shards of its segment for download ahead. */
    private List<SampleRow> rowsOf(Segment segment, ShardEntry shard) {
        List<ShardEntry> mine = segment.mine();
        int at = mine.indexOf(shard);
        if (at >= 0) {
            prefetcher.schedule(mine.subList(at, Math.min(mine.size(), at + 1 + options.fetch().prefetch())));
        }
        Path file = prefetcher.get(shard);
        try {
            return shardReader.read(file).rows();
        } finally {
            prefetcher.release(shard);
        }
    }
}
