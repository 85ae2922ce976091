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
import io.shardflow.app.StartupException;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.gateway.auth.IdentityProviderUnavailable;
import io.shardflow.gateway.auth.JwtAuthenticator;
import io.shardflow.gateway.config.AuthSettings;
import io.shardflow.gateway.config.GatewayConfig;
import io.shardflow.gateway.health.BrokerProbe;
import io.shardflow.gateway.health.Readiness;
import io.shardflow.gateway.health.RegistryProbe;
import io.shardflow.gateway.http.GatewayHttp;
import io.shardflow.gateway.http.GatewayServer;
import io.shardflow.gateway.parse.AvroSamples;
import io.shardflow.gateway.publish.SamplePublisher;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge-gateway process: {@code GatewayApp [config.properties]}, settings also from
 * SHARDFLOW_* environment variables. Checks the broker, registry, object store and, when JWTs are
 * accepted, the identity provider's keys at start (exit 2 naming the setting when one cannot be
 * reached), then serves the API until SIGTERM, when it stops
 * taking requests, lets those in hand finish within {@code shutdown.timeout.ms} and flushes the
 * producer: every request it answered 2xx is acknowledged by the broker.
 */
public final class GatewayApp implements ServiceMain.RunningService {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayApp.class);

    private final GatewayServer server;
    private final SamplePublisher publisher;
    private final MetricsEndpoint metricsEndpoint;
    private final ObjectStore store;
    private final List<AutoCloseable> probes;
    private final Duration shutdownTimeout;
    private final CountDownLatch stopped = new CountDownLatch(1);

    private GatewayApp(GatewayServer server, SamplePublisher publisher, MetricsEndpoint metricsEndpoint, ObjectStore store,
                       List<AutoCloseable> probes, Duration shutdownTimeout) {
        this.server = server;
        this.probes = probes;
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
        checks.registry(registryUrl, config, GatewayConfig.REGISTRY_URL);
        JwtAuthenticator jwts = config.auth().jwtEnabled() ? checkedJwts(config.auth()) : null;

        Map<String, Object> producer = new HashMap<>(config.kafkaClientSettings());
        producer.putAll(RegistryConfig.serdeSettings(config, registryUrl));
        producer.putAll(SamplePublisher.producerSettings(config.requestLimits().produceTimeout(),
                config.getLong(GatewayConfig.INFLIGHT_MAX_BYTES)));
        SamplePublisher publisher = new SamplePublisher(EdgePublisher.create(config.bootstrapServers(), registryUrl,
                config.getString(GatewayConfig.TOPIC_SAMPLES), producer));

        MetricsEndpoint endpoint = ServiceConfig.startEndpoint(config, config.getInt(GatewayConfig.METRICS_PORT));
        MeterRegistry meters = endpoint != null ? endpoint.registry() : new SimpleMeterRegistry();
        Duration probeTimeout = Duration.ofMillis(config.getLong(GatewayConfig.READY_PROBE_TIMEOUT_MS));
        BrokerProbe brokerProbe = new BrokerProbe(config.bootstrapServers(), config.kafkaClientSettings(), probeTimeout);
        Readiness readiness = new Readiness(brokerProbe, new RegistryProbe(registryUrl, RegistryConfig.sslContext(config), probeTimeout),
                Duration.ofMillis(config.getLong(GatewayConfig.READY_PROBE_INTERVAL_MS)),
                Duration.ofMillis(config.getLong(GatewayConfig.READY_PROBE_MAX_BACKOFF_MS)), System::nanoTime).bind(meters);
        publisher.observe(readiness);
        GatewayServer server = GatewayHttp.create(config, store, publisher, jwts, meters, Clock.systemUTC(), TimeMeter.SYSTEM_NANOTIME)
                .start();
        readiness.start();
        if (endpoint != null) {
            // Ready while the broker and the registry answer (docs/HTTP-GATEWAY.md, Health): a gateway that could
            // only answer 503 takes no traffic from the load balancer.
            endpoint.readiness(readiness::isReady);
        }
        LOG.info("edge-gateway started: port {} ({}), producing to {}", server.port(), config.tls(), config.getString(GatewayConfig.TOPIC_SAMPLES));
        return new GatewayApp(server, publisher, endpoint, store, List.of(readiness, brokerProbe), ServiceConfig.shutdownTimeout(config));
    }

    /** The JWT verifier, once the identity provider's keys were fetched: without them no device JWT could be checked. */
    private static JwtAuthenticator checkedJwts(AuthSettings auth) {
        JwtAuthenticator jwts = new JwtAuthenticator(auth);
        try {
            int keys = jwts.fetchKeys();
            LOG.info("JWTs of {} for audience {} are accepted; {} signing keys fetched", auth.issuer(), auth.audience(), keys);
        } catch (IdentityProviderUnavailable e) {
            String key = auth.jwksFile().isEmpty() ? AuthSettings.JWKS_URL : AuthSettings.JWKS_FILE;
            throw new StartupException(key, "cannot use the identity provider's keys at "
                    + (auth.jwksFile().isEmpty() ? auth.jwksUrl() : auth.jwksFile()) + ": " + e.getMessage());
        }
        return jwts;
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
            for (AutoCloseable probe : probes) {
                probe.close();
            }
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
