package io.shardflow.cli;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.stack.LocalPipeline;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackConfig;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.stack.WorkDirs;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * End-to-end throughput, publish to committed snapshot, beside a raw Kafka produce+consume of the
 * same Avro records on the same stack in the same run. The ratio is the figure to compare across
 * machines; absolute numbers on a shared 2-core box are noise.
 */
@Command(name = "bench", description = "Measure publish-to-snapshot throughput against raw Kafka produce+consume, in one run.")
final class BenchCommand implements Callable<Integer> {

    @Option(names = "--samples", defaultValue = "20000")
    int samples;
    @Option(names = "--s3", defaultValue = "s3proxy")
    String s3;
    @Option(names = "--shard-samples", defaultValue = "1000")
    int shardSamples;
    @Option(names = "--work-dir", defaultValue = "${sys:shardflow.home:-.}/.stack/bench")
    Path workDir;
    @Spec
    picocli.CommandLine.Model.CommandSpec command;

    private static final int WARMUP = 500;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = command.commandLine().getOut();
        WorkDirs.wipe(workDir);
        try (LocalStack stack = LocalStack.start(StackConfig.defaults(workDir.resolve("stack")).withS3Kind(S3Kind.parse(s3)))) {
            StackEndpoints endpoints = StackEndpoints.of(stack);
            SyntheticSamples synthetic = new SyntheticSamples("bench", "v1", "bench-device", 3, 32, 10, 7);
            long sampleBytes = 3 * 32 * 32 * 4 + 8;

            double rawSeconds = rawKafka(endpoints, synthetic);
            double pipelineSeconds = pipeline(endpoints, synthetic);

            double mb = samples * sampleBytes / 1e6;
            out.printf("bench: %d samples of %d payload bytes (%.1f MB), S3 server %s%n", samples, sampleBytes, mb, s3);
            out.printf("  raw kafka produce+consume : %8.0f samples/s %7.1f MB/s  (%.2f s)%n", samples / rawSeconds, mb / rawSeconds, rawSeconds);
            out.printf("  publish -> committed      : %8.0f samples/s %7.1f MB/s  (%.2f s)%n", samples / pipelineSeconds, mb / pipelineSeconds, pipelineSeconds);
            out.printf("  pipeline / raw kafka      : %.2f%n", rawSeconds / pipelineSeconds);
        }
        return 0;
    }

    private double rawKafka(StackEndpoints endpoints, SyntheticSamples synthetic) throws Exception {
        String topic = "bench-raw";
        try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), topic, Map.of())) {
            PublishCommand.publish(publisher, synthetic, 0, WARMUP);
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, endpoints.bootstrapServers());
            props.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-raw");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer.subscribe(List.of(topic));
                drain(consumer, WARMUP);
                long start = System.nanoTime();
                Thread producer = new Thread(() -> {
                    try {
                        PublishCommand.publish(publisher, synthetic, WARMUP, samples);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                producer.start();
                drain(consumer, samples);
                producer.join();
                return (System.nanoTime() - start) / 1e9;
            }
        }
    }

    private static void drain(KafkaConsumer<byte[], byte[]> consumer, long expected) {
        long received = 0;
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (received < expected) {
            received += consumer.poll(Duration.ofMillis(200)).count();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("raw consumer got " + received + " of " + expected + " records");
            }
        }
    }

    private double pipeline(StackEndpoints endpoints, SyntheticSamples synthetic) throws Exception {
        S3ObjectStore store = S3ObjectStore.connect(endpoints.s3Settings());
        new DatasetCatalog(store).create(LocalPipeline.imageSpec("bench", "v1", "bench", "throughput benchmark"));
        try (LocalPipeline pipeline = LocalPipeline.start(endpoints, workDir, shardSamples, Duration.ofSeconds(1), "bench");
             EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), "samples", Map.of())) {
            CommitLog log = new CommitLog(store, "bench", "v1", Clock.systemUTC());
            PublishCommand.publish(publisher, synthetic, 0, WARMUP);
            pipeline.awaitCommitted(log, WARMUP, Duration.ofMinutes(5), Duration.ofMillis(50), snapshot -> { });
            long start = System.nanoTime();
            PublishCommand.publish(publisher, synthetic, WARMUP, samples);
            pipeline.awaitCommitted(log, WARMUP + samples, Duration.ofMinutes(10), Duration.ofMillis(50), snapshot -> { });
            return (System.nanoTime() - start) / 1e9;
        }
    }
}
