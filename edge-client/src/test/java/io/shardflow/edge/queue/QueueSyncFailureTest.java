package io.shardflow.edge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sync that fails (EIO, injected through {@link FileSync}): the error reaches the caller, what was
 * written since the last good sync is cut, and the queue is intact and usable afterwards, after a
 * reopen too; a roll whose sync fails queues nothing of that call.
 */
class QueueSyncFailureTest {

    private static final DurableQueue.Settings SMALL = new DurableQueue.Settings(1L << 20, DurableQueue.Policy.BLOCK, 8 << 10, 1000);

    @TempDir
    Path work;

    /** Syncs for real, except the calls numbered in {@code failOn} (1-based), which throw EIO's message. */
    private static final class FailingSync implements FileSync {
        private final Set<Integer> failOn;
        private int calls;

        FailingSync(Integer... failOn) {
            this.failOn = Set.of(failOn);
        }

        @Override
        public void force(java.nio.channels.FileChannel channel) throws IOException {
            calls++;
            if (failOn.contains(calls)) {
                throw new IOException("Input/output error");
            }
            channel.force(false);
        }
    }

    private static List<byte[][]> entry(String key, String value) {
        return List.<byte[][]>of(new byte[][] {key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8)});
    }

    private static List<String> entries(DurableQueue queue) throws Exception {
        List<String> out = new ArrayList<>();
        try (QueueReader reader = new QueueReader(queue, queue.doneSeq() + 1)) {
            for (Optional<SegmentFormat.Frame> f = reader.next(0); f.isPresent(); f = reader.next(0)) {
                out.add(f.get().seq() + ":" + new String(f.get().key(), StandardCharsets.UTF_8) + "="
                        + new String(f.get().value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Test
    void shouldThrowTheSyncErrorToTheCallerAndKeepTheQueueIntactAndUsable() throws Exception {
        Path dir = work.resolve("q");
        // call 1 syncs the recovered segment at open, 2 and 3 the first appends, 4 fails
        try (DurableQueue queue = new DurableQueue(dir, SMALL, Clock.systemUTC(), new FailingSync(4))) {
            assertThat(queue.append(entry("a", "1"))).containsExactly(1);
            assertThat(queue.append(entry("b", "2"))).containsExactly(2);
            assertThatThrownBy(() -> queue.append(entry("c", "3"))).isInstanceOf(IOException.class)
                    .hasMessageContaining("sync failed").hasMessageContaining("Input/output error")
                    .hasMessageContaining("nothing of this call was queued");
            assertThat(entries(queue)).as("the failed append is not there; the others are").containsExactly("1:a=1", "2:b=2");
            assertThat(queue.pending()).isEqualTo(2);
            assertThat(queue.append(entry("d", "4"))).as("the queue goes on; the cut seq was never sent, so it is used again")
                    .containsExactly(3);
        }
        try (DurableQueue queue = new DurableQueue(dir, SMALL, Clock.systemUTC())) {
            assertThat(queue.cutBytes()).as("no torn tail left on disk").isZero();
            assertThat(entries(queue)).containsExactly("1:a=1", "2:b=2", "3:d=4");
        }
    }

    @Test
    void shouldQueueNothingOfACallWhoseRollFailsToSync() throws Exception {
        String big = "x".repeat(6000);
        // call 1 at open, 2 the first append, 3 the roll's seal of the full segment
        try (DurableQueue queue = new DurableQueue(work.resolve("q"), SMALL, Clock.systemUTC(), new FailingSync(3))) {
            queue.append(entry("a", big));
            assertThatThrownBy(() -> queue.append(entry("b", big))).isInstanceOf(IOException.class);
            assertThat(entries(queue)).hasSize(1);
            assertThat(queue.append(entry("c", big))).containsExactly(2);
            assertThat(entries(queue)).extracting(s -> s.substring(0, 3)).containsExactly("1:a", "2:c");
        }
    }

    @Test
    void shouldRefuseToOpenWhenTheRecoveredSegmentCannotBeSyncedAndOpenLater() throws Exception {
        Path dir = work.resolve("q");
        try (DurableQueue queue = new DurableQueue(dir, SMALL, Clock.systemUTC())) {
            queue.append(entry("a", "1"));
        }
        assertThatThrownBy(() -> new DurableQueue(dir, SMALL, Clock.systemUTC(), new FailingSync(1))).isInstanceOf(IOException.class);
        try (DurableQueue queue = new DurableQueue(dir, SMALL, Clock.systemUTC())) {
            assertThat(entries(queue)).as("the lock was released and nothing changed").containsExactly("1:a=1");
        }
    }
}
