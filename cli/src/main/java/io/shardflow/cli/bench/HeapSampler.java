package io.shardflow.cli.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;

/**
 * Peak heap in use of another JVM, sampled by the JDK's {@code jstat -gc PID INTERVAL}: the sum of
 * the survivor, eden and old spaces in use. Garbage not yet collected counts, as it does for RSS.
 * Peak RSS (VmHWM) is read beside it while the process lives, since it vanishes with the process.
 */
public final class HeapSampler implements AutoCloseable {

    private final long pid;
    private final Process jstat;
    private final Thread reader;
    private volatile double peakHeapMb = -1;
    private volatile double peakRssMb = -1;

    private HeapSampler(long pid, Process jstat) {
        this.pid = pid;
        this.jstat = jstat;
        this.reader = new Thread(this::read, "heap-sampler-" + pid);
        this.reader.setDaemon(true);
        this.reader.start();
    }

    public static HeapSampler start(long pid, int intervalMillis) throws IOException {
        String jstatBinary = Path.of(System.getProperty("java.home"), "bin", "jstat").toString();
        Process process = new ProcessBuilder(jstatBinary, "-gc", Long.toString(pid), Integer.toString(intervalMillis))
                .redirectErrorStream(true).start();
        return new HeapSampler(pid, process);
    }

    private void read() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(jstat.getInputStream(), StandardCharsets.UTF_8))) {
            String header = null;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                String[] cells = line.strip().split("\\s+");
                if (cells.length > 0 && cells[0].equals("S0C")) {
                    header = line;
                    continue;
                }
                if (header != null) {
                    heapUsedMb(header.strip().split("\\s+"), cells).ifPresent(used -> peakHeapMb = Math.max(peakHeapMb, used));
                    ProcessMeter.peakRssMb(pid).ifPresent(rss -> peakRssMb = Math.max(peakRssMb, rss));
                }
            }
        } catch (IOException e) {
            // jstat ends with the process it watches
        }
    }

    /** S0U + S1U + EU + OU (KB in jstat's columns) in MB. */
    static OptionalDouble heapUsedMb(String[] header, String[] cells) {
        double usedKb = 0;
        int found = 0;
        for (int i = 0; i < header.length && i < cells.length; i++) {
            if (header[i].equals("S0U") || header[i].equals("S1U") || header[i].equals("EU") || header[i].equals("OU")) {
                try {
                    usedKb += Double.parseDouble(cells[i]);
                    found++;
                } catch (NumberFormatException e) {
                    return OptionalDouble.empty();
                }
            }
        }
        return found == 4 ? OptionalDouble.of(usedKb * 1024 / 1e6) : OptionalDouble.empty();
    }

    public OptionalDouble peakHeapMb() {
        return peakHeapMb < 0 ? OptionalDouble.empty() : OptionalDouble.of(peakHeapMb);
    }

    public OptionalDouble peakRssMb() {
        ProcessMeter.peakRssMb(pid).ifPresent(rss -> peakRssMb = Math.max(peakRssMb, rss));
        return peakRssMb < 0 ? OptionalDouble.empty() : OptionalDouble.of(peakRssMb);
    }

    @Override
    public void close() {
        jstat.destroy();
        try {
            jstat.waitFor(5, TimeUnit.SECONDS);
            reader.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
