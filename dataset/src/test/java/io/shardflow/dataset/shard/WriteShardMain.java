package io.shardflow.dataset.shard;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryType;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Writes one generated shard of about the given tensor bytes, in a process of its own so a test can
 * run it under a small heap and a benchmark can read clean peaks:
 * {@code WriteShardMain jhdf|hdf5|raw FILE BYTES [WARMUP_BYTES]}. A warm-up shard, written and
 * deleted first, takes JIT compilation and native library loading out of the figure. {@code raw} writes the same tensor bytes with a
 * plain FileChannel, the baseline. Prints {@code elapsedNanos payloadBytes fileBytes peakHeapBytes peakRssKiB}.
 */
public final class WriteShardMain {

    private WriteShardMain() {
    }

    public static void main(String[] args) throws IOException {
        DatasetSpec spec = Specs.imageSpec("big", "v1");
        Path file = Path.of(args[1]);
        if (args.length > 3) {
            Path warmup = Path.of(args[1] + ".warmup");
            write(args[0], warmup, spec, GeneratedRows.ofTensorBytes(spec, Long.parseLong(args[3])));
            Files.delete(warmup);
        }
        GeneratedRows rows = GeneratedRows.ofTensorBytes(spec, Long.parseLong(args[2]));
        long started = System.nanoTime();
        write(args[0], file, spec, rows);
        long elapsed = System.nanoTime() - started;
        long payload = rows.size() * spec.sampleByteLength();
        System.out.println(elapsed + " " + payload + " " + Files.size(file) + " " + peakHeap() + " " + peakRssKib());
    }

    private static void write(String writer, Path file, DatasetSpec spec, List<SampleRow> rows) throws IOException {
        if (writer.equals("raw")) {
            writeRaw(file, rows);
        } else {
            ShardWriterKind.fromSetting(writer).create().write(file, spec, new ShardId("big", "v1", 0, 0), rows);
        }
    }

    private static void writeRaw(Path file, List<SampleRow> rows) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            for (SampleRow row : rows) {
                for (byte[] tensor : row.tensors().values()) {
                    ByteBuffer buffer = ByteBuffer.wrap(tensor);
                    while (buffer.hasRemaining()) {
                        channel.write(buffer);
                    }
                }
            }
        }
    }

    private static long peakHeap() {
        return ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getType() == MemoryType.HEAP)
                .mapToLong(p -> p.getPeakUsage().getUsed()).sum();
    }

    /** VmHWM: the most resident memory the process had, heap, native buffers and the JVM itself. */
    private static long peakRssKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

}
