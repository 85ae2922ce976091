package io.shardflow.cli;

import static io.shardflow.cli.DatasetCommandRunner.CLOCK;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardflow.cli.DatasetCommandRunner.Run;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.log.Checkpoint;
import io.shardflow.dataset.log.CheckpointCodec;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.quarantine.QuarantineLog;
import io.shardflow.dataset.quarantine.QuarantinedShard;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code dataset} commands that read and create, run in-process on an in-memory store. */
class DatasetCommandsTest {

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private ShardPublisher publisher;

    @BeforeEach
    void publishThreeSnapshots() throws Exception {
        publisher = DatasetCommandRunner.publishThreeSnapshots(store, tmp);
    }

    @Test
    void shouldListQuarantinedShardsAsTextAndJson() throws Exception {
        assertThat(run("quarantine", "cams", "v1").out()).contains("cams/v1 has no quarantined shards");
        new QuarantineLog(store).record(new QuarantinedShard("cams/v1/lane-00002/shard-000000000007",
                "datasets/cams/v1/shards/lane-00002/shard-000000000007.h5", QuarantinedShard.UNBUILDABLE,
                "java.lang.IllegalArgumentException: NUL in sampleId", 12, "f00d", Map.of("shard-assignments-2", 4711L),
                "sink-1", CLOCK.instant()));

        Run human = run("quarantine", "cams", "v1");
        Run json = run("quarantine", "cams", "v1", "--json");

        assertThat(human.exitCode()).isZero();
        assertThat(human.out()).contains("cams/v1/lane-00002/shard-000000000007").contains("UNBUILDABLE")
                .contains("NUL in sampleId");
        JsonNode shard = json.json().get("quarantined").get(0);
        assertThat(shard.get("shardId").asText()).isEqualTo("cams/v1/lane-00002/shard-000000000007");
        assertThat(shard.get("sourceOffsets").get("shard-assignments-2").asLong()).isEqualTo(4711L);
        assertThat(shard.get("quarantinedAt").asText()).isEqualTo("2026-05-01T10:00:00Z");
    }

    @Test
    void shouldListDatasetsWithTheLatestSnapshotOfEachVersion() throws Exception {
        new ShardPublisher(store, "other", "v2", tmp, CLOCK);

        Run human = run("list");
        Run json = run("list", "--json");

        assertThat(human.exitCode()).isZero();
        assertThat(human.out()).contains("cams\n  v1           latest snapshot 3: 12 shards, 46 samples")
                .contains("other\n  v2           latest snapshot 0: 0 shards, 0 samples");
        JsonNode versions = json.json().get("datasets").get(0).get("versions");
        assertThat(json.json().get("datasets").get(0).get("name").asText()).isEqualTo("cams");
        assertThat(versions.get(0).get("latestSnapshot").asLong()).isEqualTo(3);
        assertThat(versions.get(0).get("samples").asLong()).isEqualTo(46);
    }

    @Test
    void shouldListEverySnapshotWithWhatItAddedAndRunningTotals() throws Exception {
        Run human = run("snapshots", "cams", "v1");
        JsonNode rows = run("snapshots", "cams", "v1", "--json").json().get("snapshots");

        assertThat(human.exitCode()).isZero();
        assertThat(human.out().lines()).hasSize(4);
        assertThat(human.out()).contains("2026-05-01T10:00:00Z").contains("test-publisher");
        assertThat(rows).hasSize(3);
        assertThat(rows.findValuesAsText("committer")).containsOnly("test-publisher");
        assertThat(rows.findValues("shardsAdded")).extracting(JsonNode::asInt).containsExactly(4, 3, 5);
        assertThat(rows.findValues("samplesAdded")).extracting(JsonNode::asLong).containsExactly(18L, 12L, 16L);
        assertThat(rows.findValues("totalSamples")).extracting(JsonNode::asLong).containsExactly(18L, 30L, 46L);
        assertThat(run("snapshots", "cams", "v1", "--last", "1").out().lines()).hasSize(2);
    }

