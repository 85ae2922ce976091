package io.shardflow.chaos;

import io.shardflow.stack.LocalStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The pipeline of a chaos run: two ingest-app and two shard-sink instances, each its own JVM with
 * the same application id / group id and its own state or spool directory, on a {@link LocalStack}.
 * A watchdog thread plays the part of an orchestrator: an instance that exits on its own is
 * restarted after a short delay (and its exit sorted into an injected crash point, a refused start
 * during an outage, or a violation), one that froze itself at a freeze point is thawed after
 * {@code freezeLength}.
 */
final class ChaosCluster implements AutoCloseable {

    static final Duration RESTART_DELAY = Duration.ofSeconds(2);
    private static final Duration WATCH_INTERVAL = Duration.ofMillis(500);

    private final LocalStack stack;
    private final List<ChaosService> services;
    private final ChaosJournal journal;
    private final Duration freezeLength;
    private final Map<ChaosService, Long> restartAt = new HashMap<>();
    private final Map<ChaosService, Long> thawAt = new HashMap<>();
    private final Map<ChaosService, Long> frozenSince = new HashMap<>();
    private final Thread watchdog;
    private volatile boolean watching = true;

    ChaosCluster(LocalStack stack, List<ChaosService> services, ChaosJournal journal, Duration freezeLength) {
        this.stack = stack;
        this.services = List.copyOf(services);
        this.journal = journal;
        this.freezeLength = freezeLength;
        this.watchdog = new Thread(this::watch, "chaos-watchdog");
        this.watchdog.setDaemon(true);
    }

    void start() {
        services.forEach(ChaosService::start);
        watchdog.start();
    }

    LocalStack stack() {
        return stack;
    }

    List<ChaosService> services(ChaosService.Stage stage) {
        return services.stream().filter(s -> s.stage() == stage).toList();
    }

    private void watch() {
        while (watching) {
            long now = System.nanoTime();
            for (ChaosService service : services) {
                try {
                    watch(service, now);
                } catch (RuntimeException e) {
                    journal.event("watchdog could not handle " + service.name() + ": " + e);
                }
            }
            try {
                Thread.sleep(WATCH_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void watch(ChaosService service, long now) {
        synchronized (service) {
            if (service.exitedOnItsOwn()) {
                onExit(service);
                restartAt.put(service, now + RESTART_DELAY.toNanos());
            } else if (service.frozeOnItsOwn()) {
                service.markFrozen();
                frozenSince.put(service, now);
                thawAt.put(service, now + freezeLength.toNanos());
            }
            Long restart = restartAt.get(service);
            if (restart != null && now - restart >= 0 && service.state() == ChaosService.State.DOWN && watching) {
                restartAt.remove(service);
                service.start();
            }
            Long thaw = thawAt.get(service);
            if (thaw != null && now - thaw >= 0) {
                thawAt.remove(service);
                long since = frozenSince.remove(service);
                String point = service.freezePoint();
                service.thaw();
                journal.fault(ChaosJournal.Kind.SINK_FREEZE_POINT, service.name(), journal.elapsed().minusNanos(now - since),
                        Duration.ofNanos(now - since), "froze itself at " + point + ", SIGCONT by the harness");
            }
        }
    }

    private void onExit(ChaosService service) {
        String point = service.crashPoint();
        int code = service.markExited();
        if (point != null && code == 137) {
            journal.fault(ChaosJournal.Kind.SINK_CRASH_POINT, service.name(), journal.elapsed(), Duration.ZERO,
                    "halted at " + point + ", restarted by the harness");
        } else if (code == 2) {
            journal.event(service.name() + " refused to start (exit 2: a dependency was unreachable at start); restarting it");
        } else {
            journal.violation(service.name() + " exited on its own with code " + code + ":" + System.lineSeparator()
                    + "    " + service.failureSummary());
        }
    }

    /** Files left in the shard-sinks' spool and work directories. */
    long sinkSpoolFiles() {
        long files = 0;
        for (ChaosService sink : services(ChaosService.Stage.SINK)) {
            files += countFiles(sink.workDir().resolve("spool").resolve("spool"));
            files += countFiles(sink.workDir().resolve("spool").resolve("work"));
        }
        return files;
    }

    private static long countFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops the watchdog (no more restarts) and every service, gracefully. */
    @Override
    public void close() {
        watching = false;
        watchdog.interrupt();
        try {
            watchdog.join(Duration.ofSeconds(30).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Thread> stoppers = new ArrayList<>();
        for (ChaosService service : services) {
            Thread stopper = new Thread(service::stop, "stop-" + service.name());
            stopper.start();
            stoppers.add(stopper);
        }
        for (Thread stopper : stoppers) {
            try {
                stopper.join(Duration.ofSeconds(60).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
