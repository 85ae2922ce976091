package io.shardflow.cli.bench;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SampleBuilder;
import io.shardflow.gateway.auth.TokenStore;
import io.shardflow.stack.LocalGateway;
import io.shardflow.stack.ServiceProcess;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * GW: the HTTP gateway beside a raw Kafka producer of the same records (edge-client's, 64 KiB
 * samples), in the same run on the same stack: samples/s at saturation (single-sample requests and
 * batches of 8), p50/p99 latency at a fixed rate of half the single-sample saturation, and the
 * gateway's peak heap and RSS while it is driven past saturation with a small heap.
 */
public final class GatewayFigure implements Figure {

    private static final int CLIENTS = 16;
    private static final String HEAP = "-Xmx256m";

    @Override
    public List<String> ids() {
        return List.of("gw");
    }

    @Override
    public void run(BenchContext context) throws Exception {
        long samples = Math.max(500, context.options().samples() / 10);
        BenchCase benchCase = context.newCase("gw-64k", 3, SampleShape.SMALL);
        DatasetSpec spec = new DatasetSpec(benchCase.dataset(), "v2", List.of(TensorSpec.parse("blob:uint8:" + GatewayLoad.BLOB_BYTES),
                TensorSpec.parse("label:int64")), "label", "bench", "64 KiB samples", 0, false, Instant.now());
        new DatasetCatalog(context.store()).create(spec);
        String token = new TokenStore(context.store(), context.clock()).create("bench-phone", List.of(benchCase.dataset()), null, null, null,
                "bench").token();
        double mb = GatewayLoad.BLOB_BYTES / 1e6;

        context.say("GW raw producer: %d samples of 64 KiB", samples);
        // The raw rate is measured before and after the gateway's runs and averaged: on a shared
        // machine the broker's pace drifts over minutes, and both ends of the drift are reported.
        double rawBefore = rawRate(context, benchCase, samples, 0);
        List<Double> rawLatencies; // at the gateway's half-saturation rate, once that is known

        int port = LocalGateway.freePort();
        Map<String, String> settings = Map.of("topic.samples", benchCase.samplesTopic(), "quota.requests.per.second", "100000",
                "quota.requests.burst", "100000", "quota.bytes.per.second", "1000000000", "quota.bytes.burst", "1000000000");
        GatewayLoad.Result single;
        GatewayLoad.Result batched;
        GatewayLoad.Result binary;
        GatewayLoad.Result paced;
        double gatewayCpu;
        double clientCpu;
        try (ServiceProcess gateway = LocalGateway.start(context.endpoints(), context.workDir(), context.workDir().resolve("gateway"), port,
                settings, List.of("-Xmx512m", "-XX:+UseSerialGC"), Duration.ofMinutes(2))) {
            GatewayLoad load = new GatewayLoad("http://127.0.0.1:" + port, benchCase.dataset(), "v2", token, "gw-");
            load.closedLoop(CLIENTS, Math.min(400, samples), 1); // warm-up: JIT, connections, schema lookup
            context.say("GW gateway at saturation: %d single-sample requests from %d clients", samples, CLIENTS);
            double gatewayBefore = ProcessMeter.cpuSeconds(gateway.pid()).orElse(Double.NaN);
            double clientBefore = ProcessMeter.ownCpuSeconds();
            single = load.closedLoop(CLIENTS, samples, 1);
            gatewayCpu = ProcessMeter.cpuSeconds(gateway.pid()).orElse(Double.NaN) - gatewayBefore;
            clientCpu = ProcessMeter.ownCpuSeconds() - clientBefore;
            context.say("GW gateway at saturation: %d samples in batches of 8", samples);
            batched = load.closedLoop(CLIENTS, samples / 8, 8);
            context.say("GW gateway at saturation: %d samples in batches of 8, Avro binary bodies", samples);
            binary = load.closedLoop(CLIENTS, samples / 8, 8, true);
            double half = single.samplesPerSecond() / 2;
            Duration pacedFor = Duration.ofSeconds(samples >= 2000 ? 20 : 5);
            context.say("GW latency at half saturation: %.0f requests/s for %d s, gateway and raw producer", half, pacedFor.toSeconds());
            paced = load.openLoop(half, pacedFor);
            try (EdgePublisher raw = EdgePublisher.create(context.endpoints().bootstrapServers(), context.endpoints().registryUrl(),
                    benchCase.rawTopic(), Map.of())) {
                rawLatencies = pacedRaw(raw, half, pacedFor);
            }
        }
        context.say("GW raw producer again: %d samples of 64 KiB", samples);
        double rawAfter = rawRate(context, benchCase, samples, 1_000_000);
        double rawRate = (rawBefore + rawAfter) / 2;
        String rawName = String.format(Locale.ROOT, "raw Kafka producer, same records (%.0f and %.0f samples/s before and after)",
                rawBefore, rawAfter);
        String s3 = context.s3();
        context.recorder().add(Measurement.againstBaseline("GW", "64 KiB samples, 1 per request, saturation", s3, single.samplesPerSecond() * mb,
                "MB/s", rawRate * mb, rawName, ">= 0.7", 0.7, String.format(Locale.ROOT,
                        "%.0f samples/s vs %.0f, %d clients, answers %s; CPU: gateway %.1f s, load generator %.1f s for %.0f MB",
                        single.samplesPerSecond(), rawRate, CLIENTS, single.statuses(), gatewayCpu, clientCpu, samples * mb)));
        context.recorder().add(Measurement.againstBaseline("GW", "64 KiB samples, 8 per request, saturation", s3, batched.samplesPerSecond() * mb,
                "MB/s", rawRate * mb, rawName, ">= 0.7", 0.7, String.format(Locale.ROOT,
                        "%.0f samples/s vs %.0f, answers %s", batched.samplesPerSecond(), rawRate, batched.statuses())));
        context.recorder().add(Measurement.againstBaseline("GW", "64 KiB samples, 8 per request, Avro binary, saturation", s3,
                binary.samplesPerSecond() * mb, "MB/s", rawRate * mb, rawName, ">= 0.7", 0.7, String.format(Locale.ROOT,
                        "%.0f samples/s vs %.0f, answers %s", binary.samplesPerSecond(), rawRate, binary.statuses())));
        double p99 = Percentiles.of(paced.latenciesMs(), 99);
        double rawP99 = Percentiles.of(rawLatencies, 99);
        context.recorder().add(Measurement.withGoal("GW", "p99 latency at half saturation (1 sample per request)", s3, p99, "ms", rawP99,
                "raw producer, same rate", "p99 <= 50 ms", p99 <= 50, String.format(Locale.ROOT,
                        "p50 %.1f ms (raw %.1f ms) at %.0f requests/s, %d answered, answers %s", Percentiles.of(paced.latenciesMs(), 50),
                        Percentiles.of(rawLatencies, 50), single.samplesPerSecond() / 2, paced.latenciesMs().size(), paced.statuses())));
        overload(context, benchCase, token, Math.max(128, samples / 4));
    }

