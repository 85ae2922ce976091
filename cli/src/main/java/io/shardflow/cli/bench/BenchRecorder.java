package io.shardflow.cli.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Collects what the figures measure while the suite runs; {@link #results} freezes it. */
public final class BenchRecorder {

    private final List<Measurement> figures = new ArrayList<>();
    private final List<LatencySeries> sealLatency = new ArrayList<>();
    private final List<MemoryPoint> sinkMemory = new ArrayList<>();
    private final Map<String, Object> reader = new LinkedHashMap<>();
    private final List<StageProfile> profiles = new ArrayList<>();

    public synchronized void add(Measurement measurement) {
        figures.add(measurement);
    }

    public synchronized void add(LatencySeries series) {
        sealLatency.add(series);
    }

    public synchronized void add(MemoryPoint point) {
        sinkMemory.add(point);
    }

    synchronized void add(StageProfile profile) {
        profiles.add(profile);
    }

    synchronized List<StageProfile> profiles() {
        return List.copyOf(profiles);
    }

    public synchronized void readerOutput(Map<String, Object> output) {
        reader.putAll(output);
    }

    public synchronized List<Measurement> figures() {
        return List.copyOf(figures);
    }

    public synchronized BenchResults results(MachineInfo machine, Map<String, Object> settings) {
        return new BenchResults(machine, settings, figures, sealLatency, sinkMemory, reader);
    }
}
