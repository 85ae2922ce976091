package io.shardflow.dataset.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.store.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PageIndexUploadTest {

    private static final String SHARD = "datasets/d/v1/shards/lane-00000/shard-000000000001.h5";
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final PageIndex index = new PageIndex(4096, 5000, "b".repeat(64), List.of("c".repeat(64), "d".repeat(64)));

    @Test
    void shouldStoreTheIndexNextToItsShardAndReturnTheHashOfItsBytes() {
        String sha = PageIndexUpload.publish(store, SHARD, index).orElseThrow();

        byte[] stored = store.get(SHARD + ".pages.json").orElseThrow();
        assertThat(stored).isEqualTo(PageIndexCodec.encode(index));
        assertThat(sha).isEqualTo(ShardFileDigest.sha256Hex(stored, 0, stored.length));
    }

    @Test
    void shouldAcceptAReplaysIdenticalIndex() {
        String first = PageIndexUpload.publish(store, SHARD, index).orElseThrow();

        assertThat(PageIndexUpload.publish(store, SHARD, index)).contains(first);
        assertThat(store.putCount()).isEqualTo(2);
    }

    @Test
    void shouldNameNoIndexWhenAnotherOneIsAlreadyStored() {
        store.putIfAbsent(SHARD + ".pages.json", "{\"other\":1}".getBytes(StandardCharsets.UTF_8));

        assertThat(PageIndexUpload.publish(store, SHARD, index)).isEmpty();
        assertThat(store.get(SHARD + ".pages.json").orElseThrow()).asString(StandardCharsets.UTF_8).isEqualTo("{\"other\":1}");
    }
}
