package io.shardflow.edge.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a real process appending to the queue, at random points, 50 times: afterwards every
 * append that returned is either acknowledged or still queued, whole, exactly once and in order;
 * nothing that was never appended appears; seqs never repeat.
 */
class QueueCrashTest {

    private static final int KILLS = 50;

    @TempDir
    Path work;

    @Test
    void shouldKeepEveryReturnedAppendWholeAndOnceAcrossKillNine() throws Exception {
        Path queueDir = work.resolve("queue");
        Path journal = Files.createDirectories(work.resolve("journal"));
        SplittableRandom random = new SplittableRandom(18);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path attemptsLog = journal.resolve("attempts.log");
        for (int kill = 0; kill < KILLS; kill++) {
            long attemptsBefore = Files.exists(attemptsLog) ? Files.size(attemptsLog) : 0;
            Process child = new ProcessBuilder(java, "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                    QueueCrashChild.class.getName(), queueDir.toString(), journal.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("child.log").toFile())).start();
            // The kill must land among the appends, not in the JVM's start, which a loaded machine can
            // stretch past any fixed wait: once the child logs an attempt, it is appending.
            awaitGrowth(attemptsLog, attemptsBefore, child, work.resolve("child.log"));
            Thread.sleep(random.nextLong(0, 1200));
            assertThat(child.isAlive()).as("the child died by itself; see %s", work.resolve("child.log")).isTrue();
            child.destroyForcibly(); // SIGKILL
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        List<Long> attempts = numbers(journal.resolve("attempts.log"));
        Set<Long> returned = new HashSet<>(numbers(journal.resolve("returned.log")));
        assertThat(returned.size()).as("appends returned over all runs").isGreaterThan(KILLS);

        try (DurableQueue queue = new DurableQueue(queueDir, DurableQueue.Settings.defaults(), Clock.systemUTC());
             QueueReader reader = new QueueReader(queue, queue.doneSeq() + 1)) {
            List<Long> queued = new ArrayList<>();
            long previousSeq = queue.doneSeq();
            for (Optional<SegmentFormat.Frame> f = reader.next(0); f.isPresent(); f = reader.next(0)) {
                assertThat(f.get().seq()).isEqualTo(previousSeq + 1);
                previousSeq = f.get().seq();
                long n = Long.parseLong(new String(f.get().key(), StandardCharsets.UTF_8).substring(2));
                assertThat(f.get().value()).as("entry e-%d whole", n).isEqualTo(QueueCrashChild.value(n));
                queued.add(n);
            }
            assertThat(queue.corrupt()).isZero();
            assertThat(new HashSet<>(queued)).as("no entry twice").hasSize(queued.size());
            assertThat(attempts).as("nothing queued that was never appended").containsAll(queued);
            // entries are appended in n order, so the queued ones are the newest: every returned
            // append after the oldest still queued is there (older ones were acknowledged)
            long oldestQueued = queued.isEmpty() ? Long.MAX_VALUE : queued.get(0);
            Set<Long> expected = new HashSet<>();
            returned.stream().filter(n -> n >= oldestQueued).forEach(expected::add);
            assertThat(new HashSet<>(queued)).containsAll(expected);
            assertThat(queue.append(List.<byte[][]>of(new byte[][] {"k".getBytes(), "v".getBytes()}))[0]).isEqualTo(previousSeq + 1);
        }
    }

    private static void awaitGrowth(Path file, long sizeBefore, Process child, Path childLog) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!Files.exists(file) || Files.size(file) <= sizeBefore) {
            assertThat(child.isAlive()).as("the child died before appending; see %s", childLog).isTrue();
            assertThat(System.nanoTime() - deadline).as("the child did not start appending within 120 s").isNegative();
            Thread.sleep(10);
        }
    }

    private static List<Long> numbers(Path file) throws Exception {
        return Files.readAllLines(file).stream().filter(s -> !s.isBlank()).map(Long::parseLong).toList();
    }
}
