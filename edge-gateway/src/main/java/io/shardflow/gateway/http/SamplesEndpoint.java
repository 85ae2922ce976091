package io.shardflow.gateway.http;

import io.javalin.http.Context;
import io.shardflow.app.spec.SpecSource;
import io.shardflow.dataset.spec.Names;
import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.gateway.auth.AuthOutcome;
import io.shardflow.gateway.auth.Authenticator;
import io.shardflow.gateway.auth.DeviceIdentity;
import io.shardflow.gateway.config.RequestLimits;
import io.shardflow.gateway.parse.BadRequest;
import io.shardflow.gateway.parse.RequestContext;
import io.shardflow.gateway.publish.IdempotencyCache;
import io.shardflow.gateway.publish.InflightBudget;
import io.shardflow.gateway.publish.SamplePublisher;
import io.shardflow.gateway.quota.DeviceQuotas;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/datasets/{dataset}/versions/{version}/samples}. In order: the names, the
 * credentials, the device's scope, the media type, the size, the device's quota, the memory bound,
 * the body, the idempotency key, the dataset version, the samples; each step answers its own status
 * (openapi.json) and only a request that passed them all reaches the broker.
 */
public final class SamplesEndpoint {

    private static final Logger LOG = LoggerFactory.getLogger(SamplesEndpoint.class);
    /** Printable ASCII, as Stripe and the IETF idempotency-key draft expect. */
    private static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");
    /** Parsing holds the body, the parsed tree and the decoded tensors at once: about three bodies. */
    static final int MEMORY_PER_BODY_BYTE = 3;

    private final Authenticator authenticator;
    private final DeviceQuotas quotas;
    private final InflightBudget budget;
    private final IdempotencyCache idempotency;
    private final SpecSource specs;
    private final SampleIntake intake;
    private final SamplePublisher publisher;
    private final RequestLimits limits;
    private final BodyPace pace;
    private final GatewayMetrics metrics;
    private final Clock clock;

    SamplesEndpoint(Authenticator authenticator, DeviceQuotas quotas, InflightBudget budget, IdempotencyCache idempotency,
                    SpecSource specs, SampleIntake intake, SamplePublisher publisher, RequestLimits limits, BodyPace pace,
                    GatewayMetrics metrics, Clock clock) {
        this.authenticator = authenticator;
        this.quotas = quotas;
        this.budget = budget;
        this.idempotency = idempotency;
        this.specs = specs;
        this.intake = intake;
        this.publisher = publisher;
        this.limits = limits;
        this.pace = pace;
        this.metrics = metrics;
        this.clock = clock;
    }

