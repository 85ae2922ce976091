package io.shardflow.gateway.http;

import io.github.bucket4j.TimeMeter;
import io.micrometer.core.instrument.MeterRegistry;
import io.shardflow.app.spec.CatalogSpecSource;
import io.shardflow.app.validate.SampleValidator;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.gateway.auth.Authenticator;
import io.shardflow.gateway.auth.JwtAuthenticator;
import io.shardflow.gateway.auth.TokenAuthenticator;
import io.shardflow.gateway.auth.TokenStore;
import io.shardflow.gateway.config.GatewayConfig;
import io.shardflow.gateway.config.RequestLimits;
import io.shardflow.gateway.parse.JsonSamples;
import io.shardflow.gateway.publish.IdempotencyCache;
import io.shardflow.gateway.publish.InflightBudget;
import io.shardflow.gateway.publish.SamplePublisher;
import io.shardflow.gateway.quota.DeviceQuotas;
import io.shardflow.gateway.quota.FailureLimiter;
import java.time.Clock;
import java.time.Duration;

/** Builds the HTTP side of the gateway from its config and the clients it is handed (store, publisher, meters, clocks). */
public final class GatewayHttp {

    private GatewayHttp() {
    }

    /** @param jwts the JWT verifier, null when JWTs are not accepted */
    public static GatewayServer create(GatewayConfig config, ObjectStore store, SamplePublisher publisher, JwtAuthenticator jwts,
                                       MeterRegistry meters, Clock clock, TimeMeter time) {
        RequestLimits limits = config.requestLimits();
        var auth = config.auth();
        Authenticator authenticator = new Authenticator(new TokenAuthenticator(new TokenStore(store, clock), clock, auth.tokenCache()),
                jwts, new FailureLimiter(config.quotas().authFailuresPerMinute(), time));
        CatalogSpecSource specs = new CatalogSpecSource(new DatasetCatalog(store), clock,
                Duration.ofMillis(config.getLong(GatewayConfig.SPEC_MISS_CACHE_MS)), config.getLong(GatewayConfig.SPEC_CACHE_MAX_ENTRIES));
        var sampleLimits = config.sampleLimits();
        // Per sample: its fields and tensors, an attribute map at its limit, and room for the JSON's own structure.
        long maxTokens = (long) limits.maxBatchSamples() * (2L * sampleLimits.maxAttributes() + 64) + 64;
        SampleIntake intake = new SampleIntake(new SampleValidator(specs, sampleLimits), new JsonSamples(maxTokens));
        InflightBudget budget = new InflightBudget(config.getLong(GatewayConfig.INFLIGHT_MAX_BYTES));
        GatewayMetrics metrics = new GatewayMetrics(meters, budget);
        IdempotencyCache idempotency = new IdempotencyCache(Duration.ofMillis(config.getLong(GatewayConfig.IDEMPOTENCY_TTL_MS)),
                config.getLong(GatewayConfig.IDEMPOTENCY_MAX_BYTES));
        BodyPace pace = new BodyPace(config.getLong(GatewayConfig.REQUEST_MIN_DATA_RATE),
                Duration.ofMillis(config.getLong(GatewayConfig.REQUEST_MIN_DATA_RATE_GRACE_MS)), System::nanoTime);
        SamplesEndpoint samples = new SamplesEndpoint(authenticator, new DeviceQuotas(config.quotas(), time), budget, idempotency, specs,
                intake, publisher, limits, pace, metrics, clock);
        GatewayServer.Listener listener = new GatewayServer.Listener(config.getString(GatewayConfig.LISTEN_HOST),
                config.getInt(GatewayConfig.LISTEN_PORT), TlsContexts.server(config.tls()),
                Duration.ofMillis(config.getLong(GatewayConfig.IDLE_TIMEOUT_MS)), config.getInt(GatewayConfig.MAX_CONNECTIONS), limits.maxRequestBytes(), pace, config.getBoolean(GatewayConfig.FORWARDED));
        return new GatewayServer(listener, samples, new SpecEndpoint(authenticator, specs, limits), OpenApiDocument.render(limits), metrics,
                budget);
    }
}
