package io.shardflow.dataset.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.verify.SnapshotVerifier.VerificationReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotVerifierTest {

    private static final Clock CLOCK = Clock.systemUTC();

    @TempDir
    Path tmp;
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private ShardPublisher publisher;
    private SnapshotVerifier verifier;

    @BeforeEach
    void publish() throws Exception {
        publisher = new ShardPublisher(store, "d", "v1", Files.createDirectories(tmp.resolve("publish")), CLOCK);
        publisher.publish(0, 4, 2);
        publisher.publish(1, 3);
        verifier = new SnapshotVerifier(store, Files.createDirectories(tmp.resolve("verify")));
    }

    @Test
    void shouldFindNothingWrongWithWhatWasPublished() {
        VerificationReport report = verifier.verify(publisher.spec(), latest(), CLOCK);

        assertThat(report.problems()).isEmpty();
        assertThat(report.ok()).isTrue();
        assertThat(report.shards()).isEqualTo(3);
        assertThat(report.samples()).isEqualTo(9);
        assertThat(report.sampleIds()).contains(ShardPublisher.sampleId(0, 0, 3), ShardPublisher.sampleId(0, 1, 2));
    }

    @Test
    void shouldHandEveryRowToTheVisitorWithItsShard() {
        List<String> seen = new ArrayList<>();

        verifier.verify(latest(), (shard, row) -> seen.add(shard.shardId() + ":" + row.sampleId()));

        assertThat(seen).hasSize(9).allMatch(s -> s.startsWith("d/v1/"));
    }

    @Test
    void shouldReportAChecksumMismatchAndAMissingObject() {
        Snapshot snapshot = latest();
        ShardEntry first = snapshot.shards().get(0);
        ShardEntry second = snapshot.shards().get(1);
        ShardEntry lying = new ShardEntry(first.shardId(), first.objectKey(), first.lane(), first.sequence(),
                first.sampleCount(), first.bytes(), "0".repeat(64), first.specFingerprint(), first.firstProducedAt(),
                first.lastProducedAt());
        ShardEntry ghost = ShardEntry.of(new ShardId("d", "v1", 9, 99), second.sampleCount(), second.bytes(), second.sha256(),
                second.specFingerprint(), second.firstProducedAt(), second.lastProducedAt());

        VerificationReport report = verifier.verify(new Snapshot("d", "v1", 9, List.of(lying, ghost)));

        assertThat(report.checksumMismatches()).isEqualTo(1);
        assertThat(report.missingObjects()).isEqualTo(1);
        assertThat(report.problems()).anyMatch(p -> p.contains(first.shardId()) && p.contains("log says " + "0".repeat(64)))
                .anyMatch(p -> p.contains("which does not exist"));
    }

    @Test
    void shouldReportAShardAndItsSamplesTwice() {
        Snapshot snapshot = latest();
        ShardEntry shard = snapshot.shards().get(0);

        VerificationReport report = verifier.verify(new Snapshot("d", "v1", 9, List.of(shard, shard)));

        assertThat(report.objectsReferencedTwice()).isEqualTo(1);
        assertThat(report.problems()).anyMatch(p -> p.contains("is in the snapshot twice"))
                .anyMatch(p -> p.contains("is referenced twice"));
    }

    @Test
    void shouldReportAShardOfAnotherSpec() {
        DatasetSpec other = new DatasetSpec("d", "v1", List.of(TensorSpec.parse("x:int64"), TensorSpec.parse("label:int64")),
                "label", "someone", "another layout", 0, false, Instant.EPOCH);

        VerificationReport report = verifier.verify(other, latest(), CLOCK);

        assertThat(report.problems()).hasSize(3).allMatch(p -> p.contains("spec fingerprint"));
    }

    private Snapshot latest() {
        return new CommitLog(store, "d", "v1", CLOCK).latest();
    }
}