    void handle(Context ctx) {
        String dataset = ctx.pathParam("dataset");
        String version = ctx.pathParam("version");
        if (!Names.DATASET_NAME.matcher(dataset).matches() || !Names.DATASET_NAME.matcher(version).matches()) {
            throw BadRequest.malformed("dataset and version names must match " + Names.DATASET_NAME.pattern());
        }
        DeviceIdentity device = authenticate(ctx, authenticator);
        if (!device.mayWrite(dataset)) {
            throw new BadRequest(403, "DATASET_NOT_ALLOWED", "device '" + device.deviceId() + "' may not write to dataset '" + dataset + "'");
        }
        String contentType = ctx.header("Content-Type");
        if (SampleIntake.mediaType(contentType) == null) {
            throw new BadRequest(415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type must be one of " + SampleIntake.MEDIA_TYPES);
        }
        long declared = ctx.req().getContentLengthLong();
        if (declared > limits.maxRequestBytes()) {
            throw new BadRequest(413, "REQUEST_TOO_LARGE", "the body has " + declared + " bytes; the limit is " + limits.maxRequestBytes()
                    + " bytes (request.max.bytes): send fewer samples per request");
        }
        Optional<Duration> wait = quotas.acquire(device, Math.max(0, declared));
        if (wait.isPresent()) {
            metrics.samples("throttled", "", 1);
            throw new Refused(Problem.of(429, "QUOTA_EXCEEDED", "device '" + device.deviceId() + "' is over its request or byte rate")
                    .retryAfter(wait.get()));
        }
        long reserve = MEMORY_PER_BODY_BYTE * (declared >= 0 ? declared : limits.maxRequestBytes());
        if (!budget.tryReserve(reserve)) {
            throw new Refused(Problem.of(503, "OVERLOADED", "the gateway holds as many requests as its memory bound allows; retry")
                    .retryAfter(Duration.ofSeconds(limits.retryAfterSeconds())));
        }
        try {
            byte[] body = BodyReader.read(ctx.req().getInputStream(), declared, limits.maxRequestBytes(), pace);
            handleBody(ctx, device, dataset, version, contentType, body);
        } catch (java.io.IOException e) {
            throw new BadRequest(400, "BODY_NOT_READ", "the body could not be read: " + e.getMessage());
        } finally {
            budget.release(reserve);
        }
    }

    private void handleBody(Context ctx, DeviceIdentity device, String dataset, String version, String contentType, byte[] body) {
        String key = ctx.header("Idempotency-Key");
        if (key == null) {
            answer(ctx, run(device, dataset, version, contentType, body));
            return;
        }
        if (!IDEMPOTENCY_KEY.matcher(key).matches()) {
            throw BadRequest.malformed("Idempotency-Key must be 1..255 printable ASCII characters");
        }
        String cacheKey = device.via() + ':' + device.deviceId() + '\u0000' + key;
        String fingerprint = RequestFingerprint.of(ctx.path(), contentType, body);
        Optional<IdempotencyCache.Answer> earlier = idempotency.claim(cacheKey, fingerprint);
        if (earlier.isPresent()) {
            IdempotencyCache.Answer answer = earlier.get();
            if (!answer.fingerprint().equals(fingerprint)) {
                throw new BadRequest(409, "IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used for a different request");
            }
            if (answer.inProgress()) {
                throw new Refused(Problem.of(409, "REQUEST_IN_PROGRESS", "a request with this Idempotency-Key is still being handled")
                        .retryAfter(Duration.ofSeconds(1)));
            }
            ctx.header("Idempotent-Replayed", "true");
            ctx.status(answer.status()).contentType(answer.contentType()).result(answer.body());
            return;
        }
        BatchAnswer.Built built = null;
        try {
            built = run(device, dataset, version, contentType, body);
            answer(ctx, built);
            idempotency.complete(cacheKey, fingerprint, built.status(), "application/json", built.body());
        } catch (BadRequest e) {
            idempotency.complete(cacheKey, fingerprint, e.status(), Problem.MEDIA_TYPE, Problem.of(e.status(), e.code(), e.getMessage()).body());
            throw e;
        } finally {
            if (built == null) {
                idempotency.abandon(cacheKey);
            }
        }
    }

    private BatchAnswer.Built run(DeviceIdentity device, String dataset, String version, String contentType, byte[] body) {
        try {
            if (specs.find(dataset, version).isEmpty()) {
                boolean datasetExists = specs.datasetExists(dataset);
                throw new BadRequest(404, datasetExists ? "UNKNOWN_VERSION" : "UNKNOWN_DATASET",
                        datasetExists ? "dataset '" + dataset + "' has no version '" + version + "'" : "no dataset named '" + dataset + "'");
            }
        } catch (ObjectStoreException e) {
            LOG.warn("object store unavailable while looking up {}/{}: {}", dataset, version, e.getMessage());
            throw new Refused(Problem.of(503, "STORE_UNAVAILABLE", "the dataset catalog cannot be read now; retry")
                    .retryAfter(Duration.ofSeconds(limits.retryAfterSeconds())));
        }
        RequestContext context = new RequestContext(dataset, version, device.deviceId(), clock.instant(), limits.maxBatchSamples());
        SampleIntake.Screened screened = intake.screen(body, contentType, context);
        if (screened.anyRejected()) {
            BatchAnswer.Built built = BatchAnswer.rejected(dataset, version, device.deviceId(), screened.samples(), screened.rejections());
            screened.rejections().stream().filter(r -> r != null).forEach(r -> metrics.samples("rejected", r.reason().name(), 1));
            return built;
        }
        long started = System.nanoTime();
        var deliveries = publisher.publish(screened.samples().stream().map(s -> s.sample()).toList(), limits.produceTimeout());
        metrics.produced(Duration.ofNanos(System.nanoTime() - started));
        BatchAnswer.Built built = BatchAnswer.delivered(dataset, version, device.deviceId(), screened.samples(), deliveries);
        metrics.samples("accepted", "", built.accepted());
        metrics.samples("failed", "", built.failed());
        if (built.failed() > 0) {
            LOG.warn("{} of {} samples of device {} not acknowledged: {}", built.failed(), deliveries.size(), device.deviceId(),
                    deliveries.stream().filter(d -> !d.acknowledged()).findFirst().map(d -> d.failure()).orElse(""));
        }
        return built;
    }

    private void answer(Context ctx, BatchAnswer.Built built) {
        if (built.status() == 503) {
            ctx.header("Retry-After", Integer.toString(limits.retryAfterSeconds()));
        }
        ctx.status(built.status()).contentType("application/json").result(built.body());
    }

    static DeviceIdentity authenticate(Context ctx, Authenticator authenticator) {
        Object certificates = ctx.req().getAttribute("jakarta.servlet.request.X509Certificate");
        Optional<X509Certificate> certificate = certificates instanceof X509Certificate[] chain && chain.length > 0
                ? Optional.of(chain[0]) : Optional.empty();
        AuthOutcome outcome = authenticator.authenticate(ctx.header("Authorization"), ctx.req().getRemoteAddr(), certificate);
        return switch (outcome.kind()) {
            case AUTHENTICATED -> outcome.device();
            case THROTTLED -> throw new Refused(Problem.of(429, "TOO_MANY_AUTH_FAILURES", outcome.detail()).retryAfter(outcome.retryAfter()));
            case UNAVAILABLE -> throw new Refused(Problem.of(503, "STORE_UNAVAILABLE", outcome.detail()).retryAfter(Duration.ofSeconds(2)));
            case PROVIDER_UNAVAILABLE -> throw new Refused(Problem.of(503, "IDP_UNAVAILABLE", outcome.detail())
                    .retryAfter(Duration.ofSeconds(2)));
            case FORBIDDEN -> throw new BadRequest(403, "CERTIFICATE_MISMATCH", outcome.detail());
            case UNAUTHENTICATED -> throw new BadRequest(401, "UNAUTHENTICATED", outcome.detail());
        };
    }

    /** A refusal with a ready problem (and its Retry-After). */
    static final class Refused extends RuntimeException {
        final Problem problem;

        Refused(Problem problem) {
            super(problem.detail(), null, false, false);
            this.problem = problem;
        }
    }
}
