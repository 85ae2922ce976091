package io.shardflow.it.edge;

import io.shardflow.edge.SyntheticSamples;
import io.shardflow.edge.queue.DurableQueue;
import io.shardflow.edge.queue.QueuedPublisher;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

/**
 * The publishing JVM {@link QueuedPublisherTest} kills with SIGKILL: sends samples n = 0, 1, 2, ...
 * through a {@link QueuedPublisher} on a shared queue directory, writing n to attempts.log before
 * each send and to returned.log after it returned (flushed: a kill keeps the page cache). With a
 * limit it sends up to it, waits for delivery and exits 0 only if nothing is left queued.
 *
 * <pre>QueuedPublisherChild BOOTSTRAP REGISTRY_URL QUEUE_DIR JOURNAL_DIR [LIMIT]</pre>
 */
public final class QueuedPublisherChild {

    static final SyntheticSamples SAMPLES = new SyntheticSamples("jq", "v1", "java-crash", 3, 8, 10, 11);

    private QueuedPublisherChild() {
    }

    static Instant producedAt(long n) {
        return Instant.ofEpochMilli(1_700_000_000_000L + n);
    }

    public static void main(String[] args) throws Exception {
        Path queueDir = Path.of(args[2]);
        Path journal = Path.of(args[3]);
        Long limit = args.length > 4 ? Long.parseLong(args[4]) : null;
        Path attemptsFile = journal.resolve("attempts.log");
        long next = Files.exists(attemptsFile)
                ? Files.readAllLines(attemptsFile).stream().filter(s -> !s.isBlank()).mapToLong(Long::parseLong).max().orElse(-1) + 1
                : 0;
        long left;
        try (QueuedPublisher publisher = QueuedPublisher.create(args[0], args[1], "samples", queueDir,
                new DurableQueue.Settings(256L << 20, DurableQueue.Policy.BLOCK, 1L << 20, 60_000), Map.of());
             PrintStream attempts = new PrintStream(new FileOutputStream(attemptsFile.toFile(), true));
             PrintStream returned = new PrintStream(new FileOutputStream(journal.resolve("returned.log").toFile(), true))) {
            Files.writeString(journal.resolve("ready-" + ProcessHandle.current().pid()), "");
            for (long n = next; limit == null || n < limit; n++) {
                attempts.println(n);
                attempts.flush();
                publisher.send(SAMPLES.sample(n, producedAt(n)));
                returned.println(n);
                returned.flush();
            }
            left = publisher.flush(180_000);
        }
        System.out.println("left queued: " + left);
        System.exit(left == 0 ? 0 : 1);
    }
}
