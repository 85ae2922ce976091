package io.shardflow.dataset.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.RetentionPolicy;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.pages.PageIndexCodec;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.verify.SnapshotVerifier;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Page indexes through the lifecycle: rewrites write them, expiry collects them with their shards, verify checks them. */
class PageIndexLifecycleTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private ShardPublisher publisher;
    private CommitLog log;

    @BeforeEach
    void setUp() {
        store.useClock(Clock.offset(CLOCK, Duration.ofDays(-1)));
        publisher = new ShardPublisher(store, "cams", "v1", tmp, CLOCK);
        log = new CommitLog(store, "cams", "v1", CLOCK, 4);
    }

    @Test
    void shouldGiveRewrittenShardsAPageIndexAndCollectTheIndexesOfExpiredShards() {
        publisher.publish(1, 3, 4);
        ShardRewriter rewriter = new ShardRewriter(store, publisher.spec(), new ShardWriter(), tmp);
        new Compactor(log, rewriter, "c").compact(publisher.spec().fingerprint(), 10, line -> { });
        ShardEntry merged = log.latest().shards().get(0);
        assertThat(merged.hasPageIndex()).isTrue();
        byte[] index = store.get(DatasetLayout.pageIndexKey(merged.objectKey())).orElseThrow();
        assertThat(ShardFileDigest.sha256Hex(index, 0, index.length)).isEqualTo(merged.pageIndexSha256());
        assertThat(PageIndexCodec.decode(index, "merged").shardSha256()).isEqualTo(merged.sha256());

        new Expirer(log, new GarbageCollector(store, CLOCK), CLOCK, "t").expire("cams", "v1",
                new Expirer.Request(new RetentionPolicy(OptionalInt.of(1), OptionalInt.empty()), OptionalLong.empty(),
                        Duration.ofHours(1), false), line -> { });

        String shards = DatasetLayout.versionPrefix("cams", "v1") + "shards/";
        assertThat(store.keys()).filteredOn(k -> k.startsWith(shards))
                .containsExactlyInAnyOrder(merged.objectKey(), DatasetLayout.pageIndexKey(merged.objectKey()));
        assertThat(new SnapshotVerifier(store, tmp).verify(log.latest()).problems()).isEmpty();
    }

    @Test
    void shouldReportAPageIndexThatDoesNotMatchItsShard() {
        publisher.publish(1, 5);
        Snapshot snapshot = log.latest();
        String indexKey = DatasetLayout.pageIndexKey(snapshot.shards().get(0).objectKey());
        ForwardingObjectStore damaged = new ForwardingObjectStore(store) {
            @Override
            public Optional<byte[]> get(String key) {
                return key.equals(indexKey) ? Optional.of("{}".getBytes()) : super.get(key);
            }
        };

        assertThat(new SnapshotVerifier(damaged, tmp).verify(snapshot).problems())
                .singleElement().asString().contains("page index " + indexKey + " has sha256");
    }
}
