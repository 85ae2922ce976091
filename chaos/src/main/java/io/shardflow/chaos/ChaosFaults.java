package io.shardflow.chaos;

import io.shardflow.stack.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The fault scheduler. Two tracks run side by side, so faults overlap: the process track kills
 * ingest-app and shard-sink instances and makes shard-sink zombies; the infrastructure track stops
 * the S3 server and restarts the broker. Each track shuffles its faults and spreads them over
 * {@code span}: fault i starts at a random moment of its slot, or right after the previous one if
 * that ran late. Every fault is recorded in the {@link ChaosJournal} with its target and timing.
 */
final class ChaosFaults {

    private static final Duration MIN_GAP = Duration.ofSeconds(2);
    /*
     * The other track, a crash point or the watchdog may have every instance of a stage down at the
     * moment a fault is due (both sinks restarting after a crash point, say). The fault then waits
     * for an instance to come back rather than being skipped, so a run injects what it scheduled.
     */
    private static final Duration TARGET_WAIT = Duration.ofSeconds(60);
    private static final Duration TARGET_POLL = Duration.ofMillis(250);

    private final ChaosCluster cluster;
    private final ChaosJournal journal;
    private final ChaosOptions options;
    private final Random random;
    private final List<Thread> tracks = new ArrayList<>();
    private volatile boolean stopped;
    private int brokerRestarts;

    ChaosFaults(ChaosCluster cluster, ChaosJournal journal, ChaosOptions options) {
        this.cluster = cluster;
        this.journal = journal;
        this.options = options;
        this.random = new Random(options.seed());
    }

    /** Starts both tracks; faults spread over {@code span}. */
    void start(Duration span) {
        List<ChaosJournal.Kind> process = new ArrayList<>();
        add(process, ChaosJournal.Kind.KILL_INGEST, options.ingestKills());
        add(process, ChaosJournal.Kind.KILL_SINK, options.sinkKills());
        add(process, ChaosJournal.Kind.ZOMBIE_SINK, options.zombies());
        List<ChaosJournal.Kind> infrastructure = new ArrayList<>();
        add(infrastructure, ChaosJournal.Kind.S3_OUTAGE, options.s3Outages());
        add(infrastructure, ChaosJournal.Kind.BROKER_RESTART, options.brokerRestarts());
        Collections.shuffle(process, random);
        Collections.shuffle(infrastructure, random);
        tracks.add(track("chaos-process-faults", process, span, new Random(random.nextLong())));
        tracks.add(track("chaos-infra-faults", infrastructure, span, new Random(random.nextLong())));
        tracks.forEach(Thread::start);
    }

    private static void add(List<ChaosJournal.Kind> list, ChaosJournal.Kind kind, int count) {
        for (int i = 0; i < count; i++) {
            list.add(kind);
        }
    }

    private Thread track(String name, List<ChaosJournal.Kind> faults, Duration span, Random random) {
        Thread thread = new Thread(() -> {
            if (faults.isEmpty()) {
                return;
            }
            long slot = span.toMillis() / faults.size();
            long trackStart = System.nanoTime();
            for (int i = 0; i < faults.size() && !stopped; i++) {
                long slotStart = i * slot;
                long due = slotStart + (long) (random.nextDouble() * slot * 0.7);
                long now = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - trackStart);
                sleep(Duration.ofMillis(Math.max(MIN_GAP.toMillis(), due - now)));
                if (stopped) {
                    return;
                }
                try {
                    inject(faults.get(i), random);
                } catch (RuntimeException e) {
                    journal.event("could not inject " + faults.get(i) + ": " + e);
                }
            }
        }, name);
        thread.setDaemon(true);
        return thread;
    }

    private void inject(ChaosJournal.Kind kind, Random random) {
        switch (kind) {
            case KILL_INGEST -> kill(kind, ChaosService.Stage.INGEST, random);
            case KILL_SINK -> kill(kind, ChaosService.Stage.SINK, random);
            case ZOMBIE_SINK -> zombie(random);
            case S3_OUTAGE -> s3Outage();
            case BROKER_RESTART -> brokerRestart();
            default -> throw new IllegalArgumentException("not scheduled: " + kind);
        }
    }

    private void kill(ChaosJournal.Kind kind, ChaosService.Stage stage, Random random) {
        long deadline = System.nanoTime() + TARGET_WAIT.toNanos();
        do {
            List<ChaosService> candidates = new ArrayList<>(cluster.services(stage));
            Collections.shuffle(candidates, random);
            for (ChaosService service : candidates) {
                long pid = service.pid();
                var at = journal.elapsed();
                if (service.kill()) {
                    Duration down = Duration.ofMillis(1_000 + random.nextInt(4_000));
                    sleep(down);
                    service.start();
                    journal.fault(kind, service.name(), at, down, "pid " + pid + " killed (SIGKILL), restarted as pid " + service.pid());
                    return;
                }
            }
            sleep(TARGET_POLL);
        } while (!stopped && System.nanoTime() < deadline);
        journal.event("no running " + stage + " instance to kill within " + TARGET_WAIT.toSeconds() + " s");
    }

    private void zombie(Random random) {
        long deadline = System.nanoTime() + TARGET_WAIT.toNanos();
        do {
            List<ChaosService> sinks = new ArrayList<>(cluster.services(ChaosService.Stage.SINK));
            Collections.shuffle(sinks, random);
            for (ChaosService sink : sinks) {
                var at = journal.elapsed();
                if (sink.freeze()) {
                    Duration frozen = options.sessionTimeout().plusMillis(3_000 + random.nextInt(5_000));
                    sleep(frozen);
                    sink.thaw();
                    journal.fault(ChaosJournal.Kind.ZOMBIE_SINK, sink.name(), at, frozen,
                            "pid " + sink.pid() + " SIGSTOP past the " + options.sessionTimeout().toSeconds()
                                    + " s session timeout, then SIGCONT");
                    return;
                }
            }
            sleep(TARGET_POLL);
        } while (!stopped && System.nanoTime() < deadline);
        journal.event("no running shard-sink to freeze within " + TARGET_WAIT.toSeconds() + " s");
    }

    private void s3Outage() {
        var at = journal.elapsed();
        long started = System.nanoTime();
        cluster.stack().stop(Role.S3);
        sleep(options.s3OutageLength());
        cluster.stack().start(Role.S3);
        journal.fault(ChaosJournal.Kind.S3_OUTAGE, options.s3Kind().toString().toLowerCase(java.util.Locale.ROOT), at,
                Duration.ofNanos(System.nanoTime() - started), "stopped, then started on the same port and data dir");
    }

    private void brokerRestart() {
        var at = journal.elapsed();
        long started = System.nanoTime();
        boolean hard = brokerRestarts++ % 2 == 0;
        if (hard) {
            cluster.stack().kill(Role.BROKER);
            sleep(options.brokerDownLength());
        } else {
            cluster.stack().stop(Role.BROKER);
        }
        cluster.stack().start(Role.BROKER);
        journal.fault(ChaosJournal.Kind.BROKER_RESTART, "kafka", at, Duration.ofNanos(System.nanoTime() - started),
                hard ? "kill -9, then started" : "graceful stop (SIGTERM), then started");
    }

    /** Waits until every track has injected its faults. */
    void awaitDone(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread track : tracks) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            track.join(Math.max(1, left));
        }
    }

    /** No new fault starts after this; one in progress completes (a stopped server is started again). */
    void stop() {
        stopped = true;
    }

    private void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