    @Test
    void shouldShowTheTimeRangeAndSamplesPerLabel() throws Exception {
        Map<String, Long> expected = new TreeMap<>();
        int[][] rows = {{3, 5, 4, 6}, {7, 2, 3}, {4, 4, 5, 1, 2}};
        for (int seq = 0; seq < rows.length; seq++) {
            for (int lane = 0; lane < rows[seq].length; lane++) {
                for (int r = 0; r < rows[seq][lane]; r++) {
                    expected.merge(Long.toString(ShardPublisher.label(lane, seq, r)), 1L, Long::sum);
                }
            }
        }

        Run human = run("show", "cams", "v1");
        JsonNode json = run("show", "cams", "v1", "--json").json();
        Run older = run("show", "cams", "v1", "--snapshot", "1", "--no-label-counts");

        assertThat(human.out()).contains("snapshot 3: 12 shards, 46 samples")
                .contains("produced " + Instant.ofEpochMilli(ShardPublisher.BASE_TIME) + " .. "
                        + Instant.ofEpochMilli(ShardPublisher.BASE_TIME + 2000 + 4))
                .contains("samples per label (3 values):")
                .contains("    0            " + expected.get("0"));
        JsonNode counts = json.get("labelCounts").get("counts");
        assertThat(json.get("labelCounts").get("tensor").asText()).isEqualTo("label");
        expected.forEach((label, n) -> assertThat(counts.get(label).asLong()).as("label %s", label).isEqualTo(n));
        assertThat(json.get("snapshot").get("firstProducedAt").asText()).isEqualTo("2023-11-14T22:13:20Z");
        assertThat(older.out()).contains("snapshot 1: 4 shards, 18 samples").doesNotContain("samples per");
        assertThat(human.err()).contains("label counts: 12 shards done in ");
        assertThat(older.err()).isEmpty();
    }

    @Test
    void shouldVerifyACleanSnapshot() throws Exception {
        Run human = run("verify", "cams", "v1");
        JsonNode json = run("verify", "cams", "v1", "--snapshot", "2", "--json").json();

        assertThat(human.exitCode()).isZero();
        assertThat(human.out()).isEqualTo("cams/v1 snapshot 3: 12 shards, 46 samples: OK\n");
        // not a terminal: plain progress lines on stderr, one per further tenth, then the total
        assertThat(human.err().lines().toList()).anyMatch(l -> l.matches("verify: 2/12 shards \\(16%\\), \\d+ shards/s, ETA \\d+ s"))
                .last().asString().startsWith("verify: 12 shards done in ");
        assertThat(json.get("ok").asBoolean()).isTrue();
        assertThat(json.get("samples").asLong()).isEqualTo(30);
    }

    @Test
    void shouldFailVerificationOnAShardWhoseBytesDoNotMatchItsEntry() {
        ShardEntry real = publisher.write(7, 3, 2);
        ShardEntry lying = new ShardEntry(real.shardId(), real.objectKey(), real.lane(), real.sequence(), real.sampleCount(),
                real.bytes(), "0".repeat(64), real.specFingerprint(), real.firstProducedAt(), real.lastProducedAt());
        publisher.commit(List.of(lying));

        Run run = run("verify", "cams", "v1");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains("PROBLEM shard cams/v1/lane-00007/shard-000000000003 has sha256 " + real.sha256())
                .contains("snapshot 4: 13 shards, 48 samples: 1 problems");
    }

