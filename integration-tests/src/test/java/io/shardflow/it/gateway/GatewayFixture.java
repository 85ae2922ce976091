package io.shardflow.it.gateway;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.gateway.auth.TokenStore;
import io.shardflow.ingest.IngestApp;
import io.shardflow.it.support.TestStack;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.LocalGateway;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.ServiceProcess;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A real stack (broker, registry, S3Proxy), a dataset {@value #DATASET}/{@value #VERSION} of a
 * float32 3x8x8 image and an int64 label, the gateway as its own JVM (so it can be killed), and on
 * request ingest-app and shard-sink, so what the gateway accepted can be read back from the shards.
 */
final class GatewayFixture implements AutoCloseable {

    static final String DATASET = "phones";
    static final String VERSION = "v1";

    final TestStack stack;
    final Path work;
    final int port;
    ServiceProcess gateway;
    private IngestApp ingest;
    private ShardSinkApp sink;

    private GatewayFixture(TestStack stack, Path work, int port) {
        this.stack = stack;
        this.work = work;
        this.port = port;
    }

    static GatewayFixture start(Path work, Map<String, String> gatewaySettings) {
        return start(work, gatewaySettings, ServiceProcess.DEFAULT_JVM_OPTIONS);
    }

    static GatewayFixture start(Path work, Map<String, String> gatewaySettings, List<String> jvmOptions) {
        TestStack stack = TestStack.start(work);
        try {
            stack.createDataset(DATASET, VERSION, "gateway tests", "image:float32:3x8x8", "label:int64");
            GatewayFixture fixture = new GatewayFixture(stack, work, LocalGateway.freePort());
            fixture.gateway = LocalGateway.start(stack.endpoints(), work.resolve("stack"), work.resolve("gateway"), fixture.port,
                    gatewaySettings, jvmOptions, Duration.ofSeconds(90));
            return fixture;
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    /** ingest-app and shard-sink in this JVM, sealing small shards quickly. */
    GatewayFixture withPipeline() {
        ingest = IngestApp.start(new HashMap<>(PipelineSettings.ingest(stack.endpoints(), 50, 1 << 20, Duration.ofSeconds(2),
                work.resolve("ingest"))));
        sink = ShardSinkApp.start(new HashMap<>(PipelineSettings.sink(stack.endpoints(), work.resolve("sink"), "it-gateway-sink")));
        return this;
    }

    /** Restarts a killed gateway on the same port and settings. */
    void restartGateway() {
        gateway = gateway.restart();
        LocalGateway.awaitListening(gateway, port, Duration.ofSeconds(90));
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    TokenStore tokens() {
        return new TokenStore(stack.store(), Clock.systemUTC());
    }

    /** A token for {@code device} on the test dataset. */
    String token(String device) {
        return tokens().create(device, List.of(DATASET), null, null, null, "test").token();
    }

    CommitLog log() {
        return new CommitLog(stack.store(), DATASET, VERSION, Clock.systemUTC());
    }

    @Override
    public void close() {
        try {
            if (gateway != null) {
                gateway.close();
            }
            if (sink != null) {
                sink.close();
            }
            if (ingest != null) {
                ingest.close();
            }
        } finally {
            stack.close();
        }
    }
}
