package io.shardflow.cli.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one run of the suite measured: the table's rows and the data behind the plots.
 *
 * @param settings the options the run used (sizes, counts), so a reader knows what was measured
 * @param reader   the reader script's own JSON (P3), empty when it did not run
 */
public record BenchResults(MachineInfo machine, Map<String, Object> settings, List<Measurement> figures,
                           List<LatencySeries> sealLatency, List<MemoryPoint> sinkMemory, Map<String, Object> reader) {

    public BenchResults {
        figures = List.copyOf(figures);
        sealLatency = List.copyOf(sealLatency);
        sinkMemory = List.copyOf(sinkMemory);
        settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
        reader = Collections.unmodifiableMap(new LinkedHashMap<>(reader));
    }
}
