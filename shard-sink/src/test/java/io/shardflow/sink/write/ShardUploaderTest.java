package io.shardflow.sink.write;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.pages.PageIndexCodec;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.retry.Retrier;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardFileWriter;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.shard.StreamingShardWriter;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.dataset.store.PutOutcome;
import io.shardflow.sink.ShardEvents;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ShardUploaderTest {

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final List<Duration> sleeps = new ArrayList<>();
    private final Retrier retrier = new Retrier(3, Duration.ofMillis(10), Duration.ofMillis(100), sleeps::add);
    private final ShardId id = ShardEvents.shard(1, 7);

    @Test
    void shouldCreateTheObjectWithTheFileBytes() throws IOException {
        BuiltShard shard = build("ours", 1, 2, 3);

        ShardEntry entry = uploader(store).upload(shard);

        assertThat(entry).isEqualTo(indexed(shard));
        assertThat(store.get(shard.entry().objectKey())).hasValueSatisfying(
                bytes -> assertThat(bytes).isEqualTo(readAllBytes(shard.file())));
        byte[] index = store.get(DatasetLayout.pageIndexKey(shard.entry().objectKey())).orElseThrow();
        assertThat(PageIndexCodec.decode(index, "stored")).isEqualTo(ShardFileDigest.of(shard.file(), PageIndex.DEFAULT_PAGE_SIZE)
                .pageIndex());
        assertThat(store.putCount()).as("the shard, then its page index").isEqualTo(2);
    }

    @Test
    void shouldCommitNoPageIndexWhenAnotherIsStoredAlready() {
        BuiltShard shard = build("ours", 1, 2, 3);
        String indexKey = DatasetLayout.pageIndexKey(shard.entry().objectKey());
        store.putIfAbsent(indexKey, "{\"formatVersion\":1,\"pageSize\":4096}".getBytes(StandardCharsets.UTF_8));

        ShardEntry entry = uploader(store).upload(shard);

        assertThat(entry).as("readers read this shard whole").isEqualTo(shard.entry());
        assertThat(entry.hasPageIndex()).isFalse();
    }

    @Test
    void shouldRetryAFailedPageIndexUpload() {
        AtomicInteger failures = new AtomicInteger(2);
        ForwardingObjectStore flaky = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, byte[] bytes) {
                if (failures.getAndDecrement() > 0) {
                    throw new ObjectStoreException("putIfAbsent", key, "503 Slow Down");
                }
                return super.putIfAbsent(key, bytes);
            }
        };
        BuiltShard shard = build("ours", 1, 2);

        assertThat(uploader(flaky).upload(shard)).isEqualTo(indexed(shard));
        assertThat(sleeps).hasSize(2);
    }

    @Test
    void shouldAcceptAnExistingObjectWithIdenticalBytes() throws IOException {
        BuiltShard earlier = build("earlier-run", 1, 2, 3);
        store.putIfAbsent(earlier.entry().objectKey(), earlier.file());
        BuiltShard replay = build("replay", 1, 2, 3);

        ShardEntry entry = uploader(store).upload(replay);

        assertThat(entry).isEqualTo(indexed(replay)).isEqualTo(indexed(earlier));
        assertThat(workFiles()).as("the downloaded copy is removed").containsOnly(replay.file());
    }

    @Test
    void shouldRefuseAnExistingObjectWithDifferentRows() throws IOException {
        BuiltShard other = build("other", 1, 2, 4);
        store.putIfAbsent(other.entry().objectKey(), other.file());
        BuiltShard ours = build("ours", 1, 2, 3);

        assertThatThrownBy(() -> uploader(store).upload(ours))
                .isInstanceOf(ShardUploader.ShardMismatchException.class)
                .hasMessageContaining(ours.entry().objectKey())
                .hasMessageContaining("different rows")
                .hasMessageContaining(other.entry().sha256())
                .hasMessageContaining(ours.entry().sha256());
        assertThat(store.get(ours.entry().objectKey())).hasValueSatisfying(
                bytes -> assertThat(bytes).as("never overwritten").isEqualTo(readAllBytes(other.file())));
        assertThat(workFiles()).containsOnly(ours.file());
    }

    @Test
    void shouldCommitTheStoredChecksumWhenTheRowsMatchButTheBytesDiffer() throws IOException {
        // Stands in for a file written on another platform: same rows, other bytes (a trailing pad).
        BuiltShard foreign = build("foreign", 1, 2, 3);
        Files.write(foreign.file(), new byte[64], StandardOpenOption.APPEND);
        store.putIfAbsent(foreign.entry().objectKey(), foreign.file());
        BuiltShard ours = build("ours", 1, 2, 3);

        ShardEntry entry = uploader(store).upload(ours);

        assertThat(entry.sha256()).isEqualTo(ShardDigest.sha256(foreign.file())).isNotEqualTo(ours.entry().sha256());
        assertThat(entry.bytes()).isEqualTo(Files.size(foreign.file()));
        assertThat(entry.sampleCount()).isEqualTo(3);
        assertThat(entry.shardId()).isEqualTo(ours.entry().shardId());
        assertThat(entry.firstProducedAt()).isEqualTo(ours.entry().firstProducedAt());
        // the page index describes the stored object's pages, not the replay's
        byte[] index = store.get(DatasetLayout.pageIndexKey(entry.objectKey())).orElseThrow();
        assertThat(entry.pageIndexSha256()).isEqualTo(ShardFileDigest.sha256Hex(index, 0, index.length));
        assertThat(PageIndexCodec.decode(index, "stored").shardSha256()).isEqualTo(entry.sha256());
        assertThat(workFiles()).containsOnly(ours.file());
    }

    @Test
    void shouldRecogniseAShardStoredByTheOtherWriterOnReplay() throws IOException {
        BuiltShard stored = build("stored", 1, 2, 3);
        store.putIfAbsent(stored.entry().objectKey(), stored.file());
        BuiltShard replay = build(new StreamingShardWriter(), "replay", 1, 2, 3);

        ShardEntry entry = uploader(store).upload(replay);

        assertThat(replay.entry().sha256()).isNotEqualTo(stored.entry().sha256());
        assertThat(entry.sha256()).isEqualTo(stored.entry().sha256());
        assertThat(entry.bytes()).isEqualTo(Files.size(stored.file()));
    }

    @Test
    void shouldRetryAFailedUpload() {
        AtomicInteger failures = new AtomicInteger(2);
        ForwardingObjectStore flaky = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, Path file, String sha256Hex) {
                if (failures.getAndDecrement() > 0) {
                    throw new ObjectStoreException("putIfAbsent", key, "503 Slow Down");
                }
                return super.putIfAbsent(key, file, sha256Hex);
            }
        };
        BuiltShard shard = build("ours", 1, 2);

        assertThat(uploader(flaky).upload(shard)).isEqualTo(indexed(shard));
        assertThat(sleeps).hasSize(2);
    }

    @Test
    void shouldRecogniseItsOwnUploadWhoseResponseWasLost() {
        AtomicInteger lost = new AtomicInteger(1);
        ForwardingObjectStore lossy = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, Path file, String sha256Hex) {
                PutOutcome outcome = super.putIfAbsent(key, file, sha256Hex);
                if (lost.getAndDecrement() > 0) {
                    throw new ObjectStoreException("putIfAbsent", key, "read timed out");
                }
                return outcome;
            }
        };
        BuiltShard shard = build("ours", 1, 2);

        assertThat(uploader(lossy).upload(shard)).isEqualTo(indexed(shard));
        assertThat(store.keys()).containsExactly(shard.entry().objectKey(),
                DatasetLayout.pageIndexKey(shard.entry().objectKey()));
    }

    @Test
    void shouldGiveUpWhenTheStoreStaysDown() {
        store.failWhen((op, key) -> op.equals("putIfAbsent"));
        BuiltShard shard = build("ours", 1);

        assertThatThrownBy(() -> uploader(store).upload(shard))
                .isInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("gave up after 3 attempts");
        assertThat(store.keys()).isEmpty();
    }

    /** The entry a shard is committed with: naming the page index of its bytes. */
    private static ShardEntry indexed(BuiltShard shard) {
        byte[] index = PageIndexCodec.encode(shard.pageIndex());
        return shard.entry().withPageIndex(ShardFileDigest.sha256Hex(index, 0, index.length));
    }

    private ShardUploader uploader(io.shardflow.dataset.store.ObjectStore target) {
        return new ShardUploader(target, retrier, tmp.resolve("work"));
    }

    /** Builds the shard from samples with these seeds in its own directory (as another run would). */
    private BuiltShard build(String run, int... seeds) {
        return build(new ShardWriter(), run, seeds);
    }

    private BuiltShard build(ShardFileWriter writer, String run, int... seeds) {
        List<byte[]> spooled = new ArrayList<>();
        for (int i = 0; i < seeds.length; i++) {
            spooled.add(ShardEvents.assigned(id, i, seeds[i]));
        }
        Path dir = run.equals("ours") || run.equals("replay") ? tmp.resolve("work") : tmp.resolve(run);
        return new ShardBuilder(writer, dir, ShardEvents.samplesTopic()).build(id, ShardEvents.spec(), spooled, ShardEvents.seal(id, seeds.length));
    }

    private List<Path> workFiles() throws IOException {
        try (var files = Files.list(tmp.resolve("work"))) {
            return files.toList();
        }
    }

    private static byte[] readAllBytes(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
