package io.shardflow.cli.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where one stage's CPU went, from JFR recordings of its service JVMs over the timed window:
 * thread samples grouped by {@link CpuCategories}, the hottest methods, and GC pause time.
 * Java samples and working native samples are weighed by their period ({@link JfrRecording}), so a
 * sample stands for the thread time it represents; JIT compilation and GC run outside sampled
 * Java code and are reported from the threads' own CPU times.
 *
 * @param cpu where the process's CPU time over the window went by thread kind, read from /proc
 */
record StageProfile(String stage, String work, double seconds, CpuSplit cpu, Map<String, Double> categoryShare,
                    Map<String, Double> topMethodShare, double gcPauseSeconds, long samples) {

    private static final double JAVA_PERIOD_MS = JfrRecording.JAVA_PERIOD_MS;
    private static final double NATIVE_PERIOD_MS = JfrRecording.NATIVE_PERIOD_MS;
    private static final int TOP_METHODS = 12;

    static StageProfile read(String stage, String work, double seconds, CpuSplit cpu, List<Path> recordings) throws IOException {
        Map<String, Double> categories = new HashMap<>();
        Map<String, Double> methods = new HashMap<>();
        double gcSeconds = 0;
        double total = 0;
        long samples = 0;
        for (Path recording : recordings) {
            for (RecordedEvent event : RecordingFile.readAllEvents(recording)) {
                String type = event.getEventType().getName();
                if (type.equals("jdk.GarbageCollection")) {
                    gcSeconds += event.getDuration().toNanos() / 1e9;
                    continue;
                }
                double weight = type.equals("jdk.ExecutionSample") ? JAVA_PERIOD_MS : type.equals("jdk.NativeMethodSample") ? NATIVE_PERIOD_MS : 0;
                RecordedStackTrace stack = event.getStackTrace();
                if (weight == 0 || stack == null || stack.getFrames().isEmpty()) {
                    continue;
                }
                RecordedFrame top = stack.getFrames().get(0);
                if (weight == NATIVE_PERIOD_MS && CpuCategories.isWait(top.getMethod().getName())) {
                    continue;
                }
                List<String> classes = new ArrayList<>();
                stack.getFrames().forEach(frame -> classes.add(frame.getMethod().getType().getName()));
                categories.merge(CpuCategories.of(classes), weight, Double::sum);
                methods.merge(top.getMethod().getType().getName() + "." + top.getMethod().getName(), weight, Double::sum);
                total += weight;
                samples++;
            }
        }
        return new StageProfile(stage, work, seconds, cpu, shares(categories, total, Integer.MAX_VALUE),
                shares(methods, total, TOP_METHODS), gcSeconds, samples);
    }

    /** The largest entries as fractions of {@code total}, largest first. */
    private static Map<String, Double> shares(Map<String, Double> weights, double total, int limit) {
        Map<String, Double> shares = new LinkedHashMap<>();
        weights.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(limit)
                .forEach(entry -> shares.put(entry.getKey(), total == 0 ? 0 : entry.getValue() / total));
        return shares;
    }
}
