package io.shardflow.ingest.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.ingest.seal.SealLimits;
import io.shardflow.ingest.support.IngestDriver;
import io.shardflow.ingest.support.TestSamples;
import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import io.shardflow.schemas.internal.SampleAssigned;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;
import org.apache.kafka.streams.test.TestRecord;

/**
 * Fuzzes decode → validate → assign: whatever a producer sends, well-formed Avro with hostile
 * field values or bytes that only look like Avro, the topology must leave exactly one trace per
 * record (an assignment or a dead letter with a reason) and never throw.
 */
class IngestFuzzTest {

    private Path stateDir;
    private IngestDriver ingest;
    /** A valid encoding, which also registers the schema under content id 1. */
    private byte[] valid;

    @BeforeProperty
    void start() throws IOException {
        stateDir = Files.createTempDirectory("ingest-fuzz");
        ingest = new IngestDriver(stateDir, IngestDriver.Options.defaults(new SealLimits(5, 1 << 20, Duration.ofHours(1)))
                .withMaxRecordBytes(64 << 10, 1 << 20));
        valid = ingest.encode(TestSamples.sample("template"));
    }

    @AfterProperty
    void stop() throws IOException {
        ingest.close();
        try (Stream<Path> files = Files.walk(stateDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /**
     * Any sample ingest accepts must also be buildable into a shard: a sample the sink's
     * {@link ShardWriter} refuses would otherwise stop shard-sink on a shard it can never finish.
     */
    @Property(tries = 400)
    void shouldLeaveExactlyOneTraceForAnySampleAndOnlyAssignWhatAShardCanHold(@ForAll("samples") Sample sample) {
        ingest.pipe("k", ingest.encode(sample));
        Optional<Sample> assigned = assertOneTrace();
        Statistics.label("outcome").collect(assigned.isPresent() ? "assigned" : "dead-lettered");
        assigned.ifPresent(this::assertAShardCanHold);
    }

    @Property(tries = 300)
    void shouldDeadLetterAnyBytesThatOnlyLookLikeAvro(@ForAll("framedGarbage") byte[] tail) {
        byte[] value = new byte[5 + tail.length];
        System.arraycopy(valid, 0, value, 0, 5);
        System.arraycopy(tail, 0, value, 5, tail.length);
        ingest.pipe("k", value);
        assertOneTrace();
    }

    @Property(tries = 300)
    void shouldLeaveOneTraceForAValidRecordWithBytesFlippedOrCut(@ForAll("flips") List<Integer> positions,
                                                                  @ForAll @net.jqwik.api.constraints.IntRange(min = 5, max = 400) int cut) {
        byte[] value = java.util.Arrays.copyOf(valid, Math.min(valid.length, cut));
        for (int position : positions) {
            int at = 5 + Math.floorMod(position, Math.max(1, value.length - 5));
            if (at < value.length) {
                value[at] ^= (byte) (position >>> 8 | 1);
            }
        }
        ingest.pipe("k", value);
        assertOneTrace();
    }

    @Provide
    Arbitrary<List<Integer>> flips() {
        return Arbitraries.integers().list().ofMaxSize(4);
    }

    /** Exactly one assignment or one dead letter; the assigned sample if it was assigned. */
    private Optional<Sample> assertOneTrace() {
        List<TestRecord<byte[], byte[]>> dead = ingest.drainDeadLetters();
        List<Sample> assigned = ingest.drainAssignments().stream()
                .filter(e -> e.getBody() instanceof SampleAssigned)
                .map(ingest::assignedSample)
                .toList();
        assertThat(dead.size() + assigned.size()).isEqualTo(1);
        for (TestRecord<byte[], byte[]> record : dead) {
            assertThat(IngestDriver.header(record, DeadLetters.REASON_HEADER)).isNotBlank();
            assertThat(record.headers().lastHeader(DeadLetters.DETAIL_HEADER).value().length)
                    .isLessThanOrEqualTo(DeadLetters.MAX_DETAIL_BYTES);
        }
        return assigned.stream().findFirst();
    }

    /**
     * Writes the sample's ids and attributes into a one-row shard and reads them back. Its tensors
     * already match the spec byte for byte (ingest checked), so zeros of the spec's sizes stand in.
     */
    private void assertAShardCanHold(Sample sample) {
        Map<String, byte[]> tensors = new HashMap<>();
        TestSamples.spec().tensors().forEach(t -> tensors.put(t.name(), new byte[(int) t.byteLength()]));
        SampleRow row = new SampleRow(sample.getSampleId(), sample.getDeviceId(), sample.getProducedAt().toEpochMilli(), tensors,
                sample.getAttributes());
        Path file = stateDir.resolve("shard.h5");
        new ShardWriter().write(file, TestSamples.spec(), new ShardId(TestSamples.DATASET, TestSamples.VERSION, 0, 0), List.of(row));
        assertThat(new ShardReader().read(file).rows()).containsExactly(row);
    }

    @Provide
    Arbitrary<byte[]> framedGarbage() {
        // Put behind the registry framing of a real schema: magic byte 0 and its content id.
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
    }

    @Provide
    Arbitrary<Sample> samples() {
        Arbitrary<String> names = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(TestSamples.DATASET)),
                Tuple.of(1, Arbitraries.of("../etc", "", ".hidden", "a/b", "cams\u0000")), Tuple.of(1, hostileStrings(140)));
        Arbitrary<String> versions = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(TestSamples.VERSION)),
                Tuple.of(1, Arbitraries.of("v9", "..", "v1/..")), Tuple.of(1, hostileStrings(10)));
        Arbitrary<String> ids = Arbitraries.frequencyOf(Tuple.of(3, printable(1, 260)), Tuple.of(1, hostileStrings(300)));
        Arbitrary<Map<String, String>> attributes = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.maps(printable(1, 66), printable(0, 260)).ofMaxSize(34)),
                Tuple.of(1, Arbitraries.maps(hostileStrings(70), hostileStrings(300)).ofMaxSize(40)));
        Arbitrary<Instant> producedAt = Arbitraries.longs().between(-62_135_596_800_000L, 253_402_300_799_000L).map(Instant::ofEpochMilli);
        Arbitrary<List<Tensor>> tensors = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.just(TestSamples.sample("x").getTensors())),
                Tuple.of(1, tensor().list().ofMaxSize(3)));
        return Combinators.combine(names, versions, ids, ids, producedAt, tensors, attributes)
                .as((dataset, version, sampleId, deviceId, at, ts, attrs) -> Sample.newBuilder()
                        .setDataset(dataset).setVersion(version).setSampleId(sampleId).setDeviceId(deviceId)
                        .setProducedAt(at).setTensors(ts).setAttributes(Map.copyOf(attrs)).build());
    }

    private static Arbitrary<Tensor> tensor() {
        return Combinators.combine(Arbitraries.of("image", "label", "extra", ""), Arbitraries.of(DType.class),
                        Arbitraries.integers().between(-2, 5).list().ofMaxSize(3),
                        Arbitraries.bytes().array(byte[].class).ofMaxSize(64))
                .as((name, dtype, shape, data) -> new Tensor(name, dtype, shape, ByteBuffer.wrap(data)));
    }

    /** Any characters but controls, surrogates included: what a well-meaning device in any language might send. */
    private static Arbitrary<String> printable(int minLength, int maxLength) {
        return Arbitraries.strings().withCharRange('\u0020', '\u007E').withCharRange('\u00A0', '\uFFFF')
                .ofMinLength(minLength).ofMaxLength(maxLength);
    }

    /** Strings with control characters, surrogates, path separators and sheer length among them. */
    private static Arbitrary<String> hostileStrings(int maxLength) {
        return Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.strings().all().ofMinLength(0).ofMaxLength(maxLength)),
                Tuple.of(1, Arbitraries.of("\u0000", "..", "\uD800", "a\u007Fb", "x".repeat(maxLength))));
    }
}
