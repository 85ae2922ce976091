package io.shardflow.gateway.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.shardflow.gateway.publish.InflightBudget;
import java.time.Duration;

/**
 * The gateway's meters (docs/reference/metrics.md lists them): answers by status, samples by outcome,
 * memory in hand, produce latency.
 */
public final class GatewayMetrics {

    private final MeterRegistry registry;
    private final Timer produce;

    public GatewayMetrics(MeterRegistry registry, InflightBudget budget) {
        this.registry = registry;
        this.produce = Timer.builder("shardflow.gateway.produce").description("from the first send to the last acknowledgement of a request")
                .publishPercentiles(0.5, 0.99).register(registry);
        Gauge.builder("shardflow.gateway.inflight.bytes", budget, InflightBudget::reservedBytes)
                .description("bytes reserved by the requests in hand").register(registry);
        Gauge.builder("shardflow.gateway.inflight.max.bytes", budget, InflightBudget::maxBytes)
                .description("the in-flight memory bound (inflight.max.bytes)").register(registry);
    }

    public void answered(int status) {
        Counter.builder("shardflow.gateway.requests").description("requests answered, by HTTP status")
                .tag("status", Integer.toString(status)).register(registry).increment();
    }

    /** @param reason a dead-letter reason code, or "" */
    public void samples(String outcome, String reason, long count) {
        if (count > 0) {
            Counter.builder("shardflow.gateway.samples").description("samples by outcome, with the dead-letter reason code of a refusal")
                    .tag("outcome", outcome).tag("reason", reason).register(registry).increment(count);
        }
    }

    public void produced(Duration took) {
        produce.record(took);
    }
}
