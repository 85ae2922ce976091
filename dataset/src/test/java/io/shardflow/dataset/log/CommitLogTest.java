package io.shardflow.dataset.log;

import static io.shardflow.dataset.log.ShardEntries.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.dataset.store.PutOutcome;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CommitLogTest {

    private static final Instant NOW = Instant.parse("2026-02-03T04:05:06Z");

    private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final CommitLog log = new CommitLog(store, "d", "v1", clock);
    private final CommitLogCodec codec = new CommitLogCodec();

    @Test
    void shouldStartWithTheEmptySnapshot() {
        Snapshot latest = log.latest();

        assertThat(latest.snapshotId()).isZero();
        assertThat(latest.shards()).isEmpty();
        assertThat(latest.sampleCount()).isZero();
        assertThat(log.snapshot(0)).isEqualTo(latest);
    }

    @Test
    void shouldCommitSequentiallyAsContiguousImmutableSnapshots() {
        CommitResult first = log.commit(List.of(entry(0, 0)), "sink-a", Map.of("samples-0", 10L));
        CommitResult second = log.commit(List.of(entry(0, 1), entry(1, 0)), "sink-a", Map.of("samples-0", 20L));

        assertThat(first.snapshotId()).isEqualTo(1);
        assertThat(second.snapshotId()).isEqualTo(2);
        assertThat(second.committed()).containsExactly(entry(0, 1), entry(1, 0));
        assertThat(log.snapshot(1).shards()).containsExactly(entry(0, 0));
        Snapshot latest = log.latest();
        assertThat(latest.shards()).containsExactly(entry(0, 0), entry(0, 1), entry(1, 0));
        assertThat(latest.sampleCount()).isEqualTo(10 + 10 + 11);
        assertThat(latest.bytes()).isEqualTo(1000 + 1001 + 1000);
        assertThat(store.keys()).containsExactly(DatasetLayout.commitKey("d", "v1", 1), DatasetLayout.commitKey("d", "v1", 2));
        CommitEntry stored = codec.decode(store.get(DatasetLayout.commitKey("d", "v1", 2)).orElseThrow());
        assertThat(stored.committedAt()).isEqualTo(NOW);
        assertThat(stored.committer()).isEqualTo("sink-a");
        assertThat(stored.sourceOffsets()).containsEntry("samples-0", 20L);
    }

    @Test
    void shouldTreatAShardCommittedWithTheSameBytesAsAReplay() {
        log.commit(List.of(entry(0, 0), entry(0, 1)), "sink", Map.of());
        int puts = store.putCount();

        CommitResult replay = log.commit(List.of(entry(0, 1), entry(0, 0)), "sink", Map.of());
        CommitResult partial = log.commit(List.of(entry(0, 1), entry(0, 2)), "sink", Map.of());

        assertThat(replay.nothingNew()).isTrue();
        assertThat(replay.snapshotId()).isEqualTo(1);
        assertThat(replay.alreadyCommitted()).containsExactly(entry(0, 1), entry(0, 0));
        assertThat(partial.snapshotId()).isEqualTo(2);
        assertThat(partial.committed()).containsExactly(entry(0, 2));
        assertThat(partial.alreadyCommitted()).containsExactly(entry(0, 1));
        assertThat(store.putCount()).isEqualTo(puts + 1);
        assertThat(log.latest().shards()).containsExactly(entry(0, 0), entry(0, 1), entry(0, 2));
    }

    @Test
    void shouldRefuseASameIdShardWithDifferentBytes() {
        log.commit(List.of(entry("d", "v1", 0, 0, 1)), "sink", Map.of());

        assertThatThrownBy(() -> log.commit(List.of(entry(0, 5), entry("d", "v1", 0, 0, 2)), "sink", Map.of()))
                .isInstanceOf(ShardConflictException.class)
                .hasMessageContaining("d/v1/lane-00000/shard-000000000000")
                .hasMessageContaining("snapshot 1");
        assertThat(log.latest().snapshotId()).isEqualTo(1);
    }

    @Test
    void shouldSeeCommitsMadeThroughAnotherInstance() {
        CommitLog other = new CommitLog(store, "d", "v1", clock);
        other.commit(List.of(entry(3, 0)), "sink-b", Map.of());

        assertThat(log.latest().shards()).containsExactly(entry(3, 0));
        assertThat(log.commit(List.of(entry(3, 0)), "sink-a", Map.of()).nothingNew()).isTrue();
        assertThat(log.commit(List.of(entry(3, 1)), "sink-a", Map.of()).snapshotId()).isEqualTo(2);
        assertThat(other.latest().snapshotId()).isEqualTo(2);
    }

    @Test
    void shouldRetryOnTheNextIdWhenAnotherCommitterTookIt() {
        CommitLog other = new CommitLog(store, "d", "v1", clock);
        log.latest(); // this instance now believes snapshot 0 is the latest
        other.commit(List.of(entry(1, 0)), "sink-b", Map.of());

        CommitResult result = log.commit(List.of(entry(2, 0)), "sink-a", Map.of());

        assertThat(result.snapshotId()).isEqualTo(2);
        assertThat(log.latest().shards()).containsExactly(entry(1, 0), entry(2, 0));
    }

    @Test
    void shouldGiveUpAfterBoundedContentionWithoutWriting() {
        // Every attempt sees the id taken yet never finds the winning entry: only a broken store does that.
        AtomicInteger attempts = new AtomicInteger();
        ForwardingObjectStore alwaysTaken = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, byte[] bytes) {
                attempts.incrementAndGet();
                return PutOutcome.ALREADY_EXISTS;
            }
        };
        CommitLog contended = new CommitLog(alwaysTaken, "d", "v1", clock);

        assertThatThrownBy(() -> contended.commit(List.of(entry(0, 0)), "sink", Map.of()))
                .isInstanceOf(CommitContentionException.class)
                .hasMessageContaining("20 times");
        assertThat(attempts).hasValue(CommitLog.MAX_ATTEMPTS);
        assertThat(store.keys()).isEmpty();
    }

    @Test
    void shouldRecogniseItsOwnCommitAfterALostResponse() {
        // The server stored the entry but the answer never arrived (timeout): the retry must not commit twice.
        ForwardingObjectStore lostResponse = new ForwardingObjectStore(store) {
            private boolean lost;

            @Override
            public PutOutcome putIfAbsent(String key, byte[] bytes) {
                PutOutcome outcome = delegate.putIfAbsent(key, bytes);
                if (!lost) {
                    lost = true;
                    throw new ObjectStoreException("putIfAbsent", key, "read timed out");
                }
                return outcome;
            }
        };
        CommitLog flaky = new CommitLog(lostResponse, "d", "v1", clock);

        assertThatThrownBy(() -> flaky.commit(List.of(entry(0, 0)), "sink", Map.of())).isInstanceOf(ObjectStoreException.class);
        CommitResult retry = flaky.commit(List.of(entry(0, 0)), "sink", Map.of());

        assertThat(retry.nothingNew()).isTrue();
        assertThat(retry.snapshotId()).isEqualTo(1);
        assertThat(flaky.latest().shards()).containsExactly(entry(0, 0));
    }

    @Test
    void shouldRefuseASnapshotBeyondTheLatest() {
        log.commit(List.of(entry(0, 0)), "sink", Map.of());

        assertThatThrownBy(() -> log.snapshot(2)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("latest is 1");
        assertThatThrownBy(() -> log.snapshot(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldDetectAGapInTheLog() {
        CommitEntry orphan = new CommitEntry(1, 2, List.of(entry(0, 0)), "rogue", Map.of(), NOW);
        store.putIfAbsent(DatasetLayout.commitKey("d", "v1", 2), codec.encode(orphan));

        assertThatThrownBy(log::latest).isInstanceOf(IllegalStateException.class).hasMessageContaining("entry 2 where 1 was expected");
    }

    @Test
    void shouldKeepTheNewestOffsetPerSource() {
        log.commit(List.of(entry(0, 0)), "sink", Map.of("samples-0", 10L, "samples-1", 5L));
        log.commit(List.of(entry(0, 1)), "sink", Map.of("samples-0", 20L));

        assertThat(new CommitLog(store, "d", "v1", clock).latestSourceOffsets())
                .containsExactly(Map.entry("samples-0", 20L), Map.entry("samples-1", 5L));
    }

    @Test
    void shouldRefuseMalformedCommitRequests() {
        assertThatThrownBy(() -> log.commit(List.of(), "sink", Map.of())).hasMessageContaining("empty");
        assertThatThrownBy(() -> log.commit(List.of(entry("other", "v1", 0, 0, 0)), "sink", Map.of()))
                .hasMessageContaining("cannot be committed to the log of d/v1");
        assertThatThrownBy(() -> log.commit(List.of(entry(0, 0), entry(0, 0)), "sink", Map.of()))
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> log.commit(List.of(entry(0, 0)), " ", Map.of())).hasMessageContaining("committer");
        assertThat(store.keys()).isEmpty();
    }
}