    @Test
    void shouldFailVerificationWhenACheckpointDisagreesWithTheLog() {
        CommitLog entries = CommitLog.entriesOnly(store, "cams", "v1", CLOCK);
        List<ShardEntry> shards = new ArrayList<>(entries.snapshot(3).shards());
        ShardEntry first = shards.get(0);
        shards.set(0, new ShardEntry(first.shardId(), first.objectKey(), first.lane(), first.sequence(), first.sampleCount() + 1,
                first.bytes(), first.sha256(), first.specFingerprint(), first.firstProducedAt(), first.lastProducedAt()));
        Checkpoint wrong = new Checkpoint(1, "cams", "v1", 3, Map.of(), entries.history(), shards);
        store.putIfAbsent(DatasetLayout.checkpointKey("cams", "v1", 3), new CheckpointCodec().encode(wrong));

        Run run = run("verify", "cams", "v1");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains("PROBLEM the log entries 1..3 and the checkpoint-based reading disagree");
    }

    @Test
    void shouldDiffTwoSnapshots() throws Exception {
        Run human = run("diff", "cams", "v1", "1", "3", "--shards");
        JsonNode json = run("diff", "cams", "v1", "1", "3", "--json").json();
        Run backwards = run("diff", "cams", "v1", "3", "1");

        assertThat(human.out()).startsWith("cams/v1 snapshot 1 -> 3: +8 shards, +28 samples")
                .contains("snapshot 2").contains("snapshot 3").contains("cams/v1/lane-00004/shard-000000000002");
        assertThat(json.get("shardsAdded").asInt()).isEqualTo(8);
        assertThat(json.get("samplesAdded").asLong()).isEqualTo(28);
        assertThat(json.get("commits")).hasSize(2);
        assertThat(json.get("shards")).hasSize(8);
        assertThat(backwards.exitCode()).as("a usage error").isEqualTo(2);
        assertThat(backwards.err()).contains("must not be after B");
        assertThat(run("diff", "cams", "v1", "2", "2").out()).startsWith("cams/v1 snapshot 2 -> 2: +0 shards");
    }

    @Test
    void shouldCreateAVersionWithFreeDimensionsMediaAndCompression() throws Exception {
        Run run = run("create", "--name", "det", "--version", "v1", "--tensor", "frame:bytes:image/jpeg",
                "--tensor", "boxes:float32:?<=64x4", "--tensor", "caption:string", "--tensor", "e:bfloat16:8",
                "--compression", "gzip:6");

        assertThat(run.exitCode()).as(run.err()).isZero();
        String spec = new String(store.get("datasets/det/v1/spec.json").orElseThrow(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(spec).contains("\"compression\" : \"gzip:6\"").contains("\"encoding\" : \"image/jpeg\"")
                .contains("\"maxShape\" : [ 64, null ]").contains("\"dtype\" : \"bfloat16\"");
    }

    @Test
    void shouldExitTwoNamingAnUnknownTypeABadFreeDimensionOrABadCompression() {
        Map<String, String> cases = Map.of(
                "image:float8:3", "unknown dtype 'float8'",
                "boxes:float32:?<=0x4", "bad free dimension '?<=0'",
                "boxes:float32:?<x4", "bad free dimension '?<'",
                "text:string:3", "takes no shape",
                "frame:bytes:image/gif", "image/jpeg");
        cases.forEach((tensor, message) -> {
            Run run = run("create", "--name", "bad", "--version", "v1", "--tensor", tensor);
            assertThat(run.exitCode()).as("a usage error for %s", tensor).isEqualTo(2);
            assertThat(run.err()).contains(message).contains(tensor);
        });
        Run compression = run("create", "--name", "bad", "--version", "v1", "--tensor", "x:int8", "--compression", "zstd");
        assertThat(compression.exitCode()).isEqualTo(2);
        assertThat(compression.err()).contains("unknown compression 'zstd'");
        assertThat(store.get("datasets/bad/v1/spec.json")).as("nothing written").isEmpty();
    }

    @Test
    void shouldSayWhichDatasetDoesNotExist() {
        Run run = run("show", "nope", "v1");

        assertThat(run.exitCode()).as("a usage error").isEqualTo(2);
        assertThat(run.err()).contains("no dataset nope/v1");
    }

    private Run run(String... args) {
        return DatasetCommandRunner.run(store, args);
    }
}
