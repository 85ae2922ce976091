package io.shardflow.reader;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.dataset.log.ShardEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The Java reader against the shared test vectors of docs/READING-RULES.md
 * (docs/reading-vectors.json, written by the Python package): SplitMix64 values, block keys,
 * apportioning, and for every case the epoch order, each rank's length, padding, each worker's
 * batches and the consumed count after each batch.
 */
class ReadingVectorsTest {

    private static JsonNode vectors;

    @BeforeAll
    static void readVectors() throws IOException {
        vectors = new ObjectMapper().readTree(vectorsFile().toFile());
        assertThat(vectors.get("format").asText()).isEqualTo("shardflow.reading-vectors/1");
        assertThat(vectors.get("cases")).as("cases in the file").hasSizeGreaterThanOrEqualTo(7);
    }

    @Test
    void shouldComputeSplitMix64AsTheVectorsSay() {
        for (JsonNode pair : vectors.get("mix64")) {
            long z = Long.parseUnsignedLong(pair.get(0).asText());
            assertThat(Long.toUnsignedString(EpochOrder.mix64(z))).as("mix64(%s)", pair.get(0)).isEqualTo(pair.get(1).asText());
        }
    }

    @Test
    void shouldComputeBlockAndOffsetKeysAsTheVectorsSay() {
        for (JsonNode v : vectors.get("block_keys")) {
            long key = EpochOrder.blockKey(v.get("seed").asLong(), v.get("epoch").asLong(), v.get("block").asLong());
            assertThat(Long.toUnsignedString(key)).as("block key %s", v).isEqualTo(v.get("key").asText());
            List<String> offsets = new ArrayList<>();
            for (int j = 0; j < v.get("offset_keys").size(); j++) {
                offsets.add(Long.toUnsignedString(EpochOrder.offsetKey(key, j)));
            }
            assertThat(offsets).as("offset keys %s", v).isEqualTo(texts(v.get("offset_keys")));
        }
    }

    @Test
    void shouldApportionAsTheVectorsSay() {
        for (JsonNode v : vectors.get("apportion")) {
            List<Double> weights = texts(v.get("weights")).stream().map(Double::parseDouble).toList();
            assertThat(MixedOrder.apportion(v.get("total").asLong(), weights)).as("apportion %s", v)
                    .isEqualTo(longs(v.get("counts")));
        }
    }

    @TestFactory
    Stream<DynamicTest> shouldGiveEachCaseTheVectorsOrderRanksAndWorkersBatches() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : vectors.get("cases")) {
            tests.add(DynamicTest.dynamicTest(c.get("name").asText(), () -> checkCase(c)));
        }
        return tests.stream();
    }

    private static void checkCase(JsonNode c) {
        JsonNode expected = c.get("expected");
        List<MixedOrder.MixSource> sources = new ArrayList<>();
        for (JsonNode s : c.get("sources")) {
            List<ShardEntry> shards = new ArrayList<>();
            for (JsonNode shard : s.get("shards")) {
                shards.add(TestShards.entry(shard.get(0).asText(), shard.get(1).asInt()));
            }
            sources.add(new MixedOrder.MixSource(shards, c.get("shuffle_shards").asBoolean(), c.get("shuffle_block").asInt()));
        }
        List<Long> counts = countsOf(c, sources);
        assertThat(counts).as("counts").isEqualTo(longs(expected.get("counts")));
        MixedOrder order = new MixedOrder(sources, counts, c.get("seed").asLong(), c.get("epoch").asLong());
        boolean mixed = sources.size() > 1;
        assertThat(order.size()).isEqualTo(expected.get("samples").asLong());
        long[] all = new long[(int) order.size()];
        for (int p = 0; p < all.length; p++) {
            all[p] = p;
        }
        assertThat(named(order, all, mixed)).as("the epoch order").isEqualTo(expected.get("order").toString());

        int worldSize = c.get("world_size").asInt();
        int workers = c.get("num_workers").asInt();
        int batchSize = c.get("batch_size").asInt();
        for (int rank = 0; rank < worldSize; rank++) {
            JsonNode want = expected.get("ranks").get(rank);
            RankShare share = new RankShare(order.size(), c.get("consumed").asLong(), rank, worldSize,
                    c.get("drop_last").asBoolean());
            assertThat(share.length()).as("rank %d length", rank).isEqualTo(want.get("length").asLong());
            assertThat(share.padding()).as("rank %d padding", rank).isEqualTo(want.get("padding").asLong());
            long batches = share.batchCount(batchSize);
            StringBuilder perWorker = new StringBuilder("[");
            for (int w = 0; w < Math.max(workers, 1); w++) {
                perWorker.append(w == 0 ? "[" : ",[");
                int stride = RankShare.workerStride(w, workers);
                for (long j = w; j < batches; j += stride) {
                    perWorker.append(j == w ? "" : ",").append(named(order, share.batch(j, batchSize), mixed));
                }
                perWorker.append("]");
            }
            assertThat(perWorker.append("]").toString()).as("rank %d workers' batches", rank)
                    .isEqualTo(want.get("workers").toString());
            List<Long> consumed = new ArrayList<>();
            for (long k = 0; k <= batches; k++) {
                consumed.add(share.consumedAfter(k, batchSize));
            }
            assertThat(consumed).as("rank %d consumed after each batch", rank).isEqualTo(longs(want.get("consumed_after_batches")));
        }
    }

    /** As the vectors' generator: weights, counts, or one dataset read whole. */
    private static List<Long> countsOf(JsonNode c, List<MixedOrder.MixSource> sources) {
        JsonNode first = c.get("sources").get(0);
        if (sources.size() == 1 && !first.has("weight") && !first.has("count")) {
            return List.of(sources.get(0).size());
        }
        List<Long> counts = new ArrayList<>();
        List<Double> weights = new ArrayList<>();
        for (JsonNode s : c.get("sources")) {
            if (s.has("count")) {
                counts.add(s.get("count").asLong());
            } else {
                weights.add(s.get("weight").asDouble());
            }
        }
        if (!counts.isEmpty()) {
            return counts;
        }
        long total = c.has("epoch_samples") ? c.get("epoch_samples").asLong() : sources.stream().mapToLong(MixedOrder.MixSource::size).sum();
        return MixedOrder.apportion(total, weights);
    }

    /** Positions as the vectors' JSON text: [[shardId, row], ...], or [[source, shardId, row], ...] for a mix. */
    private static String named(MixedOrder order, long[] positions, boolean mixed) {
        ObjectMapper json = new ObjectMapper();
        var list = json.createArrayNode();
        for (MixedOrder.Entry e : order.entries(positions)) {
            var item = list.addArray();
            if (mixed) {
                item.add(e.source());
            }
            item.add(e.shard().shardId()).add(e.row());
        }
        return list.toString();
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static List<Long> longs(JsonNode array) {
        List<Long> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asLong()));
        return out;
    }

    /** docs/reading-vectors.json of this checkout, found from the module directory upwards. */
    static Path vectorsFile() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path file = dir.resolve("docs").resolve("reading-vectors.json");
            if (Files.isRegularFile(file)) {
                return file;
            }
        }
        throw new IllegalStateException("docs/reading-vectors.json not found above " + Path.of("").toAbsolutePath());
    }
}
