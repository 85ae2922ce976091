package io.shardflow.ingest.topology;

import static io.shardflow.ingest.support.IngestDriver.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.ingest.seal.SealLimits;
import io.shardflow.app.spec.CatalogSpecSource;
import io.shardflow.app.spec.SpecSource;
import io.shardflow.ingest.support.IngestDriver;
import io.shardflow.ingest.support.TestSamples;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.ShardEvent;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records built to break the ingest path: each must become a dead letter, and the next good record must still pass. */
class HostileRecordsTest {

    private static final SealLimits NEVER_SEAL = new SealLimits(1000, 1L << 30, Duration.ofHours(1));

    @TempDir
    Path stateDir;

    private IngestDriver ingest;

    @AfterEach
    void stop() {
        if (ingest != null) {
            ingest.close();
        }
    }

    private void start(IngestDriver.Options options) {
        ingest = new IngestDriver(stateDir, options);
    }

    /** The real catalog over an in-memory store holding the test dataset: it throws on names it would not accept. */
    private static SpecSource realCatalog() {
        InMemoryObjectStore store = new InMemoryObjectStore();
        new DatasetCatalog(store).create(TestSamples.spec());
        return new CatalogSpecSource(new DatasetCatalog(store), Clock.systemUTC(), Duration.ofSeconds(10), 100);
    }

    private static Sample hostile(String id, Consumer<Sample> change) {
        Sample sample = TestSamples.sample(id);
        change.accept(sample);
        return sample;
    }

