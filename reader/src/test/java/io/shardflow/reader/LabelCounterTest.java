package io.shardflow.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.shard.TensorBytes;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LabelCounterTest {

    @TempDir
    Path tmp;

    @Test
    void shouldCountSamplesPerLabelValueFromEveryShard() throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        ShardPublisher publisher = new ShardPublisher(store, "d", "v1", Files.createDirectories(tmp.resolve("s")), Clock.systemUTC());
        publisher.publish(0, 4, 2);
        publisher.publish(1, 3);

        Map<String, Long> counts = new LabelCounter(store, tmp.resolve("cache"), 1 << 20)
                .count(publisher.spec(), new CommitLog(store, "d", "v1", Clock.systemUTC()).latest()).orElseThrow();

        // lane 0 seq 0 rows 0..3 -> 0,1,2,0; lane 1 seq 0 rows 0..1 -> 1,2; lane 0 seq 1 rows 0..2 -> 1,2,0
        assertThat(counts).containsExactly(Map.entry("0", 3L), Map.entry("1", 3L), Map.entry("2", 3L));
    }

    @Test
    void shouldPrintLabelsOfTheNewTypes() {
        assertThat(LabelCounter.text(TensorSpec.parse("y:uint64"), TensorBytes.int64(-1))).isEqualTo("18446744073709551615");
        assertThat(LabelCounter.text(TensorSpec.parse("y:uint32"), TensorBytes.int32(-1))).isEqualTo("4294967295");
        assertThat(LabelCounter.text(TensorSpec.parse("y:uint16"), TensorBytes.int16((short) -1))).isEqualTo("65535");
        assertThat(LabelCounter.text(TensorSpec.parse("y:float16"), TensorBytes.int16((short) 0xC100))).isEqualTo("-2.5");
        assertThat(LabelCounter.text(TensorSpec.parse("y:bfloat16"), TensorBytes.int16((short) 0x3FC0))).isEqualTo("1.5");
        assertThat(LabelCounter.text(TensorSpec.parse("y:string"), "chat 猫".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isEqualTo("chat 猫");
    }

    @Test
    void shouldPrintLabelValuesByDtypeAndShape() {
        assertThat(LabelCounter.text(TensorSpec.parse("y:int64"), TensorBytes.int64(-3))).isEqualTo("-3");
        assertThat(LabelCounter.text(TensorSpec.parse("y:bool"), TensorBytes.bytes(1))).isEqualTo("true");
        assertThat(LabelCounter.text(TensorSpec.parse("y:uint8"), TensorBytes.bytes(200))).isEqualTo("200");
        assertThat(LabelCounter.text(TensorSpec.parse("y:float32"), TensorBytes.float32(0.5f))).isEqualTo("0.5");
        assertThat(LabelCounter.text(TensorSpec.parse("y:int32:2"), TensorBytes.int32(0, 1))).isEqualTo("[0, 1]");
    }
}
