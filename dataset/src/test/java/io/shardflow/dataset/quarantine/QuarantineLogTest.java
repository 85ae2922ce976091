package io.shardflow.dataset.quarantine;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuarantineLogTest {

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final QuarantineLog log = new QuarantineLog(store);

    private static QuarantinedShard record(ShardId id, String detail) {
        return new QuarantinedShard(id.toString(), DatasetLayout.shardKey(id), QuarantinedShard.UNBUILDABLE, detail, 3, "f00d",
                Map.of("shard-assignments-0", 42L, "shard-assignments-1", 7L), "sink-1", Instant.parse("2026-03-01T12:00:00Z"));
    }

    @Test
    void shouldStoreEachRecordBesideTheShardsAndListThemInShardOrder() {
        ShardId later = new ShardId("cams", "v1", 1, 0);
        ShardId earlier = new ShardId("cams", "v1", 0, 5);
        log.record(record(later, "b"));
        log.record(record(earlier, "a"));

        assertThat(store.keys()).contains("datasets/cams/v1/quarantine/lane-00000/shard-000000000005.json");
        assertThat(log.list("cams", "v1")).containsExactly(record(earlier, "a"), record(later, "b"));
        assertThat(log.list("cams", "v2")).isEmpty();
    }

    @Test
    void shouldKeepTheFirstRecordOfAShard() {
        ShardId id = new ShardId("cams", "v1", 0, 0);
        assertThat(log.record(record(id, "first"))).isEqualTo(PutOutcome.CREATED);
        assertThat(log.record(record(id, "second"))).isNotEqualTo(PutOutcome.CREATED);
        assertThat(log.list("cams", "v1")).extracting(QuarantinedShard::detail).containsExactly("first");
    }
}
