package io.shardflow.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class HeapSamplerTest {

    private static final String[] HEADER = "S0C    S1C    S0U    S1U      EC       EU        OC         OU       MC     MU    CCSC   CCSU   YGC     YGCT    FGC    FGCT     CGC    CGCT     GCT"
            .split("\\s+");

    @Test
    void shouldSumSurvivorEdenAndOldSpacesInUse() {
        String[] line = "1024.0 1024.0  0.0   512.0   8192.0   4096.0   20480.0    10240.0  4864.0 4500.1 512.0  420.3      3    0.010   1      0.020     -          -    0.030"
                .split("\\s+");

        // (0 + 512 + 4096 + 10240) KB
        assertThat(HeapSampler.heapUsedMb(HEADER, line)).hasValueCloseTo(14848 * 1024 / 1e6, within(1e-9));
    }

    @Test
    void shouldIgnoreALineThatIsNotNumbers() {
        String[] line = "1024.0 1024.0 x 512.0 8192.0 4096.0 20480.0 10240.0".split("\\s+");

        assertThat(HeapSampler.heapUsedMb(HEADER, line)).isEmpty();
    }
}
