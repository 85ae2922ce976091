package io.shardflow.cli.bench;

import io.shardflow.stack.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * JDK Flight Recorder recordings of service processes over one timed window (started at the
 * window's first CPU look, after the warm-up, and dumped at its last), when the run profiles
 * ({@code --profile}); does nothing otherwise. Each stopped recording becomes a {@link StageProfile}
 * in the run's recorder, and the suite writes them all to {@code profile.md}.
 */
final class WindowProfiler {

    private record Recording(String stage, ServiceProcess process, JfrRecording jfr, Map<Long, Map.Entry<String, Double>> threadsAtStart) {
    }

    private final BenchContext context;
    private final List<Recording> recordings;

    private WindowProfiler(BenchContext context, List<Recording> recordings) {
        this.context = context;
        this.recordings = recordings;
    }

    /** @param stages a stage name (e.g. "ingest-app, steady state") for each process to record, in the same order */
    static WindowProfiler start(BenchContext context, List<String> stages, List<ServiceProcess> processes) {
        List<Recording> recordings = new ArrayList<>();
        if (context.options().profileDir() != null) {
            for (int i = 0; i < processes.size(); i++) {
                ServiceProcess process = processes.get(i);
                Path file = context.workDir().resolve(stages.get(i).replaceAll("[^A-Za-z0-9.-]+", "-") + "-" + context.s3() + ".jfr");
                recordings.add(new Recording(stages.get(i), process, JfrRecording.start(process.pid(), file),
                        ProcessMeter.threadCpuSeconds(process.pid())));
            }
        }
        return new WindowProfiler(context, recordings);
    }

    static WindowProfiler none(BenchContext context) {
        return new WindowProfiler(context, List.of());
    }

    /** Stops every recording; {@code work} says what the window carried, e.g. "2.0 GB of 12KB samples to committed shards". */
    void stop(String work, double seconds) {
        for (Recording recording : recordings) {
            CpuSplit cpu = CpuSplit.between(recording.threadsAtStart(), ProcessMeter.threadCpuSeconds(recording.process().pid()));
            try {
                context.recorder().add(StageProfile.read(recording.stage() + " (" + context.s3() + ")", work, seconds, cpu,
                        List.of(recording.jfr().stop())));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the recording of " + recording.stage(), e);
            }
        }
    }
}
