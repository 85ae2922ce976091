package io.shardflow.sink.write;

import static io.shardflow.sink.ShardEvents.PAYLOAD_BYTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.ShardContents;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.shard.StreamingShardWriter;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.sink.ShardEvents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardBuilderTest {

    @TempDir
    Path tmp;

    private final DatasetSpec spec = ShardEvents.spec();
    private final ShardId id = ShardEvents.shard(3, 42);

    @Test
    void shouldBuildTheSameRowsWithTheStreamingWriter() throws Exception {
        List<byte[]> spooled = List.of(
                ShardEvents.assigned(id, 1, 11), ShardEvents.assigned(id, 0, 10), ShardEvents.assigned(id, 2, 12));

        BuiltShard built = new ShardBuilder(new StreamingShardWriter(), tmp.resolve("streaming"), ShardEvents.samplesTopic())
                .build(id, spec, spooled, ShardEvents.seal(id, 3));
        BuiltShard again = new ShardBuilder(new StreamingShardWriter(), tmp.resolve("again"), ShardEvents.samplesTopic())
                .build(id, spec, spooled, ShardEvents.seal(id, 3));

        assertThat(new ShardReader().read(built.file()).rows()).containsExactly(
                ShardEvents.expectedRow(10), ShardEvents.expectedRow(11), ShardEvents.expectedRow(12));
        assertThat(built.entry().sha256()).isEqualTo(ShardDigest.sha256(built.file())).isEqualTo(again.entry().sha256());
        assertThat(built.entry().bytes()).isEqualTo(Files.size(built.file()));
    }

    @Test
    void shouldWriteEveryRowInIndexOrderWithAMatchingEntry() throws Exception {
        ShardBuilder builder = builder("work");
        // Spooled out of index order: the file must follow the assigned index, not arrival.
        List<byte[]> spooled = List.of(
                ShardEvents.assigned(id, 2, 12), ShardEvents.assigned(id, 0, 10), ShardEvents.assigned(id, 1, 11));

        BuiltShard built = builder.build(id, spec, spooled, ShardEvents.seal(id, 3));

        ShardContents contents = new ShardReader().read(built.file());
        assertThat(contents.rows()).containsExactly(
                ShardEvents.expectedRow(10), ShardEvents.expectedRow(11), ShardEvents.expectedRow(12));
        assertThat(contents.shardId()).isEqualTo(id.toString());
        assertThat(contents.dataset()).isEqualTo("cams");
        assertThat(contents.version()).isEqualTo("v1");
        assertThat(contents.specFingerprint()).isEqualTo(spec.fingerprint());

        ShardEntry entry = built.entry();
        assertThat(built.id()).isEqualTo(id);
        assertThat(entry.shardId()).isEqualTo(id.toString());
        assertThat(entry.objectKey()).isEqualTo(DatasetLayout.shardKey(id));
        assertThat(entry.lane()).isEqualTo(3);
        assertThat(entry.sequence()).isEqualTo(42);
        assertThat(entry.sampleCount()).isEqualTo(3);
        assertThat(entry.bytes()).isEqualTo(Files.size(built.file()));
        assertThat(entry.sha256()).isEqualTo(ShardDigest.sha256(built.file()));
        assertThat(entry.specFingerprint()).isEqualTo(spec.fingerprint());
        assertThat(entry.firstProducedAt()).isEqualTo(ShardEvents.expectedRow(10).producedAtMillis());
        assertThat(entry.lastProducedAt()).isEqualTo(ShardEvents.expectedRow(12).producedAtMillis());
    }

    @Test
    void shouldTakeFirstAndLastProducedAtFromTheRowsNotFromTheirOrder() {
        // index 0 is the newest sample: devices' clocks do not follow assignment order
        List<byte[]> spooled = List.of(ShardEvents.assigned(id, 0, 30), ShardEvents.assigned(id, 1, 5),
                ShardEvents.assigned(id, 2, 17));

        ShardEntry entry = builder("work").build(id, spec, spooled, ShardEvents.seal(id, 3)).entry();

        assertThat(entry.firstProducedAt()).isEqualTo(ShardEvents.expectedRow(5).producedAtMillis());
        assertThat(entry.lastProducedAt()).isEqualTo(ShardEvents.expectedRow(30).producedAtMillis());
    }

    @Test
    void shouldWriteByteIdenticalFilesForTheSameEvents() {
        List<byte[]> spooled = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            spooled.add(ShardEvents.assigned(id, i, 100 + i));
        }
        List<byte[]> shuffled = new ArrayList<>(spooled);
        Collections.shuffle(shuffled, new Random(3));

        BuiltShard first = builder("run-1").build(id, spec, spooled, ShardEvents.seal(id, 20));
        BuiltShard replay = builder("run-2").build(id, spec, shuffled, ShardEvents.seal(id, 20));
        BuiltShard again = builder("run-1").build(id, spec, spooled, ShardEvents.seal(id, 20));

        assertThat(first.file()).isNotEqualTo(replay.file());
        assertThat(ShardDigest.sha256(replay.file())).isEqualTo(ShardDigest.sha256(again.file()));
        assertThat(replay.entry()).isEqualTo(first.entry());
        assertThat(again.entry()).isEqualTo(first.entry());
    }

    @Test
    void shouldWriteDifferentBytesForDifferentRows() {
        BuiltShard a = builder("a").build(id, spec, List.of(ShardEvents.assigned(id, 0, 1)), ShardEvents.seal(id, 1));
        BuiltShard b = builder("b").build(id, spec, List.of(ShardEvents.assigned(id, 0, 2)), ShardEvents.seal(id, 1));

        assertThat(a.entry().sha256()).isNotEqualTo(b.entry().sha256());
    }

    @Test
    void shouldRefuseFewerSamplesThanTheSealSays() {
        List<byte[]> spooled = List.of(ShardEvents.assigned(id, 0, 1), ShardEvents.assigned(id, 1, 2));

        assertThatThrownBy(() -> builder("work").build(id, spec, spooled, ShardEvents.seal(id, 3)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(id.toString())
                .hasMessageContaining("sealed with 3 samples but 2 were assigned");
    }

    @Test
    void shouldRefuseMoreSamplesThanTheSealSays() {
        List<byte[]> spooled = List.of(ShardEvents.assigned(id, 0, 1), ShardEvents.assigned(id, 1, 2),
                ShardEvents.assigned(id, 2, 3));

        assertThatThrownBy(() -> builder("work").build(id, spec, spooled, ShardEvents.seal(id, 2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(id.toString())
                .hasMessageContaining("sealed with 2 samples but 3 were assigned");
    }

    @Test
    void shouldReadOnlyTheNamedRecordsWhateverTheGapsBetweenThem() throws Exception {
        // Offsets 5, 9 and 30 of the samples partition; the records between were rejected or belong to other lanes.
        List<byte[]> spooled = List.of(ShardEvents.assigned(id, 0, 30), ShardEvents.assigned(id, 1, 5), ShardEvents.assigned(id, 2, 9));

        BuiltShard built = builder("work").build(id, spec, spooled, ShardEvents.seal(id, 3));

        assertThat(new ShardReader().read(built.file()).rows()).containsExactly(
                ShardEvents.expectedRow(30), ShardEvents.expectedRow(5), ShardEvents.expectedRow(9));
    }

    @Test
    void shouldRefuseTwoRowsNamingOneRecord() {
        List<byte[]> spooled = List.of(ShardEvents.assigned(id, 0, 7), ShardEvents.assigned(id, 1, 7));

        assertThatThrownBy(() -> builder("work").build(id, spec, spooled, ShardEvents.seal(id, 2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("names one samples record for two rows");
    }

    @Test
    void shouldRefuseARecordOfAnotherDatasetVersion() {
        // Seed 1005 is a sample of the other version: the decision names the wrong record.
        List<byte[]> spooled = List.of(ShardEvents.assigned(id, 0, 1005));

        assertThatThrownBy(() -> builder("work").build(id, spec, spooled, ShardEvents.seal(id, 1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("names a record of cams/" + ShardEvents.OTHER_VERSION + " at offset 1005");
    }

    @Test
    void shouldRefuseARepeatedIndex() {
        List<byte[]> spooled = List.of(ShardEvents.assigned(id, 0, 1), ShardEvents.assigned(id, 1, 2),
                ShardEvents.assigned(id, 1, 3));

        assertThatThrownBy(() -> builder("work").build(id, spec, spooled, ShardEvents.seal(id, 3)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("repeated row index 1");
    }

    @Test
    void shouldRefuseANegativeIndex() {
        List<byte[]> spooled = List.of(ShardEvents.assigned(id, -1, 1));

        assertThatThrownBy(() -> builder("work").build(id, spec, spooled, ShardEvents.seal(id, 1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("row index -1");
    }

    @Test
    void shouldRefuseAPayloadByteMismatch() {
        List<byte[]> spooled = List.of(ShardEvents.assigned(id, 0, 1), ShardEvents.assigned(id, 1, 2));
        var seal = ShardEvents.seal(id, 2, 2L * PAYLOAD_BYTES + 1, spec.fingerprint());

        assertThatThrownBy(() -> builder("work").build(id, spec, spooled, seal))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds " + 2 * PAYLOAD_BYTES + " payload bytes, seal marker says " + (2 * PAYLOAD_BYTES + 1));
    }

    @Test
    void shouldRefuseASealForAnotherSpec() {
        DatasetSpec other = Specs.spec("cams", "v1", TensorSpec.parse("image:float32:2x2"), TensorSpec.parse("label:int32"));
        List<byte[]> spooled = List.of(ShardEvents.assigned(id, 0, 1));
        var seal = ShardEvents.seal(id, 1, PAYLOAD_BYTES, other.fingerprint());

        assertThatThrownBy(() -> builder("work").build(id, spec, spooled, seal))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sealed for spec " + other.fingerprint())
                .hasMessageContaining("catalog holds " + spec.fingerprint());
    }

    @Test
    void shouldNotLeaveAFileBehindWhenRefusing() throws Exception {
        Path work = tmp.resolve("work");
        Files.createDirectories(work);
        List<byte[]> spooled = List.of(ShardEvents.assigned(id, 0, 1));

        assertThatThrownBy(() -> new ShardBuilder(new ShardWriter(), work, ShardEvents.samplesTopic()).build(id, spec, spooled, ShardEvents.seal(id, 2)))
                .isInstanceOf(IllegalStateException.class);
        try (var files = Files.list(work)) {
            assertThat(files).isEmpty();
        }
    }

    private ShardBuilder builder(String dir) {
        return new ShardBuilder(new ShardWriter(), tmp.resolve(dir), ShardEvents.samplesTopic());
    }
}
