package io.shardflow.edge.queue;

import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The process {@link QueueCrashTest} kills: appends entries e-N to a queue in a loop (small
 * segments, so rolls, reuse and reclaim all happen) and acknowledges older ones as a sender would.
 * Before each append it writes N to attempts.log, after the append returned to returned.log.
 */
public final class QueueCrashChild {

    private QueueCrashChild() {
    }

    static byte[] value(long n) {
        byte[] value = new byte[(int) (1000 + Math.floorMod(n * 7919, 9000))];
        new SplittableRandom(n).nextBytes(value);
        return value;
    }

    public static void main(String[] args) throws Exception {
        Path queueDir = Path.of(args[0]);
        Path journal = Path.of(args[1]);
        long next = Files.exists(journal.resolve("attempts.log"))
                ? Files.readAllLines(journal.resolve("attempts.log")).stream().filter(s -> !s.isBlank()).mapToLong(Long::parseLong).max().orElse(-1) + 1
                : 0;
        SplittableRandom random = new SplittableRandom(next);
        try (DurableQueue queue = new DurableQueue(queueDir, new DurableQueue.Settings(64L << 20, DurableQueue.Policy.BLOCK, 64 << 10, 30_000),
                Clock.systemUTC());
             PrintStream attempts = new PrintStream(new FileOutputStream(journal.resolve("attempts.log").toFile(), true));
             PrintStream returned = new PrintStream(new FileOutputStream(journal.resolve("returned.log").toFile(), true))) {
            long acked = queue.doneSeq();
            for (long n = next; ; n++) {
                attempts.println(n);
                attempts.flush();
                queue.append(List.<byte[][]>of(new byte[][] {("e-" + n).getBytes(), value(n)}));
                returned.println(n);
                returned.flush();
                // a sender acknowledging the oldest entries now and then, in order, as the broker would
                while (random.nextInt(3) == 0 && acked < queue.durableSeq() - 5) {
                    queue.ack(++acked);
                }
            }
        }
    }
}
