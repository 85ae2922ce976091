package io.shardflow.sink.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitResult;
import io.shardflow.dataset.log.ShardEntries;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.dataset.retry.Retrier;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ShardCommitterTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), ZoneOffset.UTC);

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final List<Duration> sleeps = new ArrayList<>();
    private final Retrier retrier = new Retrier(3, Duration.ofMillis(10), Duration.ofMillis(100), sleeps::add);

    @Test
    void shouldRecogniseShardsCommittedByItselfAndByOthers() {
        ShardEntry byOther = ShardEntries.entry(0, 1);
        new ShardCommitter(store, CLOCK, retrier, "other").commit("d", "v1", List.of(byOther), Map.of());
        ShardCommitter committer = new ShardCommitter(store, CLOCK, retrier, "me");

        assertThat(committer.isCommitted(byOther.id())).isTrue();
        assertThat(committer.isCommitted(new ShardId("d", "v1", 0, 2))).isFalse();

        CommitResult result = committer.commit("d", "v1", List.of(ShardEntries.entry(0, 2), byOther), Map.of("t-0", 9L));

        assertThat(result.snapshotId()).isEqualTo(2);
        assertThat(result.committed()).containsExactly(ShardEntries.entry(0, 2));
        assertThat(result.alreadyCommitted()).containsExactly(byOther);
        assertThat(committer.isCommitted(new ShardId("d", "v1", 0, 2))).isTrue();
    }

    @Test
    void shouldRetryReadingTheLogForTheReplayCheck() {
        AtomicInteger failures = new AtomicInteger(2);
        ForwardingObjectStore flaky = new ForwardingObjectStore(store) {
            @Override
            public List<String> list(String prefix, String startAfter, int maxKeys) {
                if (failures.getAndDecrement() > 0) {
                    throw new ObjectStoreException("list", prefix, "connection reset");
                }
                return super.list(prefix, startAfter, maxKeys);
            }
        };
        new ShardCommitter(store, CLOCK, retrier, "other").commit("d", "v1", List.of(ShardEntries.entry(0, 1)), Map.of());

        ShardCommitter committer = new ShardCommitter(flaky, CLOCK, retrier, "me");

        assertThat(committer.isCommitted(new ShardId("d", "v1", 0, 1))).isTrue();
        assertThat(sleeps).hasSize(2);
    }

    @Test
    void shouldRetryACommitThatFailedBeforeReachingTheStore() {
        AtomicInteger failures = new AtomicInteger(1);
        ForwardingObjectStore flaky = new ForwardingObjectStore(store) {
            @Override
            public io.shardflow.dataset.store.PutOutcome putIfAbsent(String key, byte[] bytes) {
                if (failures.getAndDecrement() > 0) {
                    throw new ObjectStoreException("putIfAbsent", key, "connection refused");
                }
                return super.putIfAbsent(key, bytes);
            }
        };

        CommitResult result = new ShardCommitter(flaky, CLOCK, retrier, "me")
                .commit("d", "v1", List.of(ShardEntries.entry(0, 1)), Map.of());

        assertThat(result.snapshotId()).isEqualTo(1);
        assertThat(store.keys()).containsExactly(DatasetLayout.commitKey("d", "v1", 1));
    }

    @Test
    void shouldReadTheSpecOnceAndKeepIt() {
        new DatasetCatalog(store).create(Specs.imageSpec("d", "v1"));
        AtomicInteger reads = new AtomicInteger();
        ForwardingObjectStore counting = new ForwardingObjectStore(store) {
            @Override
            public Optional<byte[]> get(String key) {
                reads.incrementAndGet();
                return super.get(key);
            }
        };
        ShardCommitter committer = new ShardCommitter(counting, CLOCK, retrier, "me");

        assertThat(committer.spec("d", "v1").fingerprint()).isEqualTo(Specs.imageSpec("d", "v1").fingerprint());
        committer.spec("d", "v1");

        assertThat(reads).hasValue(1);
    }

    @Test
    void shouldNameTheDatasetWhoseSpecIsMissing() {
        ShardCommitter committer = new ShardCommitter(store, CLOCK, retrier, "me");

        assertThatThrownBy(() -> committer.spec("d", "v9"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("d/v9 has no spec");
    }
}
