package io.shardflow.dataset.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.ManualClock;
import io.shardflow.dataset.lifecycle.Expirer;
import io.shardflow.dataset.lifecycle.GarbageCollector;
import io.shardflow.dataset.lifecycle.LifecycleException;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.RetentionPolicy;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.OptionalInt;
import java.util.OptionalLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

/**
 * Lineage-aware expiry: {@code dataset expire} keeps every snapshot that a saved training
 * checkpoint's reader position reads; {@code --through} refuses naming the run and step; only
 * {@code force} drops them; once the checkpoint is collected the snapshot can go.
 */
class CheckpointLineageExpiryTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-05-01T00:00:00Z"));
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final TrainingCheckpoints checkpoints = new TrainingCheckpoints(store);
    private final SavedRuns runs = new SavedRuns(store);

    private Expirer.Result expire(CommitLog log, OptionalInt keepLast, OptionalLong through, boolean force) {
        RetentionPolicy policy = keepLast.isPresent() ? new RetentionPolicy(keepLast, OptionalInt.empty()) : null;
        return new Expirer(log, new GarbageCollector(store, clock), clock, "t", new CheckpointLineage(checkpoints))
                .expire("cams", "v1", new Expirer.Request(policy, through, Duration.ofHours(1), false, force), l -> { });
    }

    private CommitLog publish(int snapshots, Path scratch) {
        store.useClock(clock);
        ShardPublisher publisher = new ShardPublisher(store, "cams", "v1", scratch, clock);
        for (int s = 1; s <= snapshots; s++) {
            publisher.publish(s, 2, 3);
            clock.advance(Duration.ofHours(2));
        }
        return new CommitLog(store, "cams", "v1", clock);
    }

    @Test
    void shouldRefuseToDropASnapshotAKeptCheckpointNeedsUnlessForced(@org.junit.jupiter.api.io.TempDir Path tmp) {
        CommitLog log = publish(5, tmp);
        runs.save("r7", 400, SavedRuns.attempt(1), Map.of(0, List.of("model")),
                List.of(new SavedRuns.Pin("cams", "v1", 2)));
        runs.save("r8", 10, SavedRuns.attempt(2), Map.of(0, List.of("model")),
                List.of(new SavedRuns.Pin("other", "v1", 3)));

        assertThatThrownBy(() -> expire(log, OptionalInt.empty(), OptionalLong.of(3), false))
                .isInstanceOf(LifecycleException.class)
                .hasMessageContaining("would drop snapshot 2, which training checkpoints need: run r7 step 400")
                .hasMessageContaining("--force");
        Expirer.Result byPolicy = expire(log, OptionalInt.of(1), OptionalLong.empty(), false);
        assertThat(byPolicy.expired()).containsExactly(1L, 3L, 4L);
        assertThat(byPolicy.held()).containsOnlyKeys(2L).containsEntry(2L, List.of("run r7 step 400"));
        assertThat(log.view().expired()).doesNotContain(2L);

        new CheckpointCollector(checkpoints, clock).collect("r7", new CheckpointRetention(1, OptionalLong.empty()),
                Duration.ofHours(1), false, l -> { });  // keeps it: the newest step of its run
        assertThat(expire(log, OptionalInt.of(1), OptionalLong.empty(), false).expired()).doesNotContain(2L);
        Expirer.Result forced = expire(log, OptionalInt.empty(), OptionalLong.of(2), true);
        assertThat(forced.expired()).containsExactly(2L);
    }

    @Test
    void shouldLetASnapshotGoOnceTheCheckpointNeedingItIsCollected(@org.junit.jupiter.api.io.TempDir Path tmp) {
        CommitLog log = publish(4, tmp);
        runs.save("r7", 100, SavedRuns.attempt(1), Map.of(0, List.of("model")), List.of(new SavedRuns.Pin("cams", "v1", 1)));
        runs.save("r7", 200, SavedRuns.attempt(2), Map.of(0, List.of("model")), List.of(new SavedRuns.Pin("cams", "v1", 3)));
        assertThatThrownBy(() -> expire(log, OptionalInt.empty(), OptionalLong.of(2), false))
                .hasMessageContaining("run r7 step 100");
        new CheckpointCollector(checkpoints, clock).collect("r7", new CheckpointRetention(1, OptionalLong.empty()),
                Duration.ofHours(1), false, l -> { });
        assertThat(expire(log, OptionalInt.empty(), OptionalLong.of(2), false).expired()).containsExactly(1L, 2L);
    }

    interface Op {
    }

    record Save(int snapshotBack) implements Op {
    }

    record Collect(int keepLast) implements Op {
    }

    record Expire(int keepLast, int throughBack, boolean force) implements Op {
    }

    @Provide
    Arbitrary<List<Op>> histories() {
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.integers().between(0, 4).map(b -> (Op) new Save(b))),
                Tuple.of(1, Arbitraries.integers().between(1, 3).map(k -> (Op) new Collect(k))),
                Tuple.of(3, Arbitraries.integers().between(0, 3).flatMap(k -> Arbitraries.integers().between(1, 4)
                        .flatMap(b -> Arbitraries.of(false, false, false, true).map(f -> (Op) new Expire(k, b, f))))));
        return op.list().ofMinSize(3).ofMaxSize(15);
    }

    /** Random checkpoints, collections and expiries: no unforced expiry ever drops a snapshot a saved checkpoint needs. */
    @Property(tries = 30)
    void shouldNeverExpireWhatASavedCheckpointNeeds(@ForAll("histories") List<Op> history) throws IOException {
        Path scratch = Files.createTempDirectory("lineage-property");
        store.useClock(clock);
        ShardPublisher publisher = new ShardPublisher(store, "cams", "v1", scratch, clock);
        CommitLog log = new CommitLog(store, "cams", "v1", clock);
        int step = 0;
        long sequence = 0;
        for (Op op : history) {
            publisher.publish(++sequence, 1, 2);
            clock.advance(Duration.ofHours(2));
            NavigableSet<Long> live = liveSnapshots(log);
            if (op instanceof Save save) {
                long snapshot = new ArrayList<>(live).get(Math.max(0, live.size() - 1 - save.snapshotBack()));
                runs.save("run", ++step * 10, SavedRuns.attempt(step), Map.of(0, List.of("m")),
                        List.of(new SavedRuns.Pin("cams", "v1", snapshot)));
            } else if (op instanceof Collect collect) {
                new CheckpointCollector(checkpoints, clock).collect("run",
                        new CheckpointRetention(collect.keepLast(), OptionalLong.empty()), Duration.ofHours(1), false, l -> { });
            } else if (op instanceof Expire e) {
                Map<Long, List<String>> needed = new HashMap<>(new CheckpointLineage(checkpoints).holds("cams", "v1"));
                long through = log.view().latestId() - e.throughBack();
                java.util.Set<Long> expiredBefore = new java.util.HashSet<>(log.view().expired());
                boolean refused = false;
                try {
                    expire(log, e.keepLast() == 0 ? OptionalInt.empty() : OptionalInt.of(e.keepLast()),
                            e.keepLast() == 0 && through >= 1 ? OptionalLong.of(through) : OptionalLong.empty(), e.force());
                } catch (LifecycleException refusal) {
                    refused = true;
                    assertThat(refusal.getMessage()).containsAnyOf("run run step", "the latest", "tag");
                }
                java.util.Set<Long> newlyExpired = new java.util.HashSet<>(log.view().expired());
                newlyExpired.removeAll(expiredBefore);
                if (!e.force()) {
                    assertThat(newlyExpired).as("refused=%s", refused).noneMatch(needed::containsKey);
                }
            }
        }
        try (var files = Files.walk(scratch)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static NavigableSet<Long> liveSnapshots(CommitLog log) {
        NavigableSet<Long> live = new java.util.TreeSet<>();
        for (long id = 1; id <= log.view().latestId(); id++) {
            if (!log.view().expired().contains(id)) {
                live.add(id);
            }
        }
        return live;
    }
}
