package io.shardflow.it.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.ingest.IngestApp;
import io.shardflow.it.support.TestStack;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.BrokerBytes;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackEndpoints;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tensor bytes cross the broker once (docs/ARCHITECTURE.md § 1): after samples went all the way
 * into committed shards, the brokers hold little more than the published samples themselves; the
 * decisions, changelogs, transaction markers and offsets are small beside them. Measured on a real
 * broker from its log directories, with the bench's 12,296-byte samples.
 */
class BrokerBytesTest {

    private static final int SAMPLES = 2000;
    /** float32 3x32x32 image plus an int64 label, as in {@code bin/shardflow bench}. */
    private static final long TENSOR_BYTES = 3 * 32 * 32 * 4 + 8;

    @TempDir
    Path work;

    @Test
    void shouldWriteLittleMoreThanEachTensorByteOnceToTheBroker() throws Exception {
        try (TestStack stack = TestStack.start(work, S3Kind.S3PROXY);
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.endpoints().bootstrapServers()))) {
            StackEndpoints endpoints = stack.endpoints();
            stack.createDataset("bytes", "v1", "broker bytes", "image:float32:3x32x32", "label:int64");
            Map<String, Long> before = BrokerBytes.byTopic(admin, Duration.ofSeconds(30));

            IngestApp ingest = IngestApp.start(new HashMap<>(PipelineSettings.ingest(endpoints, 500, 64 << 20,
                    Duration.ofSeconds(2), work.resolve("ingest"))));
            ShardSinkApp sink = ShardSinkApp.start(new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink"), "bytes-sink")));
            try {
                SyntheticSamples synthetic = new SyntheticSamples("bytes", "v1", "cam-b", 3, 32, 10, 5);
                try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), "samples", Map.of())) {
                    List<Future<?>> sent = new ArrayList<>();
                    for (int n = 0; n < SAMPLES; n++) {
                        sent.add(publisher.publish(synthetic.sample(n, Instant.ofEpochMilli(1_700_000_000_000L + n))));
                    }
                    for (Future<?> f : sent) {
                        f.get(60, TimeUnit.SECONDS);
                    }
                }
                CommitLog log = new CommitLog(stack.store(), "bytes", "v1", Clock.systemUTC());
                await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(() -> log.latest().sampleCount() >= SAMPLES);
            } finally {
                sink.close();
                ingest.close();
            }
            Map<String, Long> written = BrokerBytes.written(before, BrokerBytes.byTopic(admin, Duration.ofSeconds(30)));
            double ratio = BrokerBytes.perTensorByte(written, SAMPLES * TENSOR_BYTES);
            System.out.printf("broker bytes per tensor byte: %.3f (%d samples of %d tensor bytes; written by topic %s)%n",
                    ratio, SAMPLES, TENSOR_BYTES, written);

            assertThat(written.get("samples")).as("the samples themselves").isGreaterThan(SAMPLES * TENSOR_BYTES);
            assertThat(ratio).as("broker bytes per tensor byte, by topic %s", written).isLessThanOrEqualTo(1.2);
        }
    }
}
