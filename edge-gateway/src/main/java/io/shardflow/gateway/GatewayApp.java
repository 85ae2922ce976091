package io.shardflow.gateway;

import io.github.bucket4j.TimeMeter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardflow.app.ConfigFiles;
import io.shardflow.app.FatalErrors;
import io.shardflow.app.MetricsEndpoint;
import io.shardflow.app.RegistryConfig;
import io.shardflow.app.S3Config;
import io.shardflow.app.ServiceConfig;
import io.shardflow.app.ServiceMain;
import io.shardflow.app.StartupChecks;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.gateway.config.GatewayConfig;
import io.shardflow.gateway.http.GatewayHttp;
import io.shardflow.gateway.http.GatewayServer;
import io.shardflow.gateway.parse.AvroSamples;
import io.shardflow.gateway.publish.SamplePublisher;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge-gateway process: {@code GatewayApp [config.properties]}, settings also from
 * SHARDFLOW_* environment variables. Checks the broker, registry and object store at start (exit 2
 * naming the setting when one cannot be reached), then serves the API until SIGTERM, when it stops
 * taking requests, lets those in hand finish within {@code shutdown.timeout.ms} and flushes the
 * producer: every request it answered 2xx is acknowledged by the broker.
 */
public final class GatewayApp implements ServiceMain.RunningService {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayApp.class);

    private final GatewayServer server;
    private final SamplePublisher publisher;
    private final MetricsEndpoint metricsEndpoint;
    private final ObjectStore store;
    private final Duration shutdownTimeout;
    private final CountDownLatch stopped = new CountDownLatch(1);

    private GatewayApp(GatewayServer server, SamplePublisher publisher, MetricsEndpoint metricsEndpoint, ObjectStore store,
                       Duration shutdownTimeout) {
        this.server = server;
        this.shutdownTimeout = shutdownTimeout;
        this.publisher = publisher;
        this.metricsEndpoint = metricsEndpoint;
        this.store = store;
    }

    public static void main(String[] args) {
        if (ServiceMain.printVersion("edge-gateway", GatewayApp.class, args)) {
            return;
        }
        Path file = args.length > 0 ? Path.of(args[0]) : null;
        FatalErrors.halting("edge-gateway").installAsDefault();
        System.exit(ServiceMain.run("edge-gateway", () -> start(ConfigFiles.load(file, System.getenv(), Map.of()))));
    }

    public static GatewayApp start(Map<String, Object> settings) {
        GatewayConfig config = new GatewayConfig(settings);
        AvroSamples.limitAvroAllocations(config.getLong(GatewayConfig.REQUEST_MAX_BYTES));
        StartupChecks checks = new StartupChecks(Duration.ofSeconds(10));
        ObjectStore store = S3ObjectStore.connect(config.s3());
        checks.objectStore(store, config.s3().endpoint(), S3Config.ENDPOINT, S3Config.BUCKET);
        checks.kafka(config.bootstrapServers(), config.kafkaClientSettings(), GatewayConfig.BOOTSTRAP_SERVERS);
        String registryUrl = config.getString(GatewayConfig.REGISTRY_URL);
        checks.registry(registryUrl, RegistryConfig.sslContext(config), RegistryConfig.basicAuthorization(config), GatewayConfig.REGISTRY_URL);

        Map<String, Object> producer = new HashMap<>(config.kafkaClientSettings());
        producer.putAll(RegistryConfig.serdeSettings(config, registryUrl));
        producer.putAll(SamplePublisher.producerSettings(config.requestLimits().produceTimeout(),
                config.getLong(GatewayConfig.INFLIGHT_MAX_BYTES)));
        SamplePublisher publisher = new SamplePublisher(EdgePublisher.create(config.bootstrapServers(), registryUrl,
                config.getString(GatewayConfig.TOPIC_SAMPLES), producer));

        MetricsEndpoint endpoint = ServiceConfig.startEndpoint(config, config.getInt(GatewayConfig.METRICS_PORT));
        MeterRegistry meters = endpoint != null ? endpoint.registry() : new SimpleMeterRegistry();
        GatewayServer server = GatewayHttp.create(config, store, publisher, meters, Clock.systemUTC(), TimeMeter.SYSTEM_NANOTIME).start();
        if (endpoint != null) {
            endpoint.readiness(() -> true); // ready once listening: outages are answered 503 per request, with Retry-After
        }
        LOG.info("edge-gateway started: port {} ({}), producing to {}", server.port(), config.tls(), config.getString(GatewayConfig.TOPIC_SAMPLES));
        return new GatewayApp(server, publisher, endpoint, store, ServiceConfig.shutdownTimeout(config));
    }

    public int port() {
        return server.port();
    }

    @Override
    public int awaitTermination() throws InterruptedException {
        stopped.await();
        return 0;
    }

    /** Stops accepting, lets requests in hand answer, then flushes and closes the producer. */
    @Override
    public void close() {
        try {
            server.close(shutdownTimeout);
            publisher.close();
            if (store instanceof AutoCloseable closeable) {
                closeable.close();
            }
        } catch (Exception e) {
            LOG.warn("edge-gateway stop: {}", e.toString());
        } finally {
            if (metricsEndpoint != null) {
                metricsEndpoint.close();
            }
            stopped.countDown();
            LOG.info("edge-gateway stopped");
        }
    }
}
