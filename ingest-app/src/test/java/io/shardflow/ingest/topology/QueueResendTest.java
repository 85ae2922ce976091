package io.shardflow.ingest.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.ingest.dedupe.QueueSequence;
import io.shardflow.ingest.seal.SealLimits;
import io.shardflow.ingest.support.IngestDriver;
import io.shardflow.ingest.support.TestSamples;
import io.shardflow.schemas.Sample;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resends from an edge SDK's durable queue (headers {@code shardflow.queue} and {@code shardflow.seq})
 * are dropped however long after the first copy they arrive; the broker-time window alone (one hour
 * in this driver) forgets them.
 */
class QueueResendTest {

    private static final Instant DAYS_LATER = IngestDriver.START.plus(Duration.ofDays(3));

    @TempDir
    Path stateDir;

    private IngestDriver ingest;

    @BeforeEach
    void start() {
        ingest = new IngestDriver(stateDir, IngestDriver.Options.defaults(new SealLimits(100, 1 << 20, Duration.ofDays(30))));
    }

    @AfterEach
    void stop() {
        ingest.close();
    }

    private void send(String id, String queue, long seq, Instant at) {
        Sample sample = TestSamples.sample(id);
        ingest.pipe(id, ingest.encode(sample), headers(queue, String.valueOf(seq)), at);
    }

    private static Headers headers(String queue, String seq) {
        RecordHeaders headers = new RecordHeaders();
        if (queue != null) {
            headers.add(QueueSequence.QUEUE_HEADER, queue.getBytes(StandardCharsets.UTF_8));
        }
        if (seq != null) {
            headers.add(QueueSequence.SEQ_HEADER, seq.getBytes(StandardCharsets.UTF_8));
        }
        return headers;
    }

    @Test
    void shouldDropAQueueResendDaysAfterTheFirstCopyWhenTheWindowHasLongForgottenIt() {
        send("a", "q1", 1, IngestDriver.START);
        send("b", "q1", 2, IngestDriver.START.plusSeconds(1));
        // the device lost its link with b in flight, came back three days later and resent a and b
        send("a", "q1", 1, DAYS_LATER);
        send("b", "q1", 2, DAYS_LATER.plusMillis(1));
        send("c", "q1", 3, DAYS_LATER.plusMillis(2));

        assertThat(ingest.drainAssignments()).hasSize(3);
        List<TestRecord<byte[], byte[]>> dead = ingest.drainDeadLetters();
        assertThat(dead).hasSize(2).allSatisfy(r -> {
            assertThat(IngestDriver.header(r, DeadLetters.REASON_HEADER)).isEqualTo("DUPLICATE_SAMPLE_ID");
            assertThat(IngestDriver.header(r, DeadLetters.DETAIL_HEADER)).contains("queue q1 entry");
        });
    }

    @Test
    void shouldLetTheSameLateResendThroughWithoutQueueHeadersAsTheWindowIsAllThereIs() {
        Sample a = TestSamples.sample("a");
        ingest.pipe("a", ingest.encode(a), IngestDriver.START);
        ingest.pipe("a", ingest.encode(a), DAYS_LATER);

        assertThat(ingest.drainAssignments()).as("the window has forgotten a: what the queue seq is for").hasSize(2);
    }

    @Test
    void shouldKeepQueuesAndDevicesApart() {
        send("a", "q1", 5, IngestDriver.START);
        send("b", "q2", 1, IngestDriver.START.plusMillis(1));
        Sample other = Sample.newBuilder(TestSamples.sample("c")).setDeviceId("another-device").build();
        ingest.pipe("c", ingest.encode(other), headers("q1", "1"), IngestDriver.START.plusMillis(2));

        assertThat(ingest.drainAssignments()).hasSize(3);
        assertThat(ingest.drainDeadLetters()).isEmpty();
    }

    @Test
    void shouldDeadLetterUnusableQueueHeadersAsInvalidField() {
        byte[] value = ingest.encode(TestSamples.sample("x"));
        ingest.pipe("x", value, headers("q1", null), IngestDriver.START);
        ingest.pipe("x", value, headers("q1", "12a"), IngestDriver.START);
        ingest.pipe("x", value, headers("q 1", "3"), IngestDriver.START);
        ingest.pipe("x", value, headers("q1", "0"), IngestDriver.START);

        assertThat(ingest.drainAssignments()).isEmpty();
        assertThat(ingest.drainDeadLetters()).hasSize(4).allSatisfy(r -> {
            assertThat(IngestDriver.header(r, DeadLetters.REASON_HEADER)).isEqualTo("INVALID_FIELD");
            assertThat(r.value()).isEqualTo(value);
        });
    }
}
