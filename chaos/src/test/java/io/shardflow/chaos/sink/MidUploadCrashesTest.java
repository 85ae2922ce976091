package io.shardflow.chaos.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MidUploadCrashesTest {

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();

    @Test
    void shouldLeaveTheStoreUnwrappedWhenThePointIsNotListed() {
        assertThat(MidUploadCrashes.wrap(store, CrashPoints.NONE)).isSameAs(store);
        assertThat(MidUploadCrashes.wrap(store, CrashPoints.of("after-upload:1", ""))).isSameAs(store);
    }

    @Test
    void shouldHaltWhileAShardPutIsOnTheWire() throws Exception {
        CountDownLatch halted = new CountDownLatch(1);
        CrashPoints points = midUploadEveryTime(halted);
        boolean[] haltedDuringPut = new boolean[1];
        ObjectStore slow = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, Path file) {
                try {
                    haltedDuringPut[0] = halted.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.putIfAbsent(key, file);
            }
        };
        Path file = Files.write(tmp.resolve("s.h5"), new byte[] {1, 2, 3});

        MidUploadCrashes.wrap(slow, points).putIfAbsent("datasets/d/v1/shards/lane-00000/shard-000000000001.h5", file);

        assertThat(haltedDuringPut[0]).as("the halt came while the put was in progress").isTrue();
    }

    @Test
    void shouldHaltWhileAShardBuiltInMemoryIsOnTheWire() {
        CountDownLatch halted = new CountDownLatch(1);
        CrashPoints points = midUploadEveryTime(halted);
        boolean[] haltedDuringPut = new boolean[1];
        ObjectStore slow = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, java.nio.ByteBuffer bytes, String sha256Hex) {
                try {
                    haltedDuringPut[0] = halted.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.putIfAbsent(key, bytes, sha256Hex);
            }
        };

        MidUploadCrashes.wrap(slow, points).putIfAbsent("datasets/d/v1/shards/lane-00000/shard-000000000001.h5",
                java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}), "unused");

        assertThat(haltedDuringPut[0]).as("the halt came while the put was in progress").isTrue();
    }

    @Test
    void shouldNotCrashOnCommitLogWrites() throws Exception {
        CrashPoints points = CrashPoints.of("mid-upload:1", "", new SplittableRandom(1), new CrashPoints.Injector() {
            @Override
            public void halt(CrashPoint point) {
                throw new AssertionError("log writes are not uploads");
            }

            @Override
            public void freeze(CrashPoint point) {
            }
        });
        Path file = Files.write(tmp.resolve("e.json"), new byte[] {1});

        assertThat(MidUploadCrashes.wrap(store, points).putIfAbsent("datasets/d/v1/log/00000000000000000001.json", file))
                .isEqualTo(PutOutcome.CREATED);
    }

    /** The mid-upload point firing on every shard upload, its halt counting {@code halted} down instead of halting. */
    private static CrashPoints midUploadEveryTime(CountDownLatch halted) {
        return CrashPoints.of("mid-upload:1", "", new SplittableRandom(1), new CrashPoints.Injector() {
            @Override
            public void halt(CrashPoint point) {
                halted.countDown();
            }

            @Override
            public void freeze(CrashPoint point) {
            }
        });
    }
}
