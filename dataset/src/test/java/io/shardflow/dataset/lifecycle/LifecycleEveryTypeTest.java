package io.shardflow.dataset.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.EveryTypeRows;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardWriterKind;
import io.shardflow.dataset.spec.Compression;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.verify.SnapshotVerifier;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Compaction and deletion rewrite shards holding every newer tensor kind (half floats, unsigned,
 * string, bytes, free dimensions) with compression, through both writers: each row comes back
 * with the same bytes and its own shape.
 */
class LifecycleEveryTypeTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path tmp;

    static Stream<Arguments> writersAndCompressions() {
        return Stream.of(Arguments.of("jhdf", "gzip:4"), Arguments.of("jhdf", "lzf"), Arguments.of("hdf5", "none"),
                Arguments.of("hdf5", "gzip:1"));
    }

    @ParameterizedTest(name = "{0} writer, {1}")
    @MethodSource("writersAndCompressions")
    void shouldKeepEveryRowOfEveryTypeThroughCompactionAndDropOnlyTheDeletedOne(String writer, String compression) {
        InMemoryObjectStore store = new InMemoryObjectStore();
        DatasetSpec spec = Specs.spec("mixed", "v1", EveryTypeRows.TENSORS).withCompression(Compression.parse(compression));
        new DatasetCatalog(store).create(spec);
        CommitLog log = new CommitLog(store, "mixed", "v1", CLOCK);
        ShardRewriter rewriter = new ShardRewriter(store, spec, ShardWriterKind.fromSetting(writer).create(), tmp);
        List<SampleRow> published = new ArrayList<>();
        for (int sequence = 0; sequence < 4; sequence++) {
            List<SampleRow> rows = renamed(EveryTypeRows.rows(spec, 5 + sequence, new Random(sequence)), "q" + sequence + "-");
            published.addAll(rows);
            ShardEntry shard = rewriter.write(new ShardId("mixed", "v1", 0, sequence), rows);
            log.commit(List.of(shard), "test", Map.of());
        }

        Compactor.Result compacted = new Compactor(log, rewriter, "test-compact")
                .compact(spec.fingerprint(), 1000, line -> { });
        Snapshot afterCompaction = log.latest();
        String victim = published.get(7).sampleId();
        new SampleDeleter(log, rewriter, "test-delete").delete(SampleFilter.sampleIds(Set.of(victim)), "erasure", line -> { });
        Snapshot afterDelete = log.latest();

        assertThat(compacted.removed()).hasSize(4);
        assertThat(afterCompaction.shards()).hasSize(1);
        assertThat(rowsOf(rewriter, afterCompaction)).containsExactlyInAnyOrderElementsOf(published);
        List<SampleRow> expected = new ArrayList<>(published);
        expected.remove(7);
        assertThat(rowsOf(rewriter, afterDelete)).containsExactlyInAnyOrderElementsOf(expected);
        for (Snapshot snapshot : List.of(afterCompaction, afterDelete)) {
            assertThat(new SnapshotVerifier(store, tmp).verify(spec, snapshot, CLOCK).problems()).isEmpty();
        }
    }

    private static List<SampleRow> rowsOf(ShardRewriter rewriter, Snapshot snapshot) {
        List<SampleRow> rows = new ArrayList<>();
        snapshot.shards().forEach(shard -> rows.addAll(rewriter.rows(shard)));
        return rows;
    }

    private static List<SampleRow> renamed(List<SampleRow> rows, String prefix) {
        return rows.stream().map(r -> new SampleRow(prefix + r.sampleId(), r.deviceId(), r.producedAtMillis(), r.tensors(),
                r.attributes(), r.shapes())).toList();
    }
}
