package io.shardflow.dataset.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.store.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The optional pageIndexSha256 of a shard entry in log entries and checkpoints (dataset/FORMAT.md). */
class ShardEntryPageIndexTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);
    private final CommitLogCodec codec = new CommitLogCodec();

    @Test
    void shouldWriteTheFieldOnlyForShardsWithAnIndex() {
        ShardEntry plain = ShardEntries.entry(0, 1);
        ShardEntry indexed = ShardEntries.entry(0, 2).withPageIndex("e".repeat(64));
        CommitEntry entry = new CommitEntry(CommitEntry.FORMAT_VERSION, 1, List.of(plain, indexed), "t", Map.of(), CLOCK.instant());

        byte[] json = codec.encode(entry);

        String text = new String(json, StandardCharsets.UTF_8);
        assertThat(text.split("pageIndexSha256", -1)).hasSize(2);
        assertThat(codec.decode(json).addedShards()).containsExactly(plain, indexed);
    }

    @Test
    void shouldRefuseAMalformedHash() {
        assertThatThrownBy(() -> ShardEntries.entry(0, 1).withPageIndex("xyz")).hasMessageContaining("pageIndexSha256");
    }

    @Test
    void shouldCarryIndexesThroughCheckpoints() {
        InMemoryObjectStore store = new InMemoryObjectStore();
        CommitLog writer = new CommitLog(store, "d", "v1", CLOCK, 2);
        List<ShardEntry> all = new ArrayList<>();
        for (int sequence = 1; sequence <= 5; sequence++) {
            ShardEntry shard = ShardEntries.entry(0, sequence);
            shard = sequence % 2 == 0 ? shard : shard.withPageIndex(String.format("%064x", sequence));
            all.add(shard);
            writer.commit(List.of(shard), "t", Map.of());
        }

        Snapshot fromCheckpoints = new CommitLog(store, "d", "v1", CLOCK).latest();

        assertThat(fromCheckpoints.shards()).containsExactlyElementsOf(all);
        assertThat(CommitLog.entriesOnly(store, "d", "v1", CLOCK).latest().shards()).containsExactlyElementsOf(all);
    }
}
