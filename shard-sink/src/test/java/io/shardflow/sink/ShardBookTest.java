package io.shardflow.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.schemas.internal.ShardSealed;
import io.shardflow.sink.spool.ShardSpool;
import io.shardflow.sink.spool.SpoolDirectory;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardBookTest {

    private static final TopicPartition P0 = new TopicPartition("shard-assignments", 0);
    private static final TopicPartition P1 = new TopicPartition("shard-assignments", 1);
    private static final ShardSealed SEAL = ShardEvents.seal(ShardEvents.shard(0, 1), 1);

    @TempDir
    Path tmp;
    private SpoolDirectory spools;
    private final ShardBook book = new ShardBook();
    private final ShardId a = ShardEvents.shard(0, 1);
    private final ShardId b = ShardEvents.shard(1, 1);

    @BeforeEach
    void openSpools() {
        spools = SpoolDirectory.open(tmp.resolve("spool"));
    }

    @Test
    void shouldKnowTheSpoolOfAnOpenShardOnly() {
        ShardSpool spool = open(a, P0);

        assertThat(book.spoolOf(a)).isSameAs(spool);
        assertThat(book.spoolOf(b)).isNull();
        assertThat(book.openCount()).isEqualTo(1);
        assertThat(book.partitionsWithOpenShards()).containsExactly(P0);
    }

    @Test
    void shouldMoveASealedShardToPendingInSealOrder() {
        open(a, P0);
        open(b, P1);

        assertThat(book.seal(b, SEAL)).isTrue();
        assertThat(book.seal(a, SEAL)).isTrue();

        assertThat(book.pending()).extracting(p -> p.shard).containsExactly(b, a);
        assertThat(book.openCount()).isZero();
        assertThat(book.partitionsWithOpenShards()).isEmpty();
    }

    @Test
    void shouldRefuseToSealAShardItNeverOpened() {
        assertThat(book.seal(a, SEAL)).isFalse();
        assertThat(book.pendingCount()).isZero();
    }

    @Test
    void shouldDropOnlyTheShardsOfTheGivenPartitionsAndFreeTheirSpools() {
        open(a, P0).append(new byte[] {1, 2, 3});
        open(b, P1).append(new byte[] {4});
        book.seal(a, SEAL);

        book.drop(List.of(P0));

        assertThat(book.pendingCount()).isZero();
        assertThat(book.spoolOf(b)).isNotNull();
        assertThat(spools.fileCount()).as("only b's spool is left").isEqualTo(1);
    }

    @Test
    void shouldDropEverythingWhenStopping() {
        open(a, P0);
        open(b, P1);
        book.seal(b, SEAL);

        book.dropAll();

        assertThat(book.openCount()).isZero();
        assertThat(book.pendingCount()).isZero();
        assertThat(spools.fileCount()).isZero();
    }

    private ShardSpool open(ShardId shard, TopicPartition partition) {
        ShardSpool spool = spools.create(partition.partition(), shard);
        book.open(shard, partition, spool);
        return spool;
    }
}
