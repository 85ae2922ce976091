package io.shardflow.edge.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One queue format for both SDKs (docs/EDGE-QUEUE.md): this opens a queue directory the Python SDK
 * wrote (python/tests/edge/fixtures/python-queue, written by test_queue_shared_format.py) and writes
 * the Java one that Python test reads ({@code -Dshardflow.fixtures.write=true} rewrites it).
 */
class QueueFormatCompatTest {

    private static final Path FIXTURES = Path.of(System.getProperty("shardflow.repo", "..")).resolve("python/tests/edge/fixtures");
    private static final DurableQueue.Settings SETTINGS = new DurableQueue.Settings(1L << 20, DurableQueue.Policy.BLOCK, 8 << 10, 1000);

    @TempDir
    Path work;

    static byte[] value(int n) {
        byte[] value = new byte[1000 + 300 * n];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) ((n * 31 + i) % 251);
        }
        return value;
    }

    @Test
    void shouldReadTheQueueThePythonSdkWrote() throws Exception {
        Path queue = copy(FIXTURES.resolve("python-queue"), work.resolve("from-python"));
        assertThat(entries(queue)).containsExactly(expected("p").toArray(new String[0]));
    }

    @Test
    void shouldWriteTheQueueThePythonSdkReads() throws Exception {
        Path queue = work.resolve("java-queue");
        try (DurableQueue q = new DurableQueue(queue, SETTINGS, Clock.systemUTC())) {
            for (int n = 0; n < 10; n++) {
                q.append(List.<byte[][]>of(new byte[][] {("j-" + n).getBytes(StandardCharsets.UTF_8), value(n)}));
            }
            for (long s = 1; s <= 3; s++) {
                q.ack(s);
            }
        }
        Files.delete(queue.resolve("lock"));
        assertThat(entries(queue)).containsExactly(expected("j").toArray(new String[0]));
        if (Boolean.getBoolean("shardflow.fixtures.write")) {
            copy(queue, FIXTURES.resolve("java-queue"));
        }
        assertThat(FIXTURES.resolve("java-queue").resolve("queue.id")).exists();
    }

    private static List<String> expected(String prefix) {
        List<String> out = new ArrayList<>();
        for (int n = 3; n < 10; n++) {
            out.add((n + 1) + " " + prefix + "-" + n + " " + java.util.Arrays.hashCode(value(n)));
        }
        return out;
    }

    private static List<String> entries(Path queue) throws Exception {
        List<String> out = new ArrayList<>();
        try (DurableQueue q = new DurableQueue(queue, SETTINGS, Clock.systemUTC()); QueueReader reader = new QueueReader(q, q.doneSeq() + 1)) {
            for (Optional<SegmentFormat.Frame> f = reader.next(0); f.isPresent(); f = reader.next(0)) {
                out.add(f.get().seq() + " " + new String(f.get().key(), StandardCharsets.UTF_8) + " " + java.util.Arrays.hashCode(f.get().value()));
            }
        }
        return out;
    }

    private static Path copy(Path from, Path to) throws Exception {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path p : files.toList()) {
                if (!p.getFileName().toString().equals("lock")) {
                    Files.copy(p, to.resolve(p.getFileName().toString()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return to;
    }
}
