package io.shardflow.console.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardContents;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The rule the snapshot page rests on: statistics merged shard by shard equal the statistics of all the
 * rows read at once, however the rows are split into shards (NaN and infinities, empty strings, any
 * labels and devices included).
 */
class ShardStatsPropertyTest {

    private static final DatasetSpec SPEC = new DatasetSpec("d", "v1", List.of(TensorSpec.parse("x:float32:3"),
            TensorSpec.parse("label:string")), "label", "t", "", 0, true, Instant.EPOCH);

    record Row(float a, float b, float c, String label, String device, long time) {
    }

    @Provide
    Arbitrary<List<Row>> rows() {
        Arbitrary<Float> value = Arbitraries.oneOf(Arbitraries.floats().between(-1e6f, 1e6f),
                Arbitraries.of(Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f));
        Arbitrary<String> label = Arbitraries.of("", "cat", "dog", "<script>", "\u00e9t\u00e9");
        Arbitrary<String> device = Arbitraries.strings().withCharRange('a', 'e').ofMinLength(1).ofMaxLength(2);
        return Combinators.combine(value, value, value, label, device, Arbitraries.longs().between(0, 1L << 40))
                .as(Row::new).list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 200)
    void shouldMergeShardsIntoTheStatisticsOfAllTheirRows(@ForAll("rows") List<Row> rows, @ForAll @IntRange(min = 1, max = 7) int perShard) {
        ShardStats whole = ShardStats.of(SPEC, contents(rows));
        ShardStats merged = ShardStats.empty();
        for (int from = 0; from < rows.size(); from += perShard) {
            merged = merged.plus(ShardStats.of(SPEC, contents(rows.subList(from, Math.min(rows.size(), from + perShard)))));
        }

        assertThat(merged.samples()).isEqualTo(whole.samples()).isEqualTo(rows.size());
        assertThat(merged.labels()).isEqualTo(whole.labels());
        assertThat(merged.devices()).isEqualTo(whole.devices());
        assertThat(merged.firstProducedAt()).isEqualTo(whole.firstProducedAt());
        assertThat(merged.lastProducedAt()).isEqualTo(whole.lastProducedAt());
        TensorStats x = merged.tensors().get("x");
        TensorStats all = whole.tensors().get("x");
        assertThat(x.min()).isEqualTo(all.min());
        assertThat(x.max()).isEqualTo(all.max());
        assertThat(x.nonFinite()).isEqualTo(all.nonFinite());
        assertThat(x.values()).isEqualTo(3L * rows.size());
        assertThat(x.sum()).isCloseTo(all.sum(), org.assertj.core.data.Offset.offset(1e-6 * Math.max(1, Math.abs(all.sum()))));
        assertThat(merged.tensors().get("label").emptyRows()).isEqualTo(rows.stream().filter(r -> r.label().isEmpty()).count());
    }

    private static ShardContents contents(List<Row> rows) {
        List<SampleRow> out = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            byte[] x = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putFloat(r.a()).putFloat(r.b()).putFloat(r.c()).array();
            out.add(new SampleRow("s" + i, r.device(), r.time(), Map.of("x", x, "label", r.label().getBytes(StandardCharsets.UTF_8)), Map.of()));
        }
        return new ShardContents("d", "v1", "d/v1/lane-00000/shard-000000000000", SPEC.fingerprint(), out);
    }
}
