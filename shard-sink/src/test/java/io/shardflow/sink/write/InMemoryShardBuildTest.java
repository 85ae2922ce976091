package io.shardflow.sink.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.retry.Retrier;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.shard.StreamingShardWriter;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.sink.ShardEvents;
import io.shardflow.sink.source.SampleSource;
import io.shardflow.sink.source.SourceRecordGoneException;
import io.shardflow.sink.source.SourcedSample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ShardBuilder} with a {@link MemoryBudget}: shards built in memory, and what happens to them afterwards. */
class InMemoryShardBuildTest {

    @TempDir
    Path tmp;

    private final DatasetSpec spec = ShardEvents.spec();
    private final ShardId id = ShardEvents.shard(2, 9);
    private final MemoryBudget memory = new MemoryBudget(64L << 20);

    @Test
    void shouldDescribeTheImageAsTheDiskBuildDescribesItsFile() throws IOException {
        BuiltShard inMemory = builder("memory", memory).build(id, spec, spooled(20), ShardEvents.seal(id, 20));
        BuiltShard onDisk = builder("disk", new MemoryBudget(0)).build(id, spec, spooled(20), ShardEvents.seal(id, 20));

        assertThat(inMemory.inMemory()).isTrue();
        assertThat(onDisk.inMemory()).isFalse();
        assertThat(inMemory.entry()).isEqualTo(onDisk.entry());
        assertThat(inMemory.pageIndex()).isEqualTo(ShardFileDigest.of(onDisk.file(), PageIndex.DEFAULT_PAGE_SIZE).pageIndex());
        assertThat(memory.reserved()).as("held: the image's size").isEqualTo(inMemory.image().size());
        assertThat(files("memory")).as("nothing on disk").isEmpty();

        inMemory.release();
        assertThat(memory.reserved()).isZero();
        inMemory.release(); // again, as a pending shard's release after the finisher's
        assertThat(memory.reserved()).isZero();
    }

    @Test
    void shouldSpillToTheWorkDirectoryWithTheSameBytesAndFreeTheMemory() throws IOException {
        BuiltShard inMemory = builder("memory", memory).build(id, spec, spooled(5), ShardEvents.seal(id, 5));

        BuiltShard spilled = inMemory.spilled();

        assertThat(spilled.inMemory()).isFalse();
        assertThat(memory.reserved()).isZero();
        assertThat(ShardDigest.sha256(spilled.file())).isEqualTo(inMemory.entry().sha256());
        assertThat(spilled.entry()).isEqualTo(inMemory.entry());
        assertThat(new ShardReader().read(spilled.file()).rows()).hasSize(5);
        spilled.release();
        assertThat(files("memory")).isEmpty();
    }

    @Test
    void shouldGiveTheReservationBackWhenTheBuildFails() throws IOException {
        SampleSource goneAtRowThree = (partition, offsets, each) -> {
            for (long offset : offsets) {
                if (offset == 102) {
                    throw new SourceRecordGoneException("samples-2@102 was deleted by retention");
                }
                each.accept(new SourcedSample(offset, ShardEvents.sample(Math.toIntExact(offset))));
            }
        };

        assertThatThrownBy(() -> new ShardBuilder(new StreamingShardWriter(), dir("memory"), goneAtRowThree, memory)
                .build(id, spec, spooled(5), ShardEvents.seal(id, 5))).isInstanceOf(SourceRecordGoneException.class);

        assertThat(memory.reserved()).isZero();
        assertThat(files("memory")).isEmpty();
    }

    @Test
    void shouldBuildOnDiskWhenTheBudgetIsTakenOrTheWriterCannotBuildInMemory() throws IOException {
        MemoryBudget.Reservation other = memory.tryReserve(memory.capacity() - 1000);

        BuiltShard crowdedOut = builder("crowded", memory).build(id, spec, spooled(3), ShardEvents.seal(id, 3));
        other.close();
        BuiltShard jhdf = new ShardBuilder(new ShardWriter(), dir("jhdf"), ShardEvents.samplesTopic(), memory)
                .build(id, spec, spooled(3), ShardEvents.seal(id, 3));

        assertThat(crowdedOut.inMemory()).isFalse();
        assertThat(jhdf.inMemory()).isFalse();
        assertThat(Files.exists(crowdedOut.file())).isTrue();
        assertThat(memory.reserved()).as("a writer that cannot build in memory gives its reservation back").isZero();
    }

    @Test
    void shouldCommitTheStoredChecksumWhenAnotherWritersObjectHoldsTheSameRows() {
        InMemoryObjectStore store = new InMemoryObjectStore();
        BuiltShard stored = new ShardBuilder(new ShardWriter(), dir("stored"), ShardEvents.samplesTopic())
                .build(id, spec, spooled(3), ShardEvents.seal(id, 3));
        store.putIfAbsent(stored.entry().objectKey(), stored.file());
        BuiltShard replay = builder("work", memory).build(id, spec, spooled(3), ShardEvents.seal(id, 3));
        Retrier retrier = new Retrier(2, Duration.ofMillis(1), Duration.ofMillis(2), d -> { });

        ShardEntry entry = new ShardUploader(store, retrier, dir("work")).upload(replay);

        assertThat(replay.inMemory()).isTrue();
        assertThat(entry.sha256()).isEqualTo(stored.entry().sha256()).isNotEqualTo(replay.entry().sha256());
        replay.release();
        assertThat(Files.exists(replay.file())).as("the copy written to compare rows goes with the shard").isFalse();
    }

    private ShardBuilder builder(String dir, MemoryBudget budget) {
        return new ShardBuilder(new StreamingShardWriter(), dir(dir), ShardEvents.samplesTopic(), budget);
    }

    private Path dir(String name) {
        try {
            return Files.createDirectories(tmp.resolve(name));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private List<Path> files(String name) throws IOException {
        try (Stream<Path> files = Files.list(dir(name))) {
            return files.toList();
        }
    }

    private List<byte[]> spooled(int rows) {
        List<byte[]> spooled = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            spooled.add(ShardEvents.assigned(id, i, 100 + i));
        }
        return spooled;
    }
}
