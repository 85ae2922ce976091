package io.shardflow.dataset.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommitLogCodecTest {

    /** Format 1 as stored. If this test fails, the format changed: bump formatVersion and keep reading 1. */
    private static final String FORMAT_1 = """
            {
              "formatVersion" : 1,
              "snapshotId" : 42,
              "committer" : "shard-sink-0",
              "committedAt" : "2026-03-04T05:06:07.089Z",
              "sourceOffsets" : {
                "samples-0" : 1200,
                "samples-1" : 77
              },
              "addedShards" : [ {
                "shardId" : "cifar/v1/lane-00003/shard-000000000042",
                "objectKey" : "datasets/cifar/v1/shards/lane-00003/shard-000000000042.h5",
                "lane" : 3,
                "sequence" : 42,
                "sampleCount" : 250,
                "bytes" : 27650000,
                "sha256" : "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                "specFingerprint" : "7cbfe05a04fe34fc92e46713945002856e3094f7db9e1b78829cb8c99c89e9a6",
                "firstProducedAt" : 1767225600000,
                "lastProducedAt" : 1767225659999
              } ]
            }""";

    private static final CommitEntry ENTRY = new CommitEntry(1, 42,
            List.of(new ShardEntry("cifar/v1/lane-00003/shard-000000000042",
                    "datasets/cifar/v1/shards/lane-00003/shard-000000000042.h5", 3, 42, 250, 27_650_000L,
                    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                    "7cbfe05a04fe34fc92e46713945002856e3094f7db9e1b78829cb8c99c89e9a6",
                    1_767_225_600_000L, 1_767_225_659_999L)),
            "shard-sink-0", Map.of("samples-1", 77L, "samples-0", 1200L), Instant.parse("2026-03-04T05:06:07.089Z"));

    private final CommitLogCodec codec = new CommitLogCodec();

    @Test
    void shouldDecodeTheFixedFormatOneLiteral() {
        assertThat(codec.decode(FORMAT_1.getBytes(StandardCharsets.UTF_8))).isEqualTo(ENTRY);
    }

    @Test
    void shouldEncodeExactlyTheFixedFormatOneLiteral() {
        assertThat(new String(codec.encode(ENTRY), StandardCharsets.UTF_8)).isEqualTo(FORMAT_1);
    }

    @Test
    void shouldRoundTripSeveralShards() {
        CommitEntry entry = new CommitEntry(1, 7, List.of(ShardEntries.entry(0, 1), ShardEntries.entry(5, 99)), "c",
                Map.of(), Instant.parse("2026-01-01T00:00:00Z"));

        assertThat(codec.decode(codec.encode(entry))).isEqualTo(entry);
    }

    @Test
    void shouldRefuseAnUnknownFormatVersion() {
        String v3 = FORMAT_1.replace("\"formatVersion\" : 1", "\"formatVersion\" : 3");

        assertThatThrownBy(() -> codec.decode(v3.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("formatVersion 3")
                .hasMessageContaining("understands only 1 and 2");
    }

    @Test
    void shouldIgnoreFieldsAddedLater() {
        String withExtras = FORMAT_1.replace("\"snapshotId\" : 42,", "\"snapshotId\" : 42, \"parent\" : {\"x\" : 1},")
                .replace("\"lane\" : 3,", "\"lane\" : 3, \"compression\" : \"none\",");

        assertThat(codec.decode(withExtras.getBytes(StandardCharsets.UTF_8))).isEqualTo(ENTRY);
    }

    @Test
    void shouldNameMissingOrMistypedFields() {
        assertThatThrownBy(() -> codec.decode(FORMAT_1.replace("\"committer\" : \"shard-sink-0\",", "")
                .getBytes(StandardCharsets.UTF_8))).hasMessageContaining("'committer'");
        assertThatThrownBy(() -> codec.decode(FORMAT_1.replace("\"sampleCount\" : 250", "\"sampleCount\" : \"250\"")
                .getBytes(StandardCharsets.UTF_8))).hasMessageContaining("'sampleCount' must be an integer");
    }
}