    /** Past saturation on a small heap: the in-flight bound answers 503, the heap stays below -Xmx. */
    private void overload(BenchContext context, BenchCase benchCase, String token, long requests) throws Exception {
        int port = LocalGateway.freePort();
        Map<String, String> settings = Map.of("topic.samples", benchCase.samplesTopic(), "inflight.max.bytes", "67108864",
                "request.max.bytes", "4194304", "quota.requests.per.second", "100000", "quota.requests.burst", "100000",
                "quota.bytes.per.second", "1000000000", "quota.bytes.burst", "1000000000");
        try (ServiceProcess gateway = LocalGateway.start(context.endpoints(), context.workDir(), context.workDir().resolve("gateway-overload"),
                port, settings, List.of(HEAP, "-XX:+UseSerialGC"), Duration.ofMinutes(2));
             HeapSampler heap = HeapSampler.start(gateway.pid(), 200)) {
            GatewayLoad load = new GatewayLoad("http://127.0.0.1:" + port, benchCase.dataset(), "v2", token, "overload-");
            context.say("GW overload: 64 clients sending %d batches of 32 samples (2.8 MB each) back to back, -Xmx256m, inflight.max.bytes=64 MiB",
                    requests);
            GatewayLoad.Result result = load.closedLoop(64, requests, 32);
            boolean alive = gateway.isAlive();
            double peakHeap = heap.peakHeapMb().orElse(Double.NaN);
            long refused = result.statuses().getOrDefault(503, 0L);
            context.recorder().add(Measurement.withGoal("GW", "peak heap past saturation, -Xmx256m", context.s3(), peakHeap, "MB", 268.4,
                    "-Xmx", "alive, heap below -Xmx", alive && peakHeap < 268.4, String.format(Locale.ROOT,
                            "%d requests of 32 samples from 64 clients: answers %s (%.0f%% 503); peak RSS %.0f MB; %.0f samples/s accepted",
                            requests, result.statuses(), 100.0 * refused / requests, heap.peakRssMb().orElse(Double.NaN),
                            result.samplesPerSecond())));
        }
    }

    /** Samples per second of edge-client's producer writing {@code samples} records to the raw topic, after a short warm-up. */
    private static double rawRate(BenchContext context, BenchCase benchCase, long samples, long firstId) throws Exception {
        try (EdgePublisher raw = EdgePublisher.create(context.endpoints().bootstrapServers(), context.endpoints().registryUrl(),
                benchCase.rawTopic(), Map.of())) {
            publishAll(raw, firstId, Math.min(200, samples));
            long start = System.nanoTime();
            publishAll(raw, firstId + 1000, samples);
            return samples / ((System.nanoTime() - start) / 1e9);
        }
    }

    private static void publishAll(EdgePublisher publisher, long first, long count) throws Exception {
        List<CompletableFuture<?>> acks = new ArrayList<>();
        for (long n = first; n < first + count; n++) {
            acks.add(publisher.publish(sample("raw-" + n)));
        }
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
    }

    private static List<Double> pacedRaw(EdgePublisher publisher, double perSecond, Duration duration) throws Exception {
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        long period = (long) (1e9 / perSecond);
        long total = duration.toNanos() / period;
        List<CompletableFuture<?>> acks = new ArrayList<>();
        long start = System.nanoTime();
        for (long n = 0; n < total; n++) {
            long due = start + n * period;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            acks.add(publisher.publish(sample("paced-" + n)).thenRun(() -> latencies.add((System.nanoTime() - due) / 1e6)));
        }
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
        return latencies;
    }

    private static io.shardflow.schemas.Sample sample(String id) {
        return SampleBuilder.forDataset("gw-64k", "v2").id(id).device("bench-phone").uint8("blob", BLOB, GatewayLoad.BLOB_BYTES)
                .int64("label", new long[] {1}).build();
    }

    private static final byte[] BLOB = GatewayLoad.blob();
}
