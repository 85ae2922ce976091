package io.shardflow.dataset.log;

import static io.shardflow.dataset.log.ShardEntries.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class CheckpointCodecTest {

    private static final Instant T1 = Instant.parse("2026-03-04T05:06:07.089Z");
    private static final Instant T2 = Instant.parse("2026-03-04T05:07:00Z");

    private final CheckpointCodec codec = new CheckpointCodec();

    private static Checkpoint sample() {
        return new Checkpoint(1, "d", "v1", 2, Map.of("samples-1", 7L, "samples-0", 1200L),
                List.of(new CommitInfo(1, "shard-sink-0", T1, 2), new CommitInfo(2, "shard-sink-1", T2, 1)),
                List.of(entry(0, 0), entry(3, 1), entry(0, 1)));
    }

    @Test
    void shouldRoundTripEveryField() {
        Checkpoint checkpoint = sample();

        assertThat(codec.decode(codec.encode(checkpoint))).isEqualTo(checkpoint);
    }

    @Test
    void shouldEncodeTheSameCheckpointToTheSameJson() throws IOException {
        String json = gunzip(codec.encode(sample()));

        assertThat(json).isEqualTo(gunzip(codec.encode(sample())));
        assertThat(json).startsWith("{\"formatVersion\":1,\"dataset\":\"d\",\"version\":\"v1\",\"snapshotId\":2,"
                + "\"sourceOffsets\":{\"samples-0\":1200,\"samples-1\":7},\"commits\":[{\"snapshotId\":1,"
                + "\"committer\":\"shard-sink-0\",\"committedAt\":\"2026-03-04T05:06:07.089Z\",\"addedShardCount\":2},");
        assertThat(json).contains("\"shards\":[{\"shardId\":\"d/v1/lane-00000/shard-000000000000\","
                + "\"objectKey\":\"datasets/d/v1/shards/lane-00000/shard-000000000000.h5\",\"lane\":0,\"sequence\":0,"
                + "\"sampleCount\":10,\"bytes\":1000,\"sha256\":\"");
    }

    @Test
    void shouldDecodeTheExampleInFormatMdAndIgnoreUnknownFields() throws IOException {
        String json = """
                {"formatVersion": 1, "dataset": "cifar", "version": "v1", "snapshotId": 2, "writtenBy": "someone new",
                 "sourceOffsets": {"samples-0": 1200},
                 "commits": [
                   {"snapshotId": 1, "committer": "shard-sink-0", "committedAt": "2026-03-04T05:06:07.089Z", "addedShardCount": 1},
                   {"snapshotId": 2, "committer": "shard-sink-0", "committedAt": "2026-03-04T05:07:00Z", "addedShardCount": 1, "extra": [1, {"a": 2}]}],
                 "shards": [
                   {"shardId": "cifar/v1/lane-00003/shard-000000000041",
                    "objectKey": "datasets/cifar/v1/shards/lane-00003/shard-000000000041.h5",
                    "lane": 3, "sequence": 41, "sampleCount": 250, "bytes": 27650000,
                    "sha256": "%s", "specFingerprint": "%s",
                    "firstProducedAt": 1767225600000, "lastProducedAt": 1767225659999},
                   {"shardId": "cifar/v1/lane-00003/shard-000000000042",
                    "objectKey": "datasets/cifar/v1/shards/lane-00003/shard-000000000042.h5",
                    "lane": 3, "sequence": 42, "sampleCount": 250, "bytes": 27650000,
                    "sha256": "%s", "specFingerprint": "%s",
                    "firstProducedAt": 1767225660000, "lastProducedAt": 1767225719999}]}
                """.formatted("a".repeat(64), "f".repeat(64), "b".repeat(64), "f".repeat(64));

        Checkpoint checkpoint = codec.decode(gzip(json));

        assertThat(checkpoint.snapshotId()).isEqualTo(2);
        assertThat(checkpoint.commits()).extracting(CommitInfo::committedAt).containsExactly(T1, T2);
        assertThat(checkpoint.shards()).extracting(ShardEntry::sequence).containsExactly(41L, 42L);
        assertThat(CommitLogState.of(checkpoint).addedBy(2)).extracting(ShardEntry::sequence).containsExactly(42L);
    }

    @Test
    void shouldRefuseAnotherFormatVersionAndMissingFields() throws IOException {
        assertThatThrownBy(() -> codec.decode(gzip("{\"formatVersion\": 2}"))).hasMessageContaining("formatVersion 2");
        assertThatThrownBy(() -> codec.decode(gzip("{\"formatVersion\": 1, \"dataset\": \"d\"}")))
                .hasMessageContaining("no field 'version'");
        assertThatThrownBy(() -> codec.decode("{}".getBytes(StandardCharsets.UTF_8))).hasMessageContaining("gzip");
    }

    @Test
    void shouldRefuseACheckpointWhoseCommitsDoNotAddUpToItsShards() {
        Checkpoint broken = new Checkpoint(1, "d", "v1", 2, Map.of(),
                List.of(new CommitInfo(1, "s", T1, 1), new CommitInfo(2, "s", T2, 1)), List.of(entry(0, 0)));

        assertThatThrownBy(() -> CommitLogState.of(broken)).hasMessageContaining("more added shards");
    }

    static byte[] gzip(String json) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(json.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    static String gunzip(byte[] bytes) throws IOException {
        try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(bytes))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
