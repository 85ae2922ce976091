package io.shardflow.gateway.publish;

import io.shardflow.edge.EdgePublisher;
import io.shardflow.schemas.Sample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;

/**
 * Sends a request's samples with edge-client's {@link EdgePublisher}: the records a device's own
 * producer would write (key = sample id, Avro {@code Sample} through the Apicurio 3.x serde,
 * idempotent producer, acks=all), so ingest-app cannot tell the two apart. Waits until every
 * record is acknowledged or the deadline passes; nothing is answered 2xx before that.
 */
public final class SamplePublisher implements AutoCloseable {

    private final EdgePublisher publisher;
    private volatile PublishObserver observer = PublishObserver.NONE;

    public SamplePublisher(EdgePublisher publisher) {
        this.publisher = publisher;
    }

    /** Who hears what each delivery says about the broker and the registry (readiness). */
    public void observe(PublishObserver observer) {
        this.observer = observer;
    }

    /** One delivery per sample, in order. Never throws for a broker or registry failure: it is in the delivery. */
    public List<Delivery> publish(List<Sample> samples, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<CompletableFuture<RecordMetadata>> sent = new ArrayList<>(samples.size());
        RuntimeException refused = null;
        for (Sample sample : samples) {
            if (refused != null) {
                // The producer refused one synchronously (no metadata, registry down): the others would
                // each wait as long again for the same answer.
                sent.add(CompletableFuture.failedFuture(refused));
                continue;
            }
            try {
                sent.add(publisher.publish(sample));
            } catch (RuntimeException e) {
                refused = e;
                sent.add(CompletableFuture.failedFuture(e));
            }
        }
        List<Delivery> deliveries = new ArrayList<>(samples.size());
        for (CompletableFuture<RecordMetadata> future : sent) {
            deliveries.add(await(future, deadline));
        }
        if (!deliveries.isEmpty() && deliveries.get(deliveries.size() - 1).acknowledged()) {
            observer.acknowledged();
        }
        return deliveries;
    }

    private Delivery await(CompletableFuture<RecordMetadata> future, long deadline) {
        try {
            RecordMetadata metadata = future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return Delivery.acknowledged(metadata.partition(), metadata.offset());
        } catch (TimeoutException e) {
            observer.brokerFailed();
            return Delivery.failed("no acknowledgement from the broker in time", false);
        } catch (ExecutionException e) {
            return failure(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Delivery.failed("interrupted while waiting for the broker", false);
        }
    }

    private Delivery failure(Throwable cause) {
        if (cause instanceof RecordTooLargeException) {
            return Delivery.failed("the record is larger than the topic accepts", true);
        }
        String what = cause.getClass().getSimpleName();
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t.getClass().getName().startsWith("io.apicurio") || t instanceof java.net.ConnectException
                    || t instanceof java.net.http.HttpConnectTimeoutException) {
                observer.registryFailed();
                return Delivery.failed("the schema registry cannot be reached (" + what + ")", false);
            }
        }
        observer.brokerFailed();
        return Delivery.failed("the broker did not acknowledge the record (" + what + ")", false);
    }

    public void flush() {
        publisher.flush();
    }

    @Override
    public void close() {
        publisher.close();
    }

    /** Producer settings over edge-client's: bounded waits and a buffer no request can fill (see {@link InflightBudget}). */
    public static java.util.Map<String, Object> producerSettings(Duration produceTimeout, long inflightMaxBytes) {
        long timeout = produceTimeout.toMillis();
        return java.util.Map.of(
                "max.block.ms", Math.max(1_000, Math.min(5_000, timeout / 3)),
                "request.timeout.ms", (int) Math.max(1_000, timeout / 2),
                "delivery.timeout.ms", (int) timeout,
                "buffer.memory", inflightMaxBytes + (32L << 20));
    }
}
