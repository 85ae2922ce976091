package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.jhdf.HdfFile;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StreamingShardWriterTest {

    @TempDir
    Path tmp;

    private final StreamingShardWriter writer = new StreamingShardWriter();
    private final ShardReader reader = new ShardReader();

    @Test
    void shouldRoundTripAShardSpanningManyChunksWithAPartialLastOne() {
        DatasetSpec spec = Specs.imageSpec("cifar", "v1");
        List<SampleRow> rows = ShardRoundTripTest.randomRows(spec, 300, new Random(3));
        Path file = tmp.resolve("shard.h5");

        writer.write(file, spec, new ShardId("cifar", "v1", 1, 5), rows);

        try (HdfFile hdf = new HdfFile(file)) {
            // 12,288-byte images: 85 rows per 1 MiB chunk, so 300 rows take 3 whole chunks and a partial one
            assertThat(hdf.getDatasetByPath("tensors/image").getDimensions()).containsExactly(300, 3, 32, 32);
        }
        assertThat(reader.read(file).rows()).containsExactlyElementsOf(rows);
    }

    @Test
    void shouldWriteTheSameBytesWhenShardsStreamFromSeveralThreadsAtOnce() throws Exception {
        // Each thread's chunk writes take the library lock in turn: four shards interleave their calls.
        DatasetSpec spec = Specs.imageSpec("cifar", "v1");
        List<List<SampleRow>> shards = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int n = 0; n < 4; n++) {
            List<SampleRow> rows = ShardRoundTripTest.randomRows(spec, 250, new Random(100 + n));
            shards.add(rows);
            ShardId id = new ShardId("cifar", "v1", n, 1);
            Path file = tmp.resolve("parallel-" + n + ".h5");
            threads.add(new Thread(() -> {
                try (ShardAppender appender = writer.open(file, spec, id, rows.size())) {
                    rows.forEach(appender::append);
                    appender.finish();
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }

        assertThat(failures).isEmpty();
        for (int n = 0; n < 4; n++) {
            Path alone = tmp.resolve("alone-" + n + ".h5");
            writer.write(alone, spec, new ShardId("cifar", "v1", n, 1), shards.get(n));
            assertThat(ShardDigest.sha256(tmp.resolve("parallel-" + n + ".h5"))).isEqualTo(ShardDigest.sha256(alone));
        }
    }

    @Test
    void shouldWriteByteIdenticalFilesForTheSameRowsAcrossManyChunks() throws Exception {
        DatasetSpec spec = Specs.imageSpec("cifar", "v1");
        ShardId id = new ShardId("cifar", "v1", 1, 5);

        writer.write(tmp.resolve("a.h5"), spec, id, ShardRoundTripTest.randomRows(spec, 200, new Random(42)));
        new StreamingShardWriter().write(tmp.resolve("b.h5"), spec, id, ShardRoundTripTest.randomRows(spec, 200, new Random(42)));
        writer.write(tmp.resolve("other.h5"), spec, id, ShardRoundTripTest.randomRows(spec, 200, new Random(43)));

        assertThat(ShardDigest.sha256(tmp.resolve("a.h5"))).isEqualTo(ShardDigest.sha256(tmp.resolve("b.h5")));
        assertThat(ShardDigest.sha256(tmp.resolve("other.h5"))).isNotEqualTo(ShardDigest.sha256(tmp.resolve("a.h5")));
    }

    @Test
    void shouldRefuseWhatTheJhdfWriterRefusesBeforeCreatingAFile() {
        DatasetSpec spec = Specs.imageSpec("cifar", "v1");
        SampleRow bad = new SampleRow("sample-9", "dev", 0,
                Map.of("image", new byte[12287], "label", TensorBytes.int64(1)), Map.of());
        Path file = tmp.resolve("x.h5");

        assertThatThrownBy(() -> writer.write(file, spec, new ShardId("cifar", "v1", 0, 0), List.of(bad)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sample 'sample-9'")
                .hasMessageContaining("tensor 'image'");
        assertThat(file).doesNotExist();
    }

    @ParameterizedTest
    @ValueSource(strings = {"h5py", "tables"})
    void shouldBeReadByPlainPythonLibrariesValueForValue(String library) throws Exception {
        DatasetSpec spec = Specs.spec("d", "v1", TensorSpec.parse("image:float32:3x4"), TensorSpec.parse("label:int64"),
                TensorSpec.parse("ok:bool"), TensorSpec.parse("pix:uint8:7"), TensorSpec.parse("t:int16:2"),
                TensorSpec.parse("q:int8"), TensorSpec.parse("w:int32:2"), TensorSpec.parse("z:float64"));
        List<SampleRow> rows = new ArrayList<>(ShardRoundTripTest.randomRows(spec, 250, new Random(9)));
        // widest strings and non-ASCII text, so the fixed widths are exercised
        SampleRow first = rows.get(0);
        rows.set(0, new SampleRow("échantillon-ü-\uD83D\uDE00", "", first.producedAtMillis(), first.tensors(),
                Map.of("note", "a \"quoted\" ✓ value", "k", "")));
        Path file = tmp.resolve("shard.h5");
        ShardId id = new ShardId("d", "v1", 4, 2);
        writer.write(file, spec, id, rows);

        JsonNode dump = PythonShardDump.dump(library, file, tmp);

        assertThat(dump.at("/attrs/shardflow_format").asInt()).isEqualTo(1);
        assertThat(dump.at("/attrs/dataset").asText()).isEqualTo("d");
        assertThat(dump.at("/attrs/version").asText()).isEqualTo("v1");
        assertThat(dump.at("/attrs/shard_id").asText()).isEqualTo(id.toString());
        assertThat(dump.at("/attrs/spec_fingerprint").asText()).isEqualTo(spec.fingerprint());
        assertThat(dump.at("/attrs/sample_count").asLong()).isEqualTo(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            SampleRow row = rows.get(i);
            assertThat(dump.get("sample_id").get(i).asText()).isEqualTo(row.sampleId());
            assertThat(dump.get("device_id").get(i).asText()).isEqualTo(row.deviceId());
            assertThat(dump.get("produced_at").get(i).asLong()).isEqualTo(row.producedAtMillis());
            assertThat(dump.get("attributes").get(i).asText()).isEqualTo(ShardWriter.attributesJson(row));
            for (TensorSpec tensor : spec.tensors()) {
                JsonNode stored = dump.get("tensors").get(tensor.name());
                assertThat(stored.get("dtype").asText()).isEqualTo(tensor.dtype().numpyName());
                assertThat(Base64.getDecoder().decode(stored.get("rows").get(i).asText()))
                        .as("row %d of %s read by %s", i, tensor.name(), library)
                        .isEqualTo(row.tensors().get(tensor.name()));
            }
        }
        assertThat(dump.get("sample_id")).hasSize(rows.size());
        assertThat(dump.at("/tensors/image/shape").toString()).isEqualTo("[250,3,4]");
        assertThat(Files.size(file)).isPositive();
    }
}
