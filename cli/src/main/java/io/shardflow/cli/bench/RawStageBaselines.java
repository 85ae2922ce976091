package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The raw baselines of the stage figures, on the stage's own pre-filled samples topic: a plain
 * consumer (P1a), and a plain consumer whose records' bytes are PUT in shard-sized objects (P1b),
 * the sink's work with nothing of ours in it. Each round reads the warm-up records untimed (and
 * PUTs them, for P1b), then times the rest; rounds run before and after the stage they stand beside.
 */
final class RawStageBaselines {

    private static final Duration TIMEOUT = Duration.ofMinutes(30);

    private final BenchContext context;
    private final BenchCase benchCase;
    private final long warmup;
    private final long samples;
    private final long tensorBytes;
    private final List<Double> consumeRates = new ArrayList<>();
    private final List<Double> putRates = new ArrayList<>();
    private int objects;

    RawStageBaselines(BenchContext context, BenchCase benchCase, long warmup, long samples, long tensorBytesPerSample) {
        this.context = context;
        this.benchCase = benchCase;
        this.warmup = warmup;
        this.samples = samples;
        this.tensorBytes = samples * tensorBytesPerSample;
    }

    /** One round of the raw consume; returns its MB/s of tensors. */
    double consume() {
        double rate = round("P1a raw consume", record -> { });
        consumeRates.add(rate);
        return rate;
    }

    /** One round of the raw consume + PUT in objects of {@code shardBytes}; returns its MB/s of tensors. */
    double consumeAndPut(long shardBytes) {
        ByteArrayOutputStream shard = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8, shardBytes + (1 << 20)));
        double rate = round("P1b raw consume + PUT", record -> {
            shard.writeBytes(record.value());
            if (shard.size() >= shardBytes) {
                put(shard);
            }
        });
        putRates.add(rate);
        return rate;
    }

    private double round(String task, Consumer<ConsumerRecord<byte[], byte[]>> each) {
        try (RawKafka consumer = RawKafka.fromBeginning(context.endpoints().bootstrapServers(), benchCase.samplesTopic())) {
            consumer.drain(warmup, TIMEOUT, Progress.silent(), each);
            long start = System.nanoTime();
            try (Progress progress = context.progress(task, "samples", samples)) {
                consumer.drain(samples, TIMEOUT, progress, each);
            }
            return tensorBytes / 1e6 / ((System.nanoTime() - start) / 1e9);
        }
    }

    private void put(ByteArrayOutputStream shard) {
        context.store().putIfAbsent(String.format(Locale.ROOT, "bench-raw/%s/object-%06d", benchCase.name(), objects++), shard.toByteArray());
        shard.reset();
    }

    double consumeMbPerSecond() {
        return consumeRates.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    double consumeAndPutMbPerSecond() {
        return putRates.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    String consumeSpread() {
        return RawKafkaRounds.spread(consumeRates, "MB/s");
    }

    String consumeAndPutSpread() {
        return RawKafkaRounds.spread(putRates, "MB/s");
    }
}