    private static Map<String, String> attributes(int count, int keyChars, int valueChars) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < count; i++) {
            map.put(("k" + i + "x".repeat(keyChars)).substring(0, keyChars), "v".repeat(valueChars));
        }
        return map;
    }

    @Test
    void shouldDeadLetterEveryHostileFieldWithItsOwnReasonAndKeepAssigningGoodRecords() {
        start(IngestDriver.Options.defaults(NEVER_SEAL).withSpecs(realCatalog()));
        Map<String, Sample> cases = new java.util.LinkedHashMap<>();
        cases.put("INVALID_FIELD dataset", hostile("traversal", s -> s.setDataset("../etc")));
        cases.put("INVALID_FIELD version", hostile("version-slash", s -> s.setVersion("v1/../../x")));
        cases.put("INVALID_FIELD sampleId", hostile("nul\u0000id", s -> { }));
        cases.put("INVALID_FIELD deviceId", hostile("bell", s -> s.setDeviceId("dev\u0007ice")));
        cases.put("INVALID_FIELD attribute", hostile("attr-ctl", s -> s.setAttributes(Map.of("k", "a\u0000b"))));
        cases.put("ID_TOO_LONG sampleId", hostile("x".repeat(257), s -> { }));
        cases.put("ID_TOO_LONG deviceId", hostile("long-device", s -> s.setDeviceId("d".repeat(257))));
        cases.put("TOO_MANY_ATTRIBUTES", hostile("many-attrs", s -> s.setAttributes(attributes(33, 4, 1))));
        cases.put("ATTRIBUTE_KEY_TOO_LONG", hostile("long-key", s -> s.setAttributes(attributes(1, 65, 1))));
        cases.put("ATTRIBUTE_VALUE_TOO_LONG", hostile("long-value", s -> s.setAttributes(attributes(1, 4, 257))));
        cases.forEach((reason, sample) -> ingest.pipe(reason, ingest.encode(sample)));
        ingest.publish(TestSamples.sample("good"));

        List<TestRecord<byte[], byte[]>> dead = ingest.drainDeadLetters();
        assertThat(dead).hasSize(cases.size());
        for (TestRecord<byte[], byte[]> record : dead) {
            String expected = new String(record.key(), java.nio.charset.StandardCharsets.UTF_8).split(" ")[0];
            assertThat(header(record, DeadLetters.REASON_HEADER)).as("reason for %s", new String(record.key())).isEqualTo(expected);
        }
        assertThat(ingest.drainAssignments()).singleElement()
                .satisfies(e -> assertThat(ingest.assignedSample(e).getSampleId()).isEqualTo("good"));
    }

    @Test
    void shouldAcceptSamplesAtEveryLimitExactly() {
        start(IngestDriver.Options.defaults(NEVER_SEAL).withMaxRecordBytes(1 << 20, 1 << 20));
        ingest.publish(hostile("i".repeat(256), s -> {
            s.setDeviceId("d".repeat(256));
            s.setAttributes(attributes(32, 64, 256));
        }));
        assertThat(ingest.drainDeadLetters()).isEmpty();
        assertThat(ingest.drainAssignments()).hasSize(1);
    }

    @Test
    void shouldDeadLetterAnUnexpectedExceptionAsProcessingErrorNamingItsClass() {
        AtomicReference<RuntimeException> failure = new AtomicReference<>(new IllegalStateException("spec cache corrupted"));
        SpecSource flaky = failingWith(failure);
        start(IngestDriver.Options.defaults(NEVER_SEAL).withSpecs(flaky));
        ingest.publish(TestSamples.sample("victim"));
        failure.set(null);
        ingest.publish(TestSamples.sample("after"));

        List<TestRecord<byte[], byte[]>> dead = ingest.drainDeadLetters();
        assertThat(dead).singleElement().satisfies(r -> {
            assertThat(header(r, DeadLetters.REASON_HEADER)).isEqualTo("PROCESSING_ERROR");
            assertThat(header(r, DeadLetters.DETAIL_HEADER)).contains("java.lang.IllegalStateException").contains("spec cache corrupted");
        });
        assertThat(ingest.drainAssignments()).hasSize(1);
    }

    @Test
    void shouldFailTheTaskOnAnObjectStoreOutageInsteadOfDeadLettering() {
        SpecSource down = failingWith(new AtomicReference<>(new ObjectStoreException("GET", "datasets/cams/v1/spec.json", "connection refused")));
        start(IngestDriver.Options.defaults(NEVER_SEAL).withSpecs(down));
        assertThatThrownBy(() -> ingest.publish(TestSamples.sample("during-outage")))
                .hasRootCauseInstanceOf(ObjectStoreException.class);
        assertThat(ingest.drainDeadLetters()).isEmpty();
    }

    @Test
    void shouldCutTheDetailOfADeadLetterWhateverTheNamesItRepeats() {
        start(IngestDriver.Options.defaults(NEVER_SEAL).withMaxRecordBytes(1 << 20, 1 << 20));
        Sample hugeTensorName = hostile("huge-name", s -> s.getTensors().get(0).setName("t".repeat(200_000)));
        ingest.publish(hugeTensorName);

        TestRecord<byte[], byte[]> dead = ingest.drainDeadLetters().get(0);
        assertThat(header(dead, DeadLetters.REASON_HEADER)).isEqualTo("UNEXPECTED_TENSOR");
        assertThat(dead.headers().lastHeader(DeadLetters.DETAIL_HEADER).value()).hasSizeLessThanOrEqualTo(DeadLetters.MAX_DETAIL_BYTES);
        assertThat(header(dead, DeadLetters.DETAIL_HEADER)).endsWith("...");
    }

    @Test
    void shouldLeaveTheValueOutOfADeadLetterThatWouldNotFitTheDeadLetterTopic() {
        start(IngestDriver.Options.defaults(NEVER_SEAL).withMaxRecordBytes(4096, 8192));
        byte[] big = ingest.encode(hostile("big", s -> s.setAttributes(Map.of("pad", "p".repeat(200)))));
        byte[] tooBig = new byte[10_000];
        System.arraycopy(big, 0, tooBig, 0, big.length);
        ingest.pipe("too-big", tooBig);

        TestRecord<byte[], byte[]> dead = ingest.drainDeadLetters().get(0);
        assertThat(header(dead, DeadLetters.REASON_HEADER)).isEqualTo("OVERSIZE_SAMPLE");
        assertThat(dead.value()).isNull();
        assertThat(header(dead, DeadLetters.DROPPED_HEADER)).isEqualTo("value=10000 bytes");
        assertThat(header(dead, DeadLetters.SOURCE_HEADER)).isEqualTo("samples/0/0");
    }

    @Test
    void shouldKeepSamplesOfTwoDevicesWithTheSameSampleIdAndDropOnlyARepeatFromTheSameDevice() {
        start(IngestDriver.Options.defaults(NEVER_SEAL));
        Instant brokerTime = IngestDriver.START.plusSeconds(60);
        Sample fromA = hostile("frame-1", s -> s.setDeviceId("cam-a"));
        Sample fromB = hostile("frame-1", s -> s.setDeviceId("cam-b"));
        // Device clocks in 1970 and 2099: only the broker's time may decide the window.
        Sample againFromA = hostile("frame-1", s -> {
            s.setDeviceId("cam-a");
            s.setProducedAt(Instant.parse("2099-01-01T00:00:00Z"));
        });
        fromB.setProducedAt(Instant.EPOCH);
        ingest.pipe("frame-1", ingest.encode(fromA), brokerTime);
        ingest.pipe("frame-1", ingest.encode(fromB), brokerTime.plusSeconds(1));
        ingest.pipe("frame-1", ingest.encode(againFromA), brokerTime.plusSeconds(2));

        List<ShardEvent> assigned = ingest.drainAssignments();
        assertThat(assigned).extracting(e -> ingest.assignedSample(e).getDeviceId()).containsExactly("cam-a", "cam-b");
        assertThat(ingest.drainDeadLetters()).singleElement()
                .satisfies(r -> assertThat(header(r, DeadLetters.REASON_HEADER)).isEqualTo("DUPLICATE_SAMPLE_ID"));
    }

    @Test
    void shouldCountAttributesTowardTheShardByteBudget() {
        long attributeBytes = 3 + 100;
        long budget = 2 * (TestSamples.PAYLOAD_BYTES + attributeBytes);
        start(IngestDriver.Options.defaults(new SealLimits(100, budget, Duration.ofHours(1))));
        for (int i = 0; i < 3; i++) {
            ingest.publish(hostile("s-" + i, s -> s.setAttributes(Map.of("pad", "p".repeat(100)))));
        }
        List<ShardEvent> events = ingest.drainAssignments();
        assertThat(events.get(2).getBody()).as("two samples with attributes fill the budget before a third")
                .isInstanceOf(io.shardflow.schemas.internal.ShardSealed.class);
        assertThat(((io.shardflow.schemas.internal.ShardSealed) events.get(2).getBody()).getPayloadBytes())
                .as("the seal marker still reports tensor bytes only").isEqualTo(2L * TestSamples.PAYLOAD_BYTES);
    }

    private static SpecSource failingWith(AtomicReference<RuntimeException> failure) {
        SpecSource healthy = IngestDriver.testCatalog();
        return new SpecSource() {
            @Override
            public Optional<DatasetSpec> find(String dataset, String version) {
                RuntimeException e = failure.get();
                if (e != null) {
                    throw e;
                }
                return healthy.find(dataset, version);
            }

            @Override
            public boolean datasetExists(String dataset) {
                return healthy.datasetExists(dataset);
            }
        };
    }
}
