package io.shardflow.ingest.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.ingest.seal.SealLimits;
import io.shardflow.ingest.support.IngestDriver;
import io.shardflow.ingest.support.TestSamples;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.SealReason;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardSealed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IngestTopologyTest {

    @TempDir
    Path stateDir;

    private IngestDriver ingest;

    private void start(SealLimits limits) {
        ingest = new IngestDriver(stateDir, IngestDriver.Options.defaults(limits));
    }

    @AfterEach
    void stop() {
        if (ingest != null) {
            ingest.close();
        }
    }

    private byte[] encode(Object value) {
        return ingest.encode(value);
    }

    private void publish(Sample sample) {
        ingest.publish(sample);
    }

    private List<ShardEvent> drainAssignments() {
        return ingest.drainAssignments();
    }

    private static String header(TestRecord<byte[], byte[]> record, String name) {
        return IngestDriver.header(record, name);
    }

    @Test
    void shouldAssignValidSamplesInOrderAndSealOnCount() {
        start(new SealLimits(3, 1 << 20, Duration.ofMinutes(10)));
        for (int i = 0; i < 4; i++) {
            publish(TestSamples.sample("s-" + i));
        }
        List<ShardEvent> events = drainAssignments();

        assertThat(events).hasSize(5);
        for (int i = 0; i < 3; i++) {
            assertThat(events.get(i).getSequence()).isEqualTo(0L);
            SampleAssigned assigned = (SampleAssigned) events.get(i).getBody();
            assertThat(assigned.getIndex()).isEqualTo(i);
            assertThat(ingest.assignedSample(events.get(i))).isEqualTo(TestSamples.sample("s-" + i));
        }
        ShardSealed seal = (ShardSealed) events.get(3).getBody();
        assertThat(events.get(3).getSequence()).isEqualTo(0L);
        assertThat(seal.getSampleCount()).isEqualTo(3);
        assertThat(seal.getPayloadBytes()).isEqualTo(3L * TestSamples.PAYLOAD_BYTES);
        assertThat(seal.getReason()).isEqualTo(SealReason.COUNT);
        assertThat(seal.getSpecFingerprint()).isEqualTo(TestSamples.spec().fingerprint());
        assertThat(events.get(4).getSequence()).isEqualTo(1L);
        assertThat(((SampleAssigned) events.get(4).getBody()).getIndex()).isZero();
        assertThat(ingest.drainDeadLetters().isEmpty()).isTrue();
    }

    @Test
    void shouldSealBeforeASampleThatWouldExceedTheByteBudget() {
        start(new SealLimits(100, (long) (2.5 * (TestSamples.PAYLOAD_BYTES + TestSamples.ATTRIBUTE_BYTES)), Duration.ofMinutes(10)));
        for (int i = 0; i < 3; i++) {
            publish(TestSamples.sample("s-" + i));
        }
        List<ShardEvent> events = drainAssignments();

        assertThat(events).hasSize(4);
        ShardSealed seal = (ShardSealed) events.get(2).getBody();
        assertThat(seal.getReason()).isEqualTo(SealReason.BYTES);
        assertThat(seal.getSampleCount()).isEqualTo(2);
        assertThat(events.get(3).getSequence()).isEqualTo(1L);
        assertThat(ingest.assignedSample(events.get(3)).getSampleId()).isEqualTo("s-2");
    }

    @Test
    void shouldSealAQuietShardOnWallClockAgeOnly() {
        start(new SealLimits(100, 1 << 20, Duration.ofSeconds(30)));
        publish(TestSamples.sample("lonely"));
        assertThat(drainAssignments()).hasSize(1);

        ingest.advanceWallClockTime(Duration.ofSeconds(29));
        assertThat(drainAssignments()).isEmpty();

        ingest.advanceWallClockTime(Duration.ofSeconds(1));
        List<ShardEvent> events = drainAssignments();
        assertThat(events).hasSize(1);
        ShardSealed seal = (ShardSealed) events.get(0).getBody();
        assertThat(seal.getReason()).isEqualTo(SealReason.AGE);
        assertThat(seal.getSampleCount()).isEqualTo(1);

        ingest.advanceWallClockTime(Duration.ofMinutes(5));
        assertThat(drainAssignments()).as("an empty lane is never sealed").isEmpty();
        publish(TestSamples.sample("next"));
        assertThat(drainAssignments().get(0).getSequence()).isEqualTo(1L);
    }

    @Test
    void shouldNameTheSourceOffsetsOfAcceptedRecordsOnlySkippingTheDeadLettered() {
        start(new SealLimits(100, 1 << 20, Duration.ofMinutes(10)));
        publish(TestSamples.sample("a"));                 // offset 0
        ingest.pipe("garbage", new byte[] {1, 2, 3});     // offset 1: dead-lettered
        publish(TestSamples.sample("a"));                 // offset 2: duplicate, dead-lettered
        publish(TestSamples.sample("b"));                 // offset 3

        List<ShardEvent> events = drainAssignments();
        assertThat(events).extracting(e -> ((SampleAssigned) e.getBody()).getSourceOffset()).containsExactly(0L, 3L);
        assertThat(events).extracting(e -> ((SampleAssigned) e.getBody()).getIndex()).containsExactly(0, 1);
        assertThat(ingest.drainDeadLetters()).hasSize(2);
    }

    @Test
    void shouldSendDuplicateSampleIdToDeadLettersAndNotAssignIt() {
        start(new SealLimits(100, 1 << 20, Duration.ofMinutes(10)));
        publish(TestSamples.sample("dup"));
        byte[] again = encode(TestSamples.sample("dup"));
        ingest.pipe("dup", again);

        assertThat(drainAssignments()).hasSize(1);
        List<TestRecord<byte[], byte[]>> dead = ingest.drainDeadLetters();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), DeadLetters.REASON_HEADER)).isEqualTo("DUPLICATE_SAMPLE_ID");
        assertThat(dead.get(0).value()).isEqualTo(again);
    }

    @Test
    void shouldSendEachKindOfInvalidRecordToDeadLettersWithItsReasonAndOriginalBytes() {
        start(new SealLimits(100, 1 << 20, Duration.ofMinutes(10)));
        Sample wrongShape = TestSamples.sample("shape", new float[] {1, 2, 3, 4, 5, 6}, 1);
        wrongShape.getTensors().get(0).setShape(List.of(3, 2));
        Sample wrongDtype = TestSamples.sample("dtype");
        wrongDtype.getTensors().get(1).setDtype(io.shardflow.schemas.DType.INT32);
        Sample shortBytes = TestSamples.sample("short", new float[] {1, 2, 3}, 1);
        Sample nan = TestSamples.sample("nan", new float[] {1, Float.NaN, 3, 4}, 1);
        Sample unknownDataset = TestSamples.sample("unknown");
        unknownDataset.setDataset("nope");
        Sample unknownVersion = TestSamples.sample("unknown-version");
        unknownVersion.setVersion("v9");
        Sample missingTensor = TestSamples.sample("missing");
        missingTensor.setTensors(List.of(missingTensor.getTensors().get(0)));

        Map<String, byte[]> cases = new java.util.LinkedHashMap<>();
        cases.put("NOT_AVRO", new byte[] {42, 1, 2, 3, 4, 5, 6});
        cases.put("NULL_VALUE", null);
        cases.put("SHAPE_MISMATCH", encode(wrongShape));
        cases.put("DTYPE_MISMATCH", encode(wrongDtype));
        cases.put("BYTE_LENGTH_MISMATCH", encode(shortBytes));
        cases.put("NON_FINITE_VALUE", encode(nan));
        cases.put("UNKNOWN_DATASET", encode(unknownDataset));
        cases.put("UNKNOWN_VERSION", encode(unknownVersion));
        cases.put("MISSING_TENSOR", encode(missingTensor));
        cases.put("UNKNOWN_SCHEMA", new byte[] {0, 0, 0, 0x7f, 0x7f, 2, 4});
        cases.put("OVERSIZE_SAMPLE", encode(TestSamples.sample("huge", new float[2000], 1)));
        cases.forEach(ingest::pipe);
        publish(TestSamples.sample("good"));

        List<TestRecord<byte[], byte[]>> dead = ingest.drainDeadLetters();
        assertThat(dead).hasSize(cases.size());
        for (TestRecord<byte[], byte[]> record : dead) {
            String expected = new String(record.key(), StandardCharsets.UTF_8);
            assertThat(header(record, DeadLetters.REASON_HEADER)).as("reason for %s", expected).isEqualTo(expected);
            assertThat(header(record, DeadLetters.DETAIL_HEADER)).isNotBlank();
            assertThat(header(record, DeadLetters.SOURCE_HEADER)).startsWith("samples/0/");
            assertThat(record.value()).isEqualTo(cases.get(expected));
        }
        List<ShardEvent> accepted = drainAssignments();
        assertThat(accepted).hasSize(1);
        assertThat(ingest.assignedSample(accepted.get(0)).getSampleId()).isEqualTo("good");
    }
}
