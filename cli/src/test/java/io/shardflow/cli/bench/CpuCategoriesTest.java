package io.shardflow.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuCategoriesTest {

    @Test
    void shouldCountAJdkFrameForTheLibraryThatCalledIt() {
        assertThat(CpuCategories.of(List.of("java.lang.System", "java.nio.ByteBuffer", "org.apache.avro.io.BinaryDecoder",
                "io.shardflow.ingest.validate.SampleDecoder"))).isEqualTo("Avro serde");
        assertThat(CpuCategories.of(List.of("sun.nio.ch.FileDispatcherImpl", "sun.nio.ch.FileChannelImpl", "io.jhdf.HdfFileChannel")))
                .isEqualTo("HDF5 write");
        assertThat(CpuCategories.of(List.of("sun.nio.ch.FileDispatcherImpl", "java.io.DataOutputStream", "io.shardflow.dataset.shard.RowSpill",
                "io.shardflow.sink.write.ShardBuilder"))).isEqualTo("shard file: row spill, HDF5 columns (ours)");
        assertThat(CpuCategories.of(List.of("sun.nio.ch.FileDispatcherImpl", "sun.nio.ch.SocketDispatcher",
                "org.apache.kafka.common.network.PlaintextTransportLayer"))).isEqualTo("network I/O");
    }

    @Test
    void shouldCountAChecksumAsSuchWhoeverAskedForIt() {
        assertThat(CpuCategories.of(List.of("sun.security.provider.SHA2", "java.security.MessageDigest", "io.minio.Digest")))
                .isEqualTo("checksum / digest");
    }

    @Test
    void shouldNameThePackageOfAStackItCannotPlace() {
        assertThat(CpuCategories.of(List.of("com.example.Thing", "java.lang.Thread"))).isEqualTo("other (com.example)");
        assertThat(CpuCategories.isWait("epollWait")).isTrue();
        assertThat(CpuCategories.isWait("write0")).isFalse();
    }

    @Test
    void shouldSplitCpuByThreadKindCountingOnlyWhatEachThreadUsedInTheWindow() {
        var before = Map.of(1L, Map.entry("main", 1.0), 2L, Map.entry("C2 CompilerThre", 3.0));
        var after = Map.of(1L, Map.entry("main", 1.5), 2L, Map.entry("C2 CompilerThre", 5.0), 3L, Map.entry("VM Thread", 0.25));

        CpuSplit split = CpuSplit.between(before, after);

        assertThat(split.total()).isEqualTo(2.75);
        assertThat(split.jit()).isEqualTo(2.0);
        assertThat(split.vm()).isEqualTo(0.25);
        assertThat(split.application()).isEqualTo(0.5);
        assertThat(split.per(0.5).total()).isEqualTo(5.5);
    }
}
