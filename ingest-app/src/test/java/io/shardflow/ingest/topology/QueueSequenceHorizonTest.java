package io.shardflow.ingest.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.ingest.dedupe.QueuePosition;
import io.shardflow.ingest.dedupe.QueueSequence;
import io.shardflow.ingest.seal.SealLimits;
import io.shardflow.ingest.support.IngestDriver;
import io.shardflow.ingest.support.TestSamples;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The queue-sequence store is bounded: a device queue's position is forgotten once nothing of that
 * queue arrived for {@code queue.sequence.horizon.ms} of broker time (stream time, here the
 * timestamps piped in: days pass in a line), and kept while anything of it, resends included,
 * keeps arriving. Inside the horizon a late resend is dropped however late.
 */
class QueueSequenceHorizonTest {

    private static final Instant START = IngestDriver.START;
    private static final Duration DAY = Duration.ofDays(1);

    @TempDir
    Path stateDir;

    private IngestDriver ingest;

    @BeforeEach
    void start() {
        ingest = new IngestDriver(stateDir, IngestDriver.Options.defaults(new SealLimits(1000, 1 << 20, Duration.ofDays(365)))
                .withQueueSequenceHorizon(Duration.ofDays(30)));
    }

    @AfterEach
    void stop() {
        ingest.close();
    }

    private void send(String id, String queue, long seq, Instant at) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(QueueSequence.QUEUE_HEADER, queue.getBytes(StandardCharsets.UTF_8));
        headers.add(QueueSequence.SEQ_HEADER, Long.toString(seq).getBytes(StandardCharsets.UTF_8));
        ingest.pipe(id, ingest.encode(TestSamples.sample(id)), headers, at);
    }

    private List<String> queuesKept() {
        List<String> queues = new ArrayList<>();
        try (KeyValueIterator<String, QueuePosition> all = ingest.queuePositions().all()) {
            all.forEachRemaining(e -> queues.add(e.key.substring(e.key.lastIndexOf('\u0000') + 1)));
        }
        return queues;
    }

    private long deadLetters() {
        return ingest.drainDeadLetters().size();
    }

    @Test
    void shouldForgetAQueueThatSentNothingForLongerThanTheHorizonAndKeepTheOthers() {
        send("a1", "idle", 1, START);
        send("b1", "busy", 1, START);
        send("b2", "busy", 2, START.plus(DAY.multipliedBy(20)));
        assertThat(queuesKept()).containsExactlyInAnyOrder("idle", "busy");

        send("c1", "other", 1, START.plus(DAY.multipliedBy(31))); // stream time: day 31
        assertThat(queuesKept()).as("idle for 31 days: forgotten; busy for 11: kept").containsExactlyInAnyOrder("busy", "other");
        ingest.drainDeadLetters();

        send("b2", "busy", 2, START.plus(DAY.multipliedBy(31)).plusSeconds(1));
        assertThat(deadLetters()).as("a resend of a kept queue, 11 days after its first copy: dropped").isEqualTo(1);
        // What forgetting means: the same resend of the forgotten queue would now be taken as new. The
        // SDKs never send it: an entry that may have been sent is not resent once queued longer ago
        // than their resend horizon (7 days), well inside this one.
        send("a1", "idle", 1, START.plus(DAY.multipliedBy(31)).plusSeconds(2));
        assertThat(deadLetters()).isZero();
    }

    @Test
    void shouldKeepAQueueAliveWhileItsResendsKeepArriving() {
        send("a1", "q", 1, START);
        send("a2", "q", 2, START.plus(DAY));
        for (int day = 20; day <= 80; day += 20) {
            send("a2", "q", 2, START.plus(DAY.multipliedBy(day))); // a device stuck resending the same entry
        }
        assertThat(queuesKept()).containsExactly("q");
        assertThat(deadLetters()).as("every resend dropped, 79 days after the first copy").isEqualTo(4);
    }

    @Test
    void shouldDateAPositionOfTheFirstReleaseAtTheFirstSweepAndExpireItAHorizonLater() {
        ingest.queuePositions().put("legacy-key\u0000v1\u0000dev\u0000old", new QueuePosition(7, QueuePosition.UNKNOWN));
        send("x1", "q", 1, START.plus(DAY.multipliedBy(400)));
        assertThat(queuesKept()).as("no last-seen time: its clock starts, it is not dropped").contains("old");
        assertThat(ingest.queuePositions().get("legacy-key\u0000v1\u0000dev\u0000old").lastSeenMs())
                .isEqualTo(START.plus(DAY.multipliedBy(400)).toEpochMilli());
        send("x2", "q", 2, START.plus(DAY.multipliedBy(431)));
        assertThat(queuesKept()).containsExactly("q");
    }

    @Test
    void shouldReadTheFirstReleasesEightByteValues() {
        QueuePosition.StoreSerde serde = new QueuePosition.StoreSerde();
        assertThat(serde.deserializer().deserialize("t", ByteBuffer.allocate(8).putLong(42).array()))
                .isEqualTo(new QueuePosition(42, QueuePosition.UNKNOWN));
        QueuePosition position = new QueuePosition(9, 1_700_000_000_000L);
        assertThat(serde.deserializer().deserialize("t", serde.serializer().serialize("t", position))).isEqualTo(position);
        assertThatThrownBy(() -> serde.deserializer().deserialize("t", new byte[5])).hasMessageContaining("5 bytes");
    }

    @Test
    void shouldSweepEveryTenthOfTheHorizonWithinASecondAndAnHour() {
        assertThat(IngestProcessor.sweepInterval(Duration.ofDays(30))).isEqualTo(Duration.ofHours(1));
        assertThat(IngestProcessor.sweepInterval(Duration.ofMinutes(10))).isEqualTo(Duration.ofMinutes(1));
        assertThat(IngestProcessor.sweepInterval(Duration.ofMillis(10))).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void shouldDefaultTheHorizonToThirtyDaysAndRefuseOneUnderAnHourNamingTheKey() {
        Map<String, String> required = Map.of(IngestConfig.BOOTSTRAP_SERVERS, "127.0.0.1:9092", IngestConfig.REGISTRY_URL, "http://r",
                "s3.endpoint", "http://127.0.0.1:9000", "s3.bucket", "b");
        assertThat(new IngestConfig(required).queueSequenceHorizon()).isEqualTo(Duration.ofDays(30));
        Map<String, String> tooShort = new HashMap<>(required);
        tooShort.put(IngestConfig.QUEUE_SEQUENCE_HORIZON_MS, "60000");
        assertThatThrownBy(() -> new IngestConfig(tooShort)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(IngestConfig.QUEUE_SEQUENCE_HORIZON_MS);
    }
}
