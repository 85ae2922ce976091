package io.shardflow.dataset.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.RetentionPolicy;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.log.SnapshotExpiredException;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.verify.SnapshotVerifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LifecycleTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private ShardPublisher publisher;
    private CommitLog log;
    private ShardRewriter rewriter;

    @BeforeEach
    void setUp() {
        store.useClock(Clock.offset(CLOCK, Duration.ofDays(-1)));
        publisher = new ShardPublisher(store, "cams", "v1", tmp, CLOCK);
        log = new CommitLog(store, "cams", "v1", CLOCK, 4);
        rewriter = new ShardRewriter(store, publisher.spec(), new ShardWriter(), tmp);
    }

    private List<SampleRow> rowsOf(Snapshot snapshot) {
        List<SampleRow> rows = new ArrayList<>();
        snapshot.shards().forEach(shard -> rows.addAll(rewriter.rows(shard)));
        return rows;
    }

    private Compactor compactor() {
        return new Compactor(log, rewriter, "test-compact");
    }

    @Test
    void shouldMergeSmallShardsIntoOneReplaceEntryAndLeaveOlderSnapshotsAlone() {
        publisher.publish(1, 3, 4);
        publisher.publish(2, 5, 30);
        publisher.publish(3, 2);
        Snapshot before = log.latest();

        Compactor.Result result = compactor().compact(publisher.spec().fingerprint(), 10, line -> { });

        Snapshot after = log.latest();
        assertThat(result.snapshotId()).hasValue(4);
        assertThat(log.entry(4).kind()).isEqualTo(EntryKind.REPLACE);
        // 3+4+5 reach 10; the 30-row shard is full already; the 2-row shard is alone, so it stays
        assertThat(result.removed()).hasSize(3);
        assertThat(after.shards()).hasSize(3);
        assertThat(rowsOf(after)).containsExactlyInAnyOrderElementsOf(rowsOf(before));
        assertThat(log.snapshot(3).shards()).isEqualTo(before.shards());
        assertThat(new SnapshotVerifier(store, tmp).verify(publisher.spec(), after, CLOCK).problems()).isEmpty();
        assertThat(new SnapshotVerifier(store, tmp).verify(publisher.spec(), before, CLOCK).problems()).isEmpty();
    }

    @Test
    void shouldWriteTheSameObjectsWhenACompactionIsRunAgainAfterDyingBeforeItsCommit() {
        publisher.publish(1, 3, 4, 5);
        List<ShardEntry> inputs = log.latest().shards();
        // A first run that died after uploading: its objects are there, the log has no replace entry.
        List<SampleRow> rows = new ArrayList<>();
        inputs.forEach(shard -> rows.addAll(rewriter.rows(shard)));
        ShardEntry orphan = rewriter.write(rewriter.successorId("compact",
                inputs.stream().map(ShardEntry::shardId).toList(), 0), rows);

        Compactor.Result result = compactor().compact(publisher.spec().fingerprint(), 10, line -> { });

        assertThat(result.added()).containsExactly(orphan);
        assertThat(compactor().compact(publisher.spec().fingerprint(), 10, line -> { }).snapshotId()).isEmpty();
    }

    @Test
    void shouldAbortACompactionWhoseShardsAnotherCompactionReplacedFirst() {
        publisher.publish(1, 3, 4, 5);
        CommitLog rival = new CommitLog(store, "cams", "v1", CLOCK);
        Compactor slow = new Compactor(log, rewriter, "slow");
        log.latest();
        new Compactor(rival, rewriter, "fast").compact(publisher.spec().fingerprint(), 10, line -> { });

        // "slow" planned from its own (stale) read; the append re-reads and finds its inputs gone.
        assertThat(slow.compact(publisher.spec().fingerprint(), 10, line -> { }).snapshotId()).isEmpty();
        assertThat(log.latest().snapshotId()).isEqualTo(2);
    }

    @Test
    void shouldDeleteMatchingRowsRewritingOnlyTheShardsThatHeldThem() {
        publisher.publish(1, 3, 4);
        Snapshot before = log.latest();
        String victim = ShardPublisher.sampleId(1, 1, 2);

        SampleDeleter.Result result = new SampleDeleter(log, rewriter, "test-delete")
                .delete(SampleFilter.sampleIds(Set.of(victim)), "erasure request 17", line -> { });

        assertThat(result.deletedSamples()).isEqualTo(1);
        assertThat(result.removed()).extracting(ShardEntry::lane).containsExactly(1);
        Snapshot after = log.latest();
        assertThat(after.shards()).contains(before.shards().get(0));
        assertThat(rowsOf(after)).extracting(SampleRow::sampleId).hasSize(6).doesNotContain(victim);
        assertThat(log.entry(result.snapshotId()).details()).containsEntry("reason", "erasure request 17")
                .containsEntry("deletedSamples", "1");
    }

    @Test
    void shouldRefuseADeleteThatMatchesNothing() {
        publisher.publish(1, 3);

        assertThatThrownBy(() -> new SampleDeleter(log, rewriter, "t").delete(SampleFilter.deviceIds(Set.of("nope")),
                "faulty", line -> { })).isInstanceOf(LifecycleException.class).hasMessageContaining("nothing deleted");
        assertThat(log.latest().snapshotId()).isEqualTo(1);
    }

    @Test
    void shouldRefuseASecondTagOfTheSameNameAndAnExpireThatWouldDropATaggedSnapshot() {
        publisher.publish(1, 3);
        publisher.publish(2, 3);
        publisher.publish(3, 3);
        Tags.create(log, "gold", 2, "t");

        assertThatThrownBy(() -> Tags.create(log, "gold", 3, "t")).isInstanceOf(LifecycleException.class)
                .hasMessageContaining("already names snapshot 2");
        assertThatThrownBy(() -> Expiry.through(log.view(), 3)).isInstanceOf(LifecycleException.class)
                .hasMessageContaining("tag 'gold'");
    }

    @Test
    void shouldExpireByPolicyKeepingTaggedSnapshotsAndDeleteOnlyUnreferencedOldObjects() throws IOException {
        publisher.publish(1, 3, 4, 5);
        Tags.create(log, "first", 1, "t");
        compactor().compact(publisher.spec().fingerprint(), 10, line -> { });
        publisher.publish(2, 2, 2);
        compactor().compact(publisher.spec().fingerprint(), 10, line -> { });
        Snapshot latest = log.latest();
        Expirer.setPolicy(log, new RetentionPolicy(OptionalInt.of(1), OptionalInt.empty()), "t");
        // An upload the sink has not committed yet: too new to delete.
        ShardEntry inFlight = withClock(CLOCK, () -> publisher.write(7, 9, 2));

        Expirer.Result result = new Expirer(log, new GarbageCollector(store, CLOCK), CLOCK, "t").expire("cams", "v1",
                new Expirer.Request(null, OptionalLong.empty(), Duration.ofHours(1), false), line -> { });

        assertThat(result.expired()).doesNotContain(1L).contains(3L, 4L, 5L);
        assertThat(log.snapshot(1).shards()).hasSize(3);
        assertThatThrownBy(() -> log.snapshot(4)).isInstanceOf(SnapshotExpiredException.class);
        assertThat(new SnapshotVerifier(store, tmp).verify(log.snapshot(1)).problems()).isEmpty();
        assertThat(new SnapshotVerifier(store, tmp).verify(log.latest()).problems()).isEmpty();
        assertThat(log.latest().shards()).isEqualTo(latest.shards());
        assertThat(store.keys()).contains(inFlight.objectKey());
        // The two 2-row shards were merged by the second compaction and no kept snapshot names them
        // (nor their page indexes, which go with them).
        assertThat(result.collected().deleted()).hasSize(4).allMatch(key -> key.contains("/lane-0000"))
                .filteredOn(key -> key.endsWith(".h5.pages.json")).hasSize(2);
    }

    @Test
    void shouldLeaveNoObjectHoldingDeletedRowsAfterExpiry() throws IOException {
        publisher.publish(1, 3, 4);
        compactor().compact(publisher.spec().fingerprint(), 5, line -> { });
        new SampleDeleter(log, rewriter, "t").delete(SampleFilter.deviceIds(Set.of("dev-1")), "faulty device",
                line -> { });

        new Expirer(log, new GarbageCollector(store, CLOCK), CLOCK, "t").expire("cams", "v1",
                new Expirer.Request(RetentionPolicy.NONE, OptionalLong.empty(), Duration.ZERO, false), line -> { });

        ShardReader reader = new ShardReader();
        Set<String> devices = new java.util.HashSet<>();
        for (String key : store.keys()) {
            if (key.endsWith(".h5")) {
                Path file = tmp.resolve("every.h5");
                store.download(key, file);
                devices.addAll(reader.read(file).rows().stream().map(SampleRow::deviceId).collect(Collectors.toSet()));
                Files.delete(file);
            }
        }
        assertThat(devices).containsExactly("dev-0");
        assertThat(rowsOf(log.latest())).hasSize(3);
    }

    private <T> T withClock(Clock clock, java.util.function.Supplier<T> action) {
        store.useClock(clock);
        try {
            return action.get();
        } finally {
            store.useClock(Clock.offset(CLOCK, Duration.ofDays(-1)));
        }
    }
}
