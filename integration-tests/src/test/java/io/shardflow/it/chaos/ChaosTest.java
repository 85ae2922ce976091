package io.shardflow.it.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.chaos.ChaosJournal;
import io.shardflow.chaos.ChaosOptions;
import io.shardflow.chaos.ChaosProgress;
import io.shardflow.chaos.ChaosReport;
import io.shardflow.chaos.ChaosRun;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short form of {@code shardflow chaos}: a real broker, registry and S3Proxy as processes, two
 * ingest-app and two shard-sink JVMs, 20,000 samples published while ingest-app and shard-sink
 * instances are killed with SIGKILL, a shard-sink is frozen past its session timeout (a zombie),
 * the S3 server is stopped and the broker restarted, and shard-sink crashes itself at every named
 * window of the commit protocol. From object storage alone: every acknowledged sample is committed
 * exactly once with the values published, every shard matches its checksum, every snapshot reads.
 */
class ChaosTest {

    private static final List<ChaosJournal.Kind> SCHEDULED = List.of(ChaosJournal.Kind.KILL_INGEST,
            ChaosJournal.Kind.KILL_SINK, ChaosJournal.Kind.ZOMBIE_SINK, ChaosJournal.Kind.S3_OUTAGE,
            ChaosJournal.Kind.BROKER_RESTART);

    @TempDir
    Path work;

    @Test
    @Timeout(value = 25, unit = TimeUnit.MINUTES)
    void shouldCommitEveryAcknowledgedSampleExactlyOnceThroughKillsZombiesAndOutages() throws Exception {
        ChaosOptions options = ChaosOptions.shortForm(work.resolve("chaos"), 42);

        RecordedProgress progress = new RecordedProgress();

        ChaosReport report = ChaosRun.run(options, new PrintWriter(System.out, true), progress);

        assertThat(report.violations()).as("violations").isEmpty();
        assertThat(report.acknowledged()).isEqualTo(options.samples());
        assertThat(report.missing()).as("acknowledged samples missing").isZero();
        assertThat(report.duplicated()).as("samples committed twice").isZero();
        assertThat(report.committedSamples()).isEqualTo(options.samples());
        for (ChaosJournal.Kind kind : SCHEDULED) {
            assertThat(report.faultCounts().get(kind)).as("%s injected", kind).isGreaterThanOrEqualTo(2);
        }
        assertThat(report.faultCounts().get(ChaosJournal.Kind.SINK_CRASH_POINT)).as("crash points hit").isPositive();
        assertThat(report.ok()).isTrue();
        assertThat(progress.reachedByStage).as("progress reported per stage")
                .containsEntry("chaos publish", options.samples())
                .containsEntry("chaos drain", options.samples());
        assertThat(progress.finished).isTrue();
    }

    /** The highest count each stage reached. */
    private static final class RecordedProgress implements ChaosProgress {
        final Map<String, Long> reachedByStage = new ConcurrentHashMap<>();
        volatile String stage;
        volatile boolean finished;

        @Override
        public void stage(String name, String unit, long total) {
            stage = name;
            reachedByStage.put(name, 0L);
        }

        @Override
        public void reached(long count) {
            reachedByStage.merge(stage, count, Math::max);
        }

        @Override
        public void finished() {
            finished = true;
        }
    }
}
