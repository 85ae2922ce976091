package io.shardflow.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import org.junit.jupiter.api.Test;

class CpuMeterTest {

    @Test
    void shouldChargeAWindowsCpuToTheRoleWhoseProcessSpentIt() {
        long self = ProcessHandle.current().pid();
        CpuMeter meter = new CpuMeter().role("this JVM", self).role("nobody", List::of);
        CpuMeter.Look before = meter.look();
        // Busy until this thread has had 0.3 s of CPU (by the JVM's own count), not 0.3 s of wall
        // time: on a loaded machine a thread may get a tenth of that in 0.3 s.
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpuUntil = threads.getCurrentThreadCpuTime() + 300_000_000L;
        long wallLimit = System.nanoTime() + 60_000_000_000L;
        double sink = 0;
        while (threads.getCurrentThreadCpuTime() < cpuUntil && System.nanoTime() < wallLimit) {
            for (int i = 0; i < 10_000; i++) {
                sink += Math.sqrt(sink + 1); // busy: the kernel counts this thread's ticks
            }
        }
        CpuMeter.Window window = meter.look().since(before);

        assertThat(sink).isPositive();
        assertThat(window.seconds()).isGreaterThanOrEqualTo(0.3);
        assertThat(window.of("this JVM").total()).as("a busy 0.3 s of CPU shows in the process's own counters").isGreaterThan(0.2);
        assertThat(window.of("nobody").total()).isZero();
        assertThat(window.of("no such role")).isEqualTo(CpuSplit.NONE);
        assertThat(window.all().total()).isEqualTo(window.of("this JVM").total());
    }

    @Test
    void shouldCountTheWholeMachinesBusyTicks() {
        long[] ticks = ProcessMeter.machineTicks();
        assertThat(ticks[1]).isPositive();
        assertThat(ticks[0]).isBetween(0L, ticks[1]);
    }

    @Test
    void shouldSayHowFarRoundsSpread() {
        assertThat(RawKafkaRounds.spread(List.of(40.0, 60.0), "MB/s")).isEqualTo("rounds 40.0 and 60.0 MB/s (spread 40%)");
        assertThat(RawKafkaRounds.spread(List.of(7.5), "MB/s")).isEqualTo("1 round 7.50 MB/s");
    }

    @Test
    void shouldGiveEveryScaleOutCountTheSameNumberOfPartitionsEach() {
        assertThat(ScalingFigure.partitionsFor(List.of(1, 2, 4))).isEqualTo(4);
        assertThat(ScalingFigure.partitionsFor(List.of(1, 3))).isEqualTo(3);
        assertThat(ScalingFigure.partitionsFor(List.of(1, 2, 3))).isEqualTo(6);
        assertThat(ScalingFigure.partitionsFor(List.of(5, 7))).as("capped").isEqualTo(12);
    }
}
