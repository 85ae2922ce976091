package io.shardflow.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FatalErrorsTest {

    private final List<Integer> exits = new ArrayList<>();
    private final FatalErrors handler = new FatalErrors("test", exits::add);

    @Test
    void shouldHaltOnAnErrorEvenWhenWrapped() {
        RuntimeException wrapped = new RuntimeException("stream task failed", new OutOfMemoryError("Java heap space"));
        assertThat(handler.haltIfFatal(Thread.currentThread(), wrapped)).isTrue();
        assertThat(exits).containsExactly(FatalErrors.EXIT_CODE);
    }

    @Test
    void shouldLeaveOrdinaryExceptionsAlone() {
        assertThat(handler.haltIfFatal(Thread.currentThread(), new IllegalStateException("bug"))).isFalse();
        handler.uncaughtException(Thread.currentThread(), new IllegalStateException("bug"));
        assertThat(exits).isEmpty();
    }

    @Test
    void shouldEndARealProcessWithANonZeroStatusWhenAWorkerThreadRunsOutOfMemory() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(), "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                DyingWorker.class.getName()).redirectErrorStream(true).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.exitValue()).as(output).isEqualTo(FatalErrors.EXIT_CODE);
        assertThat(output).contains("fatal java.lang.OutOfMemoryError in thread worker");
    }

    /** A process whose only worker thread exhausts the heap while main waits, as shard-sink's main does. */
    public static final class DyingWorker {
        public static void main(String[] args) throws InterruptedException {
            FatalErrors.halting("dying-worker").installAsDefault();
            Thread worker = new Thread(() -> {
                List<long[]> hog = new ArrayList<>();
                while (true) {
                    hog.add(new long[1 << 20]);
                }
            }, "worker");
            worker.start();
            worker.join();
            // Without the handler the worker's death goes unnoticed and the process ends well.
            System.exit(0);
        }
    }
}
