package io.shardflow.cli.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The benchmark's HTTP load generator, loopback only and bounded in count and time: JSON requests of
 * {@code samplesPerRequest} samples of {@link #BLOB_BYTES} bytes (base64, as a mobile app sends them),
 * either closed-loop (C clients, each sending as soon as its last answer came: saturation) or
 * open-loop at a fixed rate (each latency counted from when the request was due, so a slow answer
 * cannot hide the ones queued behind it).
 */
final class GatewayLoad {

    static final int BLOB_BYTES = 64 * 1024;
    private static final String BLOB_BASE64 = Base64.getEncoder().encodeToString(blob());

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).executor(Executors.newFixedThreadPool(8))
            .build();
    private final URI samples;
    private final String token;
    private final AtomicLong nextId = new AtomicLong();
    private final String prefix;

    private final String dataset;
    private final String version;

    GatewayLoad(String baseUrl, String dataset, String version, String token, String prefix) {
        this.dataset = dataset;
        this.version = version;
        this.samples = URI.create(baseUrl + "/v1/datasets/" + dataset + "/versions/" + version + "/samples");
        this.token = token;
        this.prefix = prefix;
    }

    /** Outcome of a load: answers by status, and the latency of each 2xx in milliseconds. */
    record Result(long samples, double seconds, Map<Integer, Long> statuses, List<Double> latenciesMs) {
        double samplesPerSecond() {
            return samples / seconds;
        }
    }

    /** {@code clients} threads, each sending its share of {@code requests} back to back. */
    Result closedLoop(int clients, long requests, int samplesPerRequest) throws Exception {
        return closedLoop(clients, requests, samplesPerRequest, false);
    }

    /** As above; {@code avro}: the binary wire format instead of JSON (no base64, no JSON parse). */
    Result closedLoop(int clients, long requests, int samplesPerRequest, boolean avro) throws Exception {
        Map<Integer, Long> statuses = new ConcurrentHashMap<>();
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        AtomicLong accepted = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long start = System.nanoTime();
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            long share = requests / clients + (c < requests % clients ? 1 : 0);
            workers.add(pool.submit(() -> {
                for (long r = 0; r < share; r++) {
                    long sent = System.nanoTime();
                    HttpRequest request = avro ? avroRequest(samplesPerRequest) : request(samplesPerRequest);
                    int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                    statuses.merge(status, 1L, Long::sum);
                    if (status == 200) {
                        accepted.addAndGet(samplesPerRequest);
                        latencies.add((System.nanoTime() - sent) / 1e6);
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(10, TimeUnit.MINUTES);
        }
        pool.shutdown();
        return new Result(accepted.get(), (System.nanoTime() - start) / 1e9, statuses, latencies);
    }

    /** One single-sample request every {@code 1/rate} seconds for {@code duration}. */
    Result openLoop(double requestsPerSecond, Duration duration) throws Exception {
        Map<Integer, Long> statuses = new ConcurrentHashMap<>();
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        long period = (long) (1e9 / requestsPerSecond);
        long total = (long) (duration.toNanos() / (double) period);
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        long start = System.nanoTime();
        for (long n = 0; n < total; n++) {
            long due = start + n * period;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            pending.add(http.sendAsync(request(1), HttpResponse.BodyHandlers.discarding()).thenAccept(response -> {
                statuses.merge(response.statusCode(), 1L, Long::sum);
                if (response.statusCode() == 200) {
                    latencies.add((System.nanoTime() - due) / 1e6);
                }
            }));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
        return new Result(latencies.size(), (System.nanoTime() - start) / 1e9, statuses, latencies);
    }

    private HttpRequest request(int samplesPerRequest) {
        StringBuilder body = new StringBuilder(samplesPerRequest * (BLOB_BASE64.length() + 200)).append("{\"samples\":[");
        for (int i = 0; i < samplesPerRequest; i++) {
            body.append(i == 0 ? "" : ",").append("{\"sample_id\":\"").append(prefix).append(nextId.getAndIncrement())
                    .append("\",\"tensors\":{\"blob\":{\"dtype\":\"uint8\",\"shape\":[").append(BLOB_BYTES).append("],\"data\":\"")
                    .append(BLOB_BASE64).append("\"},\"label\":{\"dtype\":\"int64\",\"data\":\"AQAAAAAAAAA=\"}}}");
        }
        body.append("]}");
        return HttpRequest.newBuilder(samples).timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.US_ASCII))
                .build();
    }

    private HttpRequest avroRequest(int samplesPerRequest) throws java.io.IOException {
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream(samplesPerRequest * (BLOB_BYTES + 256));
        var encoder = org.apache.avro.io.EncoderFactory.get().binaryEncoder(body, null);
        var writer = new org.apache.avro.specific.SpecificDatumWriter<>(io.shardflow.schemas.Sample.class);
        for (int i = 0; i < samplesPerRequest; i++) {
            writer.write(io.shardflow.edge.SampleBuilder.forDataset(dataset, version).id(prefix + nextId.getAndIncrement()).device("")
                    .uint8("blob", BLOB, BLOB_BYTES).int64("label", new long[] {1}).build(), encoder);
        }
        encoder.flush();
        return HttpRequest.newBuilder(samples).timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/vnd.shardflow.sample+avro").POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
                .build();
    }

    private static final byte[] BLOB = blob();

    static byte[] blob() {
        byte[] bytes = new byte[BLOB_BYTES];
        new SplittableRandom(64).nextBytes(bytes);
        return bytes;
    }
}
