package io.shardflow.dataset.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.RetentionPolicy;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A version whose sink uploaded shards and died before its first commit: expire collects the old uploads. */
class ExpireEmptyVersionTest {

    private static final Clock NOW = Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), ZoneOffset.UTC);
    private static final Duration WINDOW = Duration.ofHours(1);

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();

    @Test
    void shouldDeleteUploadsOlderThanTheWindowAndKeepAnUploadInFlight() {
        ShardPublisher publisher = new ShardPublisher(store, "cams", "v1", tmp, NOW);
        store.useClock(Clock.offset(NOW, Duration.ofHours(-3)));
        ShardEntry crashed = publisher.write(0, 1, 4);
        ShardEntry alsoCrashed = publisher.write(1, 1, 2);
        store.useClock(Clock.offset(NOW, Duration.ofMinutes(-5)));
        ShardEntry inFlight = publisher.write(0, 2, 3);
        CommitLog log = new CommitLog(store, "cams", "v1", NOW);

        Expirer.Result result = expire(log, false);

        assertThat(log.view().latestId()).as("no snapshot, and expire wrote no entry").isZero();
        assertThat(result.expired()).isEmpty();
        // Each upload is a shard and its page index.
        assertThat(result.collected().deleted()).containsExactlyInAnyOrder(crashed.objectKey(), alsoCrashed.objectKey(),
                DatasetLayout.pageIndexKey(crashed.objectKey()), DatasetLayout.pageIndexKey(alsoCrashed.objectKey()));
        assertThat(result.collected().tooNew()).containsExactlyInAnyOrder(inFlight.objectKey(),
                DatasetLayout.pageIndexKey(inFlight.objectKey()));
        assertThat(store.head(crashed.objectKey())).isEmpty();
        assertThat(store.head(inFlight.objectKey())).isPresent();

        // The sink comes back and commits its in-flight upload: a later expire keeps it.
        publisher.commit(java.util.List.of(inFlight));
        store.useClock(NOW);
        assertThat(expire(new CommitLog(store, "cams", "v1", NOW), false).collected().deleted()).isEmpty();
        assertThat(store.head(inFlight.objectKey())).isPresent();
    }

    @Test
    void shouldOnlyReportOnADryRunOfAnEmptyVersion() {
        ShardPublisher publisher = new ShardPublisher(store, "cams", "v1", tmp, NOW);
        store.useClock(Clock.offset(NOW, Duration.ofHours(-3)));
        ShardEntry crashed = publisher.write(0, 1, 4);

        Expirer.Result result = expire(new CommitLog(store, "cams", "v1", NOW), true);

        assertThat(result.collected().deleted()).containsExactlyInAnyOrder(crashed.objectKey(),
                DatasetLayout.pageIndexKey(crashed.objectKey()));
        assertThat(store.head(crashed.objectKey())).isPresent();
    }

    private Expirer.Result expire(CommitLog log, boolean dryRun) {
        return new Expirer(log, new GarbageCollector(store, NOW), NOW, "t").expire("cams", "v1",
                new Expirer.Request(new RetentionPolicy(OptionalInt.of(1), OptionalInt.empty()), OptionalLong.empty(),
                        WINDOW, dryRun), line -> { });
    }
}
