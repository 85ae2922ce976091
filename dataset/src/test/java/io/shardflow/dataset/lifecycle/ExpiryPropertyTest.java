package io.shardflow.dataset.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.ManualClock;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.log.CheckpointChains;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.LogView;
import io.shardflow.dataset.log.RetentionPolicy;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.StoredObject;
import io.shardflow.dataset.verify.SnapshotVerifier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;

/**
 * Random histories of appends, uploads not yet committed, compactions, deletions, tags and
 * expiries (also before the first snapshot): after every expiry, each kept snapshot still verifies
 * (every object it names exists with its checksum) and still opens from a whole checkpoint chain,
 * every tagged snapshot is kept, and no object older than the safety window that no kept snapshot
 * names, nor checkpoint that opening no kept snapshot reads, is left.
 */
class ExpiryPropertyTest {

    private static final Duration WINDOW = Duration.ofHours(1);

    interface Op {
    }

    record Append(int[] rows) implements Op {
        @Override
        public String toString() {
            return "Append" + java.util.Arrays.toString(rows);
        }
    }

    record Upload() implements Op {
    }

    record Compact(int target) implements Op {
    }

    record Delete(int lane) implements Op {
    }

    record Tag() implements Op {
    }

    record Expire(int keepLast) implements Op {
    }

    private Path scratch;
    private InMemoryObjectStore store;
    private ManualClock clock;
    private ShardPublisher publisher;
    private CommitLog log;
    private ShardRewriter rewriter;
    private long sequence;
    private int tags;

    @BeforeTry
    void setUp() throws IOException {
        scratch = Files.createTempDirectory("expiry-property");
        store = new InMemoryObjectStore();
        clock = new ManualClock(Instant.parse("2026-03-01T00:00:00Z"));
        store.useClock(clock);
        publisher = new ShardPublisher(store, "p", "v1", scratch, clock);
        // A checkpoint every other commit: expiries meet many checkpoints and chains to keep whole.
        log = new CommitLog(store, "p", "v1", clock, 2);
        rewriter = new ShardRewriter(store, publisher.spec(), new ShardWriter(), scratch);
        sequence = 0;
        tags = 0;
    }

    @AfterTry
    void tearDown() throws IOException {
        try (var files = Files.walk(scratch)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Provide
    Arbitrary<List<Op>> histories() {
        Arbitrary<Op> append = Arbitraries.integers().between(1, 6).array(int[].class).ofMinSize(1).ofMaxSize(3)
                .map(Append::new);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, append),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Upload())),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(4, 12).map(Compact::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 2).map(Delete::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Tag())),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(1, 3).map(Expire::new)));
        return op.list().ofMinSize(6).ofMaxSize(20);
    }

    @Property(tries = 40)
    void shouldNeverDeleteWhatAKeptSnapshotNeeds(@ForAll("histories") List<Op> history) {
        for (Op op : history) {
            clock.advance(Duration.ofMinutes(20));
            apply(op);
            if (op instanceof Expire) {
                check();
            }
        }
        clock.advance(Duration.ofMinutes(20));
        apply(new Expire(1));
        check();
    }

    private void apply(Op op) {
        if (op instanceof Append append) {
            sequence++;
            List<ShardEntry> shards = new java.util.ArrayList<>();
            for (int lane = 0; lane < append.rows().length; lane++) {
                shards.add(publisher.write(lane, sequence, append.rows()[lane]));
            }
            log.commit(shards, "sink", java.util.Map.of());
        } else if (op instanceof Upload) {
            publisher.write(7, ++sequence, 2); // uploaded, never committed (yet)
        } else if (op instanceof Compact compact) {
            new Compactor(log, rewriter, "c").compact(publisher.spec().fingerprint(), compact.target(), line -> { });
        } else if (op instanceof Delete delete) {
            try {
                new SampleDeleter(log, rewriter, "d").delete(SampleFilter.deviceIds(Set.of("dev-" + delete.lane())),
                        "property", line -> { });
            } catch (LifecycleException nothingMatched) {
                assertThat(nothingMatched).hasMessageContaining("nothing deleted");
            }
        } else if (op instanceof Tag) {
            if (log.view().latestId() > 0) {
                Tags.create(log, "t" + (++tags), -1, "t");
            }
        } else if (op instanceof Expire expire) {
            new Expirer(log, new GarbageCollector(store, clock), clock, "e").expire("p", "v1",
                    new Expirer.Request(new RetentionPolicy(OptionalInt.of(expire.keepLast()), OptionalInt.empty()),
                            OptionalLong.empty(), WINDOW, false), line -> { });
        }
    }

    private void check() {
        CommitLog fresh = new CommitLog(store, "p", "v1", clock);
        LogView view = fresh.view();
        NavigableSet<Long> kept = new TreeSet<>();
        for (long id = 1; id <= view.latestId(); id++) {
            if (!view.expired().contains(id)) {
                kept.add(id);
            }
        }
        assertThat(kept).containsAll(view.tags().values());
        if (view.latestId() > 0) {
            assertThat(kept).contains(view.latestId());
        }
        SnapshotVerifier verifier = new SnapshotVerifier(store, scratch);
        for (long id : kept) {
            assertThat(verifier.verify(fresh.snapshot(id)).problems()).as("snapshot %d", id).isEmpty();
        }
        Set<String> named = fresh.objectKeysOf(kept);
        Instant cutoff = clock.instant().minus(WINDOW);
        checkCheckpoints(kept, view.latestId(), cutoff);
        Set<String> leftOver = new HashSet<>();
        for (StoredObject object : store.listObjects(DatasetLayout.versionPrefix("p", "v1") + "shards/", null, 1000)) {
            if (!named.contains(object.key()) && object.lastModified().isBefore(cutoff)) {
                leftOver.add(object.key());
            }
        }
        assertThat(leftOver).as("unreferenced objects older than the window").isEmpty();
        assertThat(named).allMatch(key -> store.head(key).isPresent());
    }

    /** Every kept snapshot opens from a whole chain; every other checkpoint older than the window is gone. */
    private void checkCheckpoints(NavigableSet<Long> kept, long latest, Instant cutoff) {
        CheckpointChains chains = new CheckpointChains(store, "p", "v1");
        NavigableMap<Long, StoredObject> existing = chains.list();
        NavigableSet<Long> opened = new TreeSet<>(kept);
        opened.add(Long.MAX_VALUE);
        for (long snapshot : opened) {
            Long newest = existing.navigableKeySet().floor(snapshot);
            if (newest != null) {
                // chain() throws at a missing link: a reader would fall back to listing the whole log
                assertThat(chains.chain(newest)).as("chain of checkpoint %d, opened for snapshot %d", newest, snapshot)
                        .startsWith(newest);
            }
        }
        NavigableSet<Long> needed = chains.needed(opened, existing.navigableKeySet());
        assertThat(existing.headMap(latest, true).entrySet()).as("checkpoints opening no kept snapshot reads")
                .filteredOn(e -> e.getValue().lastModified().isBefore(cutoff))
                .allMatch(e -> needed.contains(e.getKey()));
    }
}
